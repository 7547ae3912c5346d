// Package console serves the operator web console at /console: one HTML
// page, a style sheet and its scripts (one part of the page each, loaded in
// order by index.html: dom.js first, console.js, the polling and the page's
// state, last), embedded in the binary with embed (no CDN, no build step,
// works offline).
//
// The static files are public; they hold no data. Everything the page shows
// comes from the authenticated JSON routes (/coord/v1/monitoring/…, the
// per-shard offsets route when the server has it), called by the browser
// with the operator's credentials: a bearer token from
// POST /coord/v1/auth/login, kept in sessionStorage, or none when
// authentication is off. So the console can show nothing a READ principal
// could not read with curl.
//
// The page polls once a second. docs/OPERATIONS.md ("Web console") says what
// each part of it shows.
package console

// Package console tests the web console (api/console) in a real headless
// Chromium against a real coordinator: an in-process actor host and fiber
// front on loopback, a real redis-server, and a group driven through a
// hand-off. Assertions read the rendered page (DOM text), never the page's
// own data. Screenshots go to test/console/artifacts/ (gitignored).
//
// Chromium comes from Debian's chromium package (bash
// test/ensure-chromium.sh installs it; .ci/run does so). Without it the test
// skips with a message, except under CI=true, where it fails.
package console

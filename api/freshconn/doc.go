// Package freshconn keeps a graceful HTTP shutdown from waiting on
// connections that never sent a request.
//
// fasthttp (under fiber) marks a new connection active as soon as it starts
// reading its first request, so Server.Shutdown neither closes it as idle
// nor counts it as done: it waits until the client sends a request or the
// read timeout (30 s here) runs out. Go's http.Transport leaves such
// connections open routinely (a connection dialed for a request that was
// then sent on another one that freed up first goes unused into its idle
// pool), so one client could hold a coordinator's shutdown for the whole
// shutdown.timeout.
//
// Wrap the listener given to the server; before shutting the server down,
// call Listener.CutFresh: every connection that has not sent a byte yet gets
// a short grace to send its request, then its read fails and the server
// closes it. Connections that sent something are left alone (their request
// is in flight; the server finishes it).
//
// Allowed imports: the standard library only.
package freshconn

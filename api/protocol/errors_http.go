package protocol

// Error codes added by the HTTP front (api/) next to those in errors.go.
const (
	CodeNotImplemented      = "NOT_IMPLEMENTED"
	CodeTimeout             = "TIMEOUT"     // the coordinator did not answer in time (503, retry)
	CodeUnavailable         = "UNAVAILABLE" // health DOWN (503)
	CodeHeadersTooLarge     = "REQUEST_HEADERS_TOO_LARGE"
	CodeUnsupportedEncoding = "UNSUPPORTED_CONTENT_ENCODING" // request bodies must not be compressed
	CodeBadRequest          = "BAD_REQUEST"                  // HTTP-level request error not covered by a more precise code
	CodeAuthDisabled        = "AUTHENTICATION_DISABLED"      // login on a server with no users configured
	CodeShuttingDown        = "SHUTTING_DOWN"                // the node drains before it exits (503, retry elsewhere)
)

package protocol

// Error codes added by the HTTP front (api/) next to those in errors.go.
const (
	CodeTimeout             = "TIMEOUT"     // the coordinator did not answer in time (503, retry)
	CodeUnavailable         = "UNAVAILABLE" // health DOWN (503)
	CodeHeadersTooLarge     = "REQUEST_HEADERS_TOO_LARGE"
	CodeUnsupportedEncoding = "UNSUPPORTED_CONTENT_ENCODING" // request bodies must not be compressed
	CodeBadRequest          = "BAD_REQUEST"                  // HTTP-level request error not covered by a more precise code
	CodeAuthDisabled        = "AUTHENTICATION_DISABLED"      // login on a server with no users configured
	CodeShuttingDown        = "SHUTTING_DOWN"                // the node drains before it exits (503, retry elsewhere)
	// CodeUnsupportedMediaType: a JSON route got a body that is not application/json (415).
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	// CodeCrossOrigin: a state-changing request from a page on another origin (403); see http.allowed-origins.
	CodeCrossOrigin = "CROSS_ORIGIN_REQUEST"
	// CodeAmbiguousLength: Content-Length and Transfer-Encoding together, or either twice (400, connection closed).
	CodeAmbiguousLength = "AMBIGUOUS_BODY_LENGTH"
	// CodeWrongKeyType: a shard's Redis key holds something other than a stream (409).
	CodeWrongKeyType = "SHARD_KEY_NOT_A_STREAM"
)

package group

// retryTimers is sent to self when a timer-driven write failed and must be
// tried again.
type retryTimers struct{}

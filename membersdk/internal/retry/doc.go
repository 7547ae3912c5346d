// Package retry paces the member SDK's retry loops: an exponential back-off
// with jitter (cenkalti/backoff) so that members that failed together do not
// retry in lock-step.
//
// It may import the standard library and cenkalti/backoff only.
package retry

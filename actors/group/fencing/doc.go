// Package fencing keeps one group activation's shard fences in step with its memory (Book):
// it writes the fences a durable change moves before the change is saved, remembers those a
// failed write may have left out of step, compares them after an activation and repairs them.
// It imports groupstate (the changes and holders), persistence (the fence writes) and reshard
// (the fence base of a resharded stream).
package fencing

//go:build !linux

package main

import "os/exec"

// dieWithParent: only Linux can tie a child's life to its parent; elsewhere
// a demo killed with SIGKILL may leave its children running.
func dieWithParent(*exec.Cmd) {}

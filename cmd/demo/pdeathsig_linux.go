package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd when the demo dies, however it
// dies (SIGKILL, a crash): no redis-server, coordinator or member is left
// behind. Pdeathsig fires when the thread that started the child exits; the
// Go runtime ends a thread only when a goroutine locked to it (LockOSThread)
// returns, which this program never does. Each child gets a process group
// of its own, so a Ctrl-C in the terminal reaches the demo alone, and the
// demo stops its children in order.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

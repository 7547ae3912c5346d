package k8s

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// The coordinator refuses a loopback cluster address with the kubernetes
// provider (config: cluster.host and cluster.advertise-host must be the pod
// IP), so pods need addresses that are not 127.x. The tests therefore run in
// a network namespace of their own (a re-exec of the test binary, see
// TestMain) whose loopback interface also carries the pod IPs podIP(0) … :
// nothing is reachable from outside, nothing on the host is changed, and
// etcd, kube-apiserver and redis-server stay on 127.0.0.1.

// netnsEnv marks the test binary running inside its network namespace.
const netnsEnv = "K8STEST_NETNS"

// podIP is the address of the i-th pod of a test: 10.77.0.(11+i).
func podIP(i int) string { return fmt.Sprintf("10.77.0.%d", 11+i) }

// podIPs is how many pod addresses the namespace's loopback carries.
const podIPs = 8

// reexecInNetns runs this test binary again, with the same flags, in a new
// network namespace (and a user namespace when not root), with env added,
// and returns its exit code.
func reexecInNetns(env []string) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(self, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), append(env, netnsEnv+"=1")...)
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("run the tests in a new network namespace (needs root or unprivileged user namespaces): %w", err)
	}
	return 0, nil
}

// setUpLoopback brings the namespace's loopback interface up and adds the
// pod IPs to it (as aliases lo:1 …, netmask /32), by ioctl.
func setUpLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("lo flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("lo up: %w", err)
	}
	for i := range podIPs {
		alias, err := unix.NewIfreq(fmt.Sprintf("lo:%d", i+1))
		if err != nil {
			return err
		}
		if err := alias.SetInet4Addr(net.ParseIP(podIP(i)).To4()); err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFADDR, alias); err != nil {
			return fmt.Errorf("add %s to lo: %w", podIP(i), err)
		}
		if err := alias.SetInet4Addr(net.IPv4(255, 255, 255, 255).To4()); err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFNETMASK, alias); err != nil {
			return fmt.Errorf("netmask of %s: %w", podIP(i), err)
		}
	}
	return nil
}

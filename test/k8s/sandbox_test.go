package k8s

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// The coordinator finds its pod the way a pod does: the pod name is the
// hostname, the namespace, API token and CA are the files under
// /var/run/secrets/kubernetes.io/serviceaccount, the API server is
// KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT. Three processes on one
// machine need three hostnames and three service account mounts, so each
// runs in a sandbox of its own: new UTS and mount namespaces (and a user
// namespace when the test does not run as root), where the test binary
// itself sets the hostname, mounts the pod's service account directory and
// then execs the coordinator. The network namespace is the tests' own (see
// netns_test.go), shared by every pod: each listens on its own pod IP.

// sandboxEnv names the variable that turns the test binary into a sandbox
// launcher (see runSandbox). It is not an RSC_* name: the coordinator
// refuses unknown RSC_* variables.
const sandboxEnv = "K8STEST_SANDBOX"

// saMount is where a pod's service account token, CA and namespace are.
const saMount = "/var/run/secrets/kubernetes.io/serviceaccount"

// sandboxSpec is what the launcher does in the child.
type sandboxSpec struct {
	Hostname string   // the pod name
	SADir    string   // host directory mounted at saMount
	Bin      string   // the coordinator binary
	Args     []string // its arguments
}

// sandboxCommand returns the command that runs spec in new namespaces, with
// env as the coordinator's environment.
func sandboxCommand(spec sandboxSpec, env []string) (*exec.Cmd, []string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	enc, err := json.Marshal(spec)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(self)
	attr := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUTS | syscall.CLONE_NEWNS,
		Pdeathsig:  syscall.SIGKILL, // a test that dies takes its pods' processes along
	}
	if os.Geteuid() != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	return cmd, append(env, sandboxEnv+"="+string(enc)), nil
}

// runSandbox is the child: it is in its own UTS and mount namespaces. It
// makes its mounts private, sets the hostname, mounts a tmpfs on /run (so
// that /var/run/secrets can be created without touching the host) and the
// pod's service account directory on saMount, then execs the coordinator.
// It only returns on failure.
func runSandbox(raw string) error {
	var spec sandboxSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return fmt.Errorf("sandbox spec: %w", err)
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := syscall.Sethostname([]byte(spec.Hostname)); err != nil {
		return fmt.Errorf("sethostname %s: %w", spec.Hostname, err)
	}
	run, err := filepath.EvalSymlinks(filepath.Dir(filepath.Dir(filepath.Dir(saMount)))) // /var/run → /run
	if err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", run, "tmpfs", 0, "mode=0755"); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", run, err)
	}
	if err := os.MkdirAll(saMount, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount(spec.SADir, saMount, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s on %s: %w", spec.SADir, saMount, err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if len(kv) <= len(sandboxEnv) || kv[:len(sandboxEnv)+1] != sandboxEnv+"=" {
			env = append(env, kv)
		}
	}
	return syscall.Exec(spec.Bin, append([]string{spec.Bin}, spec.Args...), env)
}

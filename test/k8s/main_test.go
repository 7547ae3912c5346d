package k8s

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"testing"
)

// Shared by every test of the package: one control plane, one coordinator
// binary, the manifest. Each test works in a namespace of its own.
var (
	cp             *controlPlane
	coordinatorBin string
	man            *manifest
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(sandboxEnv) != "": // this process is a pod's sandbox
		err := runSandbox(os.Getenv(sandboxEnv))
		fmt.Fprintf(os.Stderr, "test/k8s sandbox: %v\n", err)
		os.Exit(127)
	case os.Getenv(netnsEnv) == "": // build, then run the tests in a network namespace
		os.Exit(outer())
	default:
		os.Exit(inner(m))
	}
}

// Environment from the outer process to the inner one.
const (
	apiserverEnv   = "K8STEST_APISERVER"
	coordinatorEnv = "K8STEST_COORDINATOR"
)

// outer builds kube-apiserver (cached) and the coordinator (needs the Go
// module proxy, so outside the network namespace), then runs the tests in
// a new network namespace.
func outer() int {
	apiserver, err := kubeAPIServer()
	if err != nil {
		return fail("%v", err)
	}
	dir, err := os.MkdirTemp("", "rsc-k8s-bin-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(dir)
	bin, err := buildCoordinator(dir)
	if err != nil {
		return fail("%v", err)
	}
	code, err := reexecInNetns([]string{apiserverEnv + "=" + apiserver, coordinatorEnv + "=" + bin})
	if err != nil {
		return fail("%v", err)
	}
	return code
}

// inner runs in the network namespace: pod IPs on loopback, etcd and
// kube-apiserver, then the tests.
func inner(m *testing.M) int {
	if err := setUpLoopback(); err != nil {
		return fail("%v", err)
	}
	var err error
	if man, err = readManifest(); err != nil {
		return fail("%v", err)
	}
	coordinatorBin = os.Getenv(coordinatorEnv)
	dir, err := os.MkdirTemp("", "rsc-k8s-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if cp, err = startControlPlane(os.Getenv(apiserverEnv), dir); err != nil {
		return fail("control plane: %v", err)
	}
	defer cp.Stop()
	fmt.Printf("test/k8s: etcd and kube-apiserver ready after %s (%s)\n", time.Since(start).Round(time.Millisecond), cp.URL)
	return m.Run()
}

func fail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "test/k8s: "+format+"\n", args...)
	return 2
}

// kubeAPIServer returns the kube-apiserver binary of the k8s.io/kubernetes
// version this module requires, building it into the cache directory the
// first time (13 CPU-minutes with an empty Go build cache: 49 minutes on a
// shared 2-core box).
func kubeAPIServer() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m k8s.io/kubernetes: %w", err)
	}
	version := strings.TrimSpace(string(out))
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "kube-apiserver-"+version)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmt.Printf("test/k8s: building kube-apiserver %s into %s (once; 13 CPU-minutes with an empty Go build cache)\n", version, dir)
	start := time.Now()
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, "k8s.io/kubernetes/cmd/kube-apiserver")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build k8s.io/kubernetes/cmd/kube-apiserver %s: %w", version, err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	fmt.Printf("test/k8s: built kube-apiserver %s in %s\n", version, time.Since(start).Round(time.Second))
	return bin, nil
}

// buildCoordinator builds ./cmd/coordinator of the repository (the root
// module, not this one) into dir.
func buildCoordinator(dir string) (string, error) {
	bin := filepath.Join(dir, "coordinator")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/coordinator")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/coordinator: %v\n%s", err, out)
	}
	return bin, nil
}

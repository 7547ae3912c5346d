package k8s

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// controlPlane is etcd and kube-apiserver on loopback: no scheduler, no
// controller-manager, no kubelet. The test stands in for the kubelet: it
// sets the pods' status and runs their processes.
type controlPlane struct {
	dir    string
	pki    *pki
	URL    string // https://127.0.0.1:port
	Port   int
	etcd   *process
	api    *process
	Admin  kubernetes.Interface // client certificate in group system:masters
	config *rest.Config
}

// startControlPlane starts etcd (Debian's etcd-server, on PATH) and the
// kube-apiserver binary at apiserver, both on free loopback ports, and waits
// until the API server's /readyz answers.
func startControlPlane(apiserver, dir string) (*controlPlane, error) {
	p, err := newPKI(dir)
	if err != nil {
		return nil, fmt.Errorf("generate certificates: %w", err)
	}
	cp := &controlPlane{dir: dir, pki: p}
	ports, err := freePorts("127.0.0.1", 3)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer := "http://127.0.0.1:"+strconv.Itoa(ports[0]), "http://127.0.0.1:"+strconv.Itoa(ports[1])
	etcdBin, err := exec.LookPath("etcd")
	if err != nil {
		return nil, fmt.Errorf("etcd is not on PATH (run test/ensure-etcd.sh, which installs Debian's etcd-server): %w", err)
	}
	cp.etcd, err = startProcess("etcd", etcdBin, nil,
		"--name=rsc-test", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdClient, "--advertise-client-urls="+etcdClient,
		"--listen-peer-urls="+etcdPeer, "--initial-advertise-peer-urls="+etcdPeer,
		"--initial-cluster=rsc-test="+etcdPeer, "--log-level=warn")
	if err != nil {
		return nil, err
	}
	cp.Port = ports[2]
	cp.URL = "https://127.0.0.1:" + strconv.Itoa(cp.Port)
	cp.api, err = startProcess("kube-apiserver", apiserver, nil,
		"--etcd-servers="+etcdClient,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(cp.Port),
		"--tls-cert-file="+p.ServeCert, "--tls-private-key-file="+p.ServeKey,
		"--client-ca-file="+p.CACert,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+p.SAPub, "--service-account-signing-key-file="+p.SAKey,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none", // no kubernetes Service endpoints for a loopback address
		"--cert-dir="+filepath.Join(dir, "apiserver-certs"),
		"--v=1")
	if err != nil {
		cp.Stop()
		return nil, err
	}
	cp.config = &rest.Config{Host: cp.URL, TLSClientConfig: rest.TLSClientConfig{
		CAFile: p.CACert, CertFile: p.AdminCert, KeyFile: p.AdminKey}, QPS: 100, Burst: 200}
	if cp.Admin, err = kubernetes.NewForConfig(cp.config); err != nil {
		cp.Stop()
		return nil, err
	}
	if err := cp.waitReady(3 * time.Minute); err != nil {
		cp.Stop()
		return nil, err
	}
	return cp, nil
}

// waitReady waits until /readyz answers ok (every post-start hook done,
// the RBAC bootstrap roles included).
func (cp *controlPlane) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		for _, p := range []*process{cp.etcd, cp.api} {
			if p.Exited() {
				return fmt.Errorf("%s exited at start:\n%s", p.name, p.Tail(60))
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		body, err := cp.Admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		cancel()
		if err == nil && strings.TrimSpace(string(body)) == "ok" {
			return nil
		}
		last = fmt.Sprintf("%v %s", err, body)
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready within %s: %s\nkube-apiserver log:\n%s", timeout, last, cp.api.Tail(60))
}

// Stop ends the API server, then etcd.
func (cp *controlPlane) Stop() {
	if cp.api != nil {
		cp.api.Stop()
	}
	if cp.etcd != nil {
		cp.etcd.Stop()
	}
}

// freePorts returns n distinct ports free on host.
func freePorts(host string, n int) ([]int, error) {
	var out []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for len(out) < n {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("free port on %s: %w", host, err)
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// cacheDir is where the kube-apiserver binary is kept between runs:
// $RSC_K8S_CACHE, else the user cache directory's rsc-k8s.
func cacheDir() (string, error) {
	if d := os.Getenv("RSC_K8S_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set RSC_K8S_CACHE): %w", err)
	}
	return filepath.Join(d, "rsc-k8s"), nil
}

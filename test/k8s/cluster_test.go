package k8s

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

// startPods applies the manifest's RBAC objects in namespace ns and runs n
// coordinator pods (rsc-coordinator-0 … n-1, pod IPs podIP(0) …) on one
// redis-server, each marked Ready once its readiness probe answers. Every
// pod listens for the cluster on the same port, as in the manifest.
func startPods(t *testing.T, ctx context.Context, ns string, n int) []*pod {
	t.Helper()
	if err := applyRBAC(ctx, cp.Admin, man, ns, nil); err != nil {
		t.Fatal(err)
	}
	redis := redistest.Start(t)
	ips := make([]string, n)
	for i := range ips {
		ips[i] = podIP(i)
	}
	port := commonFreePort(t, ips)
	pods := make([]*pod, n)
	for i := range pods {
		pods[i] = runPod(t, ctx, ns, "rsc-coordinator-"+strconv.Itoa(i), ips[i], port, redis.Addr())
	}
	for _, p := range pods {
		p.markReadyWhenProbed(t, ctx, 60*time.Second)
	}
	return pods
}

// commonFreePort is a port free on every one of ips.
func commonFreePort(t *testing.T, ips []string) int {
	t.Helper()
	for range 50 {
		ports, err := freePorts(ips[0], 1)
		if err != nil {
			t.Fatal(err)
		}
		free := true
		for _, ip := range ips[1:] {
			ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(ports[0])))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return ports[0]
		}
	}
	t.Fatalf("no port free on all of %v", ips)
	return 0
}

// waitMembers waits until every pod of view lists exactly the cluster
// addresses of the pods in want.
func waitMembers(t *testing.T, timeout time.Duration, view, want []*pod) {
	t.Helper()
	var addrs []string
	for _, p := range want {
		addrs = append(addrs, p.ClusterAddress())
	}
	sort.Strings(addrs)
	waitFor(t, timeout, fmt.Sprintf("every node of %s lists the members %v", names(view), addrs), func() (bool, string) {
		var problems []string
		for _, p := range view {
			h, err := health(p)
			switch {
			case err != nil:
				problems = append(problems, p.Name+": "+err.Error())
			case h.Cluster == nil || h.Cluster.Provider != "kubernetes":
				problems = append(problems, fmt.Sprintf("%s: no kubernetes cluster view: %+v", p.Name, h.Cluster))
			case !slices.Equal(memberAddresses(h), addrs):
				problems = append(problems, fmt.Sprintf("%s lists %v", p.Name, memberAddresses(h)))
			}
		}
		return len(problems) == 0, strings.Join(problems, "; ")
	})
}

func names(pods []*pod) string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return strings.Join(out, ",")
}

// Three coordinator pods, started with the manifest's ServiceAccount, Role
// and RoleBinding and nothing more, find each other through the real API
// server: each patches its pod's labels and watches its namespace's pods,
// and every node lists all three at their pod IPs.
func TestNodesFormOneCluster(t *testing.T) {
	ctx := t.Context()
	start := time.Now()
	pods := startPods(t, ctx, "rsc-form", 3)
	waitMembers(t, 60*time.Second, pods, pods)
	t.Logf("3 pods formed one cluster %s after the first pod was created", time.Since(start).Round(time.Millisecond))

	for _, p := range pods {
		got, err := cp.Admin.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Labels["cluster.proto.actor/cluster"] != "rsc" || got.Labels["cluster.proto.actor/port"] != strconv.Itoa(p.ClusterPort) {
			t.Errorf("pod %s: labels %v, want cluster.proto.actor/cluster=rsc and /port=%d", p.Name, got.Labels, p.ClusterPort)
		}
		if got.Labels["app.kubernetes.io/name"] != "rsc-coordinator" {
			t.Errorf("pod %s: the template's label app.kubernetes.io/name is gone: %v", p.Name, got.Labels)
		}
	}
}

// A deleted pod's node leaves the cluster and the groups it hosted fail
// over to the other nodes. The pod is deleted while its process still runs
// (so only the API server's watch event can make the others drop it); then
// the process is killed, as the kubelet would do.
func TestDeletedPodLeavesAndItsGroupsFailOver(t *testing.T) {
	ctx := t.Context()
	pods := startPods(t, ctx, "rsc-delete", 3)
	waitMembers(t, 60*time.Second, pods, pods)
	if _, err := call("POST", pods[0].URL()+"/coord/v1/streams/orders", map[string]any{"initialShardCount": 4, "requestedBy": "k8s-test"}, nil); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, p := range pods {
		urls = append(urls, p.URL())
	}
	stop := make(chan struct{})
	var running sync.WaitGroup
	var members []*member
	for i := range 6 {
		m := &member{prefix: "orders", group: "g" + strconv.Itoa(i), id: "m" + strconv.Itoa(i), urls: urls, cur: i % len(urls)}
		members = append(members, m)
		running.Add(1)
		go m.run(stop, &running)
	}
	defer func() { close(stop); running.Wait() }()
	begin := time.Now()
	var hosted map[string]string
	waitFor(t, 60*time.Second, "every group is served and hosted", func() (bool, string) {
		for _, m := range members {
			if ok, _, last := m.okSince(begin); !ok {
				return false, m.group + ": " + last
			}
		}
		var err error
		if hosted, err = hosts(pods[0]); err != nil {
			return false, err.Error()
		}
		return len(hosted) == len(members), fmt.Sprintf("hosted: %v", hosted)
	})
	count := map[string]int{}
	for _, node := range hosted {
		count[node]++
	}
	victim := pods[0]
	for _, p := range pods {
		if count[p.Name] > count[victim.Name] {
			victim = p
		}
	}
	var victimGroups []string
	for g, node := range hosted {
		if node == victim.Name {
			victimGroups = append(victimGroups, g)
		}
	}
	sort.Strings(victimGroups)
	var survivors []*pod
	for _, p := range pods {
		if p != victim {
			survivors = append(survivors, p)
		}
	}
	t.Logf("groups per node: %v; deleting pod %s, host of %v", count, victim.Name, victimGroups)

	deleted := time.Now()
	if err := cp.Admin.CoreV1().Pods(victim.Namespace).Delete(ctx, victim.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
		t.Fatal(err)
	}
	waitMembers(t, 30*time.Second, survivors, survivors)
	if victim.proc.Exited() {
		t.Fatalf("pod %s's process exited before it was killed: the survivors' view cannot be credited to the pod deletion", victim.Name)
	}
	left := time.Since(deleted)
	victim.proc.Kill()
	killed := time.Now()
	waitFor(t, 60*time.Second, fmt.Sprintf("the groups %v of the deleted pod answer OK on, and are hosted by, a surviving node", victimGroups), func() (bool, string) {
		h, err := hosts(survivors[0])
		if err != nil {
			return false, err.Error()
		}
		for _, g := range victimGroups {
			if node := h[g]; node == "" || node == victim.Name {
				return false, fmt.Sprintf("%s hosted by %q", g, node)
			}
		}
		for _, m := range members {
			if ok, from, last := m.okSince(killed); !ok || from == victim.URL() {
				return false, fmt.Sprintf("%s: last %s (OK from %s)", m.group, last, from)
			}
		}
		return true, ""
	})
	t.Logf("the survivors dropped %s %s after its pod was deleted; its groups answered on survivors %s after its process was killed",
		victim.Name, left.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
}

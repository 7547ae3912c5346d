package k8s

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

// A Role without one of the verbs the provider needs stops the
// coordinator's start with an error that names what is missing, instead of
// the upstream provider's endless retry loop.
func TestMissingRBACVerbStopsTheStart(t *testing.T) {
	redis := redistest.Start(t)
	for _, tc := range []struct {
		verb string
		want string // in the log of the process, which must exit
	}{
		{"get", "cannot get this pod rsc-no-get/rsc-coordinator-0"},
		{"patch", "may not patch pods in namespace rsc-no-patch"},
		{"watch", "may not watch pods in namespace rsc-no-watch"},
	} {
		t.Run("no "+tc.verb, func(t *testing.T) {
			ctx := t.Context()
			ns := "rsc-no-" + tc.verb
			if err := applyRBAC(ctx, cp.Admin, man, ns, func(r *rbacv1.Role) {
				for i := range r.Rules {
					r.Rules[i].Verbs = slices.DeleteFunc(r.Rules[i].Verbs, func(v string) bool { return v == tc.verb })
				}
			}); err != nil {
				t.Fatal(err)
			}
			ip := podIP(podIPs - 1)
			p := runPod(t, ctx, ns, "rsc-coordinator-0", ip, commonFreePort(t, []string{ip}), redis.Addr())
			if !p.proc.Wait(60 * time.Second) {
				t.Fatalf("the coordinator still runs 60 s after its start without RBAC verb %q; log:\n%s", tc.verb, p.proc.Tail(40))
			}
			if p.proc.ExitCode() == 0 {
				t.Errorf("exit code 0 without RBAC verb %q", tc.verb)
			}
			logs := p.proc.Logs()
			if !strings.Contains(logs, tc.want) || !strings.Contains(logs, "docs/deploy/kubernetes.yaml") && tc.verb != "get" {
				t.Errorf("the log does not say %q (and name the manifest):\n%s", tc.want, p.proc.Tail(40))
			}
			t.Logf("without %q: exit code %d, %s", tc.verb, p.proc.ExitCode(), lineWith(logs, tc.want))
		})
	}
}

// lineWith is the first line of logs containing s.
func lineWith(logs, s string) string {
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// waitRoleEffective waits until the API server's authorizer lets the
// service account do every verb of role (RBAC objects reach the authorizer
// through an informer, a moment after they are created).
func waitRoleEffective(ctx context.Context, ns, serviceAccount string, role *rbacv1.Role) error {
	user := "system:serviceaccount:" + ns + ":" + serviceAccount
	deadline := time.Now().Add(30 * time.Second)
	for _, rule := range role.Rules {
		for _, res := range rule.Resources {
			for _, verb := range rule.Verbs {
				for {
					r, err := cp.Admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
						User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
						ResourceAttributes: &authzv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: res},
					}}, metav1.CreateOptions{})
					if err == nil && r.Status.Allowed {
						break
					}
					if time.Now().After(deadline) {
						return fmt.Errorf("%s may still not %s %s in %s 30 s after the Role was created: %v %+v", user, verb, res, ns, err, r)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		}
	}
	return nil
}

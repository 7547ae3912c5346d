package k8s

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// manifestPath is the deployment manifest the tests apply, relative to this
// package's directory.
var manifestPath = filepath.Join("..", "..", "docs", "deploy", "kubernetes.yaml")

// manifest is docs/deploy/kubernetes.yaml, decoded.
type manifest struct {
	ServiceAccount *corev1.ServiceAccount
	Role           *rbacv1.Role
	RoleBinding    *rbacv1.RoleBinding
	Deployment     *appsv1.Deployment
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// readManifest decodes every object of the manifest with the API's own
// scheme (an unknown field or kind is an error).
func readManifest() (*manifest, error) {
	raw, err := os.ReadFile(manifestPath)
	if err != nil {
		return nil, err
	}
	m := &manifest{}
	for i, doc := range docSeparator.Split(string(raw), -1) {
		if len(bytes.TrimSpace(stripComments([]byte(doc)))) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s, document %d: %w", manifestPath, i, err)
		}
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			m.ServiceAccount = o
		case *rbacv1.Role:
			m.Role = o
		case *rbacv1.RoleBinding:
			m.RoleBinding = o
		case *appsv1.Deployment:
			m.Deployment = o
		} // the Service and PodDisruptionBudget: nothing runs that would use them
	}
	if m.ServiceAccount == nil || m.Role == nil || m.RoleBinding == nil || m.Deployment == nil {
		return nil, fmt.Errorf("%s: want a ServiceAccount, a Role, a RoleBinding and a Deployment", manifestPath)
	}
	return m, nil
}

var commentLine = regexp.MustCompile(`(?m)^\s*#.*$`)

func stripComments(b []byte) []byte { return commentLine.ReplaceAll(b, nil) }

// applyRBAC creates namespace ns and the manifest's ServiceAccount, Role and
// RoleBinding in it, as `kubectl -n ns apply` would: unchanged but for the
// namespace. editRole, when not nil, changes the Role first.
func applyRBAC(ctx context.Context, admin kubernetes.Interface, m *manifest, ns string, editRole func(*rbacv1.Role)) error {
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	sa := inNamespace(m.ServiceAccount, ns)
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the manifest's ServiceAccount: %w", err)
	}
	role := inNamespace(m.Role, ns)
	if editRole != nil {
		editRole(role)
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the manifest's Role: %w", err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, inNamespace(m.RoleBinding, ns), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the manifest's RoleBinding: %w", err)
	}
	return waitRoleEffective(ctx, ns, sa.Name, role)
}

// inNamespace is a copy of obj with its namespace set.
func inNamespace[T interface {
	runtime.Object
	metav1.Object
}](obj T, ns string) T {
	c := obj.DeepCopyObject().(T)
	c.SetNamespace(ns)
	return c
}

package clusterprov

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// docs/deploy/kubernetes.yaml decodes strictly into the Kubernetes API types
// (an unknown or misspelt field is an error), offline. config's deploy test
// checks its content.
func TestKubernetesManifestDecodesStrictly(t *testing.T) {
	b, err := os.ReadFile("../../docs/deploy/kubernetes.yaml")
	require.NoError(t, err)
	strict := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
	r := utilyaml.NewYAMLReader(bufioReader(b))
	var kinds []string
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		_, gvk, err := strict.Decode(doc, nil, nil)
		require.NoError(t, err, "%s", doc)
		kinds = append(kinds, gvk.Kind)
	}
	assert.Equal(t, []string{"ServiceAccount", "Role", "RoleBinding", "Service", "NetworkPolicy", "Deployment", "PodDisruptionBudget"}, kinds)
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// stripComments drops comment lines, so a document of comments only is empty.
func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

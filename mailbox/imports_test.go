package mailbox_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The mailbox adapts coordinator/ like api/ does, and depends on no other
// transport, no actor package and no protoactor (its own package; its tests
// may start processes).
func TestMailboxImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/redisstream/coordinator/"
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/gofiber/", "github.com/valyala/", "github.com/asynkron/", module + "actors/", module + "api"} {
			if strings.HasPrefix(dep, bad) {
				t.Errorf("mailbox depends on %s; it may import coordinator/, authz/, config/, membersdk/protocol and go-redis only", dep)
			}
		}
	}
}

package authz_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The decision depends on no transport, no actor and no protoactor: the
// standard library and config only.
func TestAuthzImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if !strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") {
			continue // standard library
		}
		// config brings config/source (how its files and variables are read).
		if strings.HasPrefix(dep, "github.com/redisstream/coordinator/") && !strings.HasPrefix(dep+"/", "github.com/redisstream/coordinator/config/") && dep != "github.com/redisstream/coordinator/authz" {
			t.Errorf("authz depends on %s; it may import the standard library and config only", dep)
		}
		for _, bad := range []string{"github.com/gofiber/", "github.com/valyala/", "github.com/asynkron/"} {
			if strings.HasPrefix(dep, bad) {
				t.Errorf("authz depends on %s (a transport or the actor library)", dep)
			}
		}
	}
}

package coordinator_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/redisstream/coordinator"

// wireTypes is the protocol's wire types (in the member SDK's module): the
// only package besides the standard library the service boundary imports.
const wireTypes = module + "/membersdk/protocol"

// listed is one package of `go list -test -json`: a package, its test
// variant or its test binary.
type listed struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// goList runs `go list -test -json` from the module root on patterns.
func goList(t *testing.T, patterns ...string) []listed {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list", "-test", "-json=ImportPath,Standard,Imports,Deps"}, patterns...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list %v listed nothing", patterns)
	}
	return pkgs
}

// transport reports why dep must stay out of a package's dependencies:
// a transport (fiber, the HTTP adapter api/ or anything under it) — or ""
// when dep is fine.
func transport(dep string) string {
	switch {
	case strings.HasPrefix(dep, "github.com/gofiber/"), strings.HasPrefix(dep, "github.com/valyala/fasthttp"):
		return "the HTTP framework"
	case dep == module+"/api" || strings.HasPrefix(dep, module+"/api/"):
		return "the HTTP adapter"
	}
	return ""
}

// forbidden lists the dependencies of p that bad refuses (the first three)
// and the first one's reason; the test binaries' generated mains are skipped (their test
// variants are listed on their own).
func forbidden(p listed, bad func(dep string) string) (deps []string, why string) {
	if strings.HasSuffix(p.ImportPath, ".test") {
		return nil, ""
	}
	for _, d := range p.Deps {
		if w := bad(d); w != "" {
			if why == "" {
				why = w
			}
			deps = append(deps, d)
		}
	}
	if len(deps) > 3 {
		deps = append(deps[:3], "…")
	}
	return deps, why
}

// The actor shell and the service boundary depend on no transport: no
// package under actors/ or coordinator/ (its tests included) depends on
// fiber or on api/. Transports adapt
// coordinator.Service; the actors implement it.
func TestNoTransportInActorsOrService(t *testing.T) {
	for _, p := range goList(t, "./actors/...", "./coordinator/...") {
		if deps, why := forbidden(p, transport); len(deps) > 0 {
			t.Errorf("%s depends on %s (%s); use coordinator/ and membersdk/protocol, not a transport", p.ImportPath, strings.Join(deps, ", "), why)
		}
	}
}

// actorOrTransport refuses, besides transports, protoactor and every
// package under actors/.
func actorOrTransport(dep string) string {
	if strings.HasPrefix(dep, "github.com/asynkron/protoactor-go") || strings.HasPrefix(dep, module+"/actors/") {
		return "an actor package"
	}
	return transport(dep)
}

// The service boundary imports the standard library and the wire types
// only, and depends on no actor, no protoactor and no transport.
func TestServiceImportsOnlyStdlibAndWireTypes(t *testing.T) {
	for _, p := range goList(t, "./coordinator") {
		if p.ImportPath == module+"/coordinator" {
			for _, imp := range p.Imports {
				if imp != wireTypes && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
					t.Errorf("%s imports %s; it may import the standard library and %s only", p.ImportPath, imp, wireTypes)
				}
			}
		}
		if deps, why := forbidden(p, actorOrTransport); len(deps) > 0 {
			t.Errorf("%s depends on %s (%s)", p.ImportPath, strings.Join(deps, ", "), why)
		}
	}
}

// The resharding rules (reshard) import the standard library only; their
// driver (reshard/driver) runs beside them and depends on no actor package,
// no protoactor and no transport, its tests included: the actor shell
// depends on the driver, never the other way round.
func TestReshardImportsNoActorOrTransport(t *testing.T) {
	for _, p := range goList(t, "./reshard/...") {
		if p.ImportPath == module+"/reshard" {
			for _, imp := range p.Imports {
				if strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
					t.Errorf("%s imports %s; the rules may import the standard library only", p.ImportPath, imp)
				}
			}
		}
		if deps, why := forbidden(p, actorOrTransport); len(deps) > 0 {
			t.Errorf("%s depends on %s (%s); reach the node through driver.Node", p.ImportPath, strings.Join(deps, ", "), why)
		}
	}
}

// The actor packages import downwards only: the router knows no node,
// service or host; the service knows no host and reaches the actor system
// only through the router (no protoactor import of its own); the node knows
// no router, service or host.
func TestActorPackagesImportDownwards(t *testing.T) {
	refused := map[string][]string{
		module + "/actors/router":  {module + "/actors/node", module + "/actors/service", module + "/actors/host"},
		module + "/actors/service": {module + "/actors/host", "github.com/asynkron/protoactor-go"},
		module + "/actors/node":    {module + "/actors/router", module + "/actors/service", module + "/actors/host"},
	}
	seen := 0
	for _, p := range goList(t, "./actors/router", "./actors/service", "./actors/node") {
		bad, ok := refused[p.ImportPath]
		if !ok {
			continue
		}
		seen++
		for _, imp := range p.Imports {
			for _, b := range bad {
				if imp == b || strings.HasPrefix(imp, b+"/") {
					t.Errorf("%s imports %s; see its doc.go for what it may import", p.ImportPath, imp)
				}
			}
		}
	}
	if seen != len(refused) {
		t.Fatalf("listed %d of the %d actor packages checked", seen, len(refused))
	}
}

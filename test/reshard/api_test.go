package reshard

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// api speaks to whichever of the coordinators answers (a killed one is
// skipped), starting with the one that answered last.
type api struct {
	mu      sync.Mutex
	clients []*harness.Client
	prefer  int
}

func newAPI(urls []string) *api {
	a := &api{}
	for _, u := range urls {
		c := harness.NewClient(u)
		c.HTTP = &http.Client{Timeout: 15 * time.Second}
		a.clients = append(a.clients, c)
	}
	return a
}

var errNoCoordinator = errors.New("no coordinator answered")

// do sends the request to the first coordinator that answers at all (a
// transport error or a 502 moves on to the next).
func (a *api) do(method, path string, body, out any) (int, []byte, error) {
	a.mu.Lock()
	start := a.prefer
	a.mu.Unlock()
	var last error = errNoCoordinator
	for k := range a.clients {
		i := (start + k) % len(a.clients)
		status, raw, err := a.clients[i].Do(method, path, body, out)
		if err != nil && status == 0 {
			last = err
			continue
		}
		a.mu.Lock()
		a.prefer = i
		a.mu.Unlock()
		return status, raw, err
	}
	return 0, nil, last
}

func (a *api) must(t testing.TB, method, path string, body, out any, want int) []byte {
	t.Helper()
	status, raw, err := a.do(method, path, body, out)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, raw)
	}
	return raw
}

const (
	streamPath     = "/coord/v1/streams/" + prefix
	groupPath      = streamPath + "/groups/" + group
	monitoringPath = "/coord/v1/monitoring/streams/" + prefix + "/groups/" + group
)

func (a *api) createStream(t testing.TB, n int) {
	t.Helper()
	a.must(t, "POST", streamPath, protocol.CreateStreamRequest{InitialShardCount: &n, RequestedBy: "test"}, nil, 201)
}

// scaleRaw posts a scale with body as given (bytes) or encoded.
func (a *api) scaleRaw(body any) (int, []byte, protocol.ScaleResponse, error) {
	var out protocol.ScaleResponse
	status, raw, err := a.do("POST", streamPath+"/scale", body, &out)
	return status, raw, out, err
}

// scale asks for n shards and requires 202; it checks the answer's shape
// and returns this group's migration.
func (a *api) scale(t testing.TB, n int) protocol.Migration {
	t.Helper()
	status, raw, out, err := a.scaleRaw(protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test", Reason: fmt.Sprintf("to %d", n)})
	if err != nil || status != 202 {
		t.Fatalf("scale to %d: status %d, err %v: %s", n, status, err, raw)
	}
	return scaleMigration(t, out, n)
}

// scaleMigration checks a 202 answer and picks this group's migration.
func scaleMigration(t testing.TB, out protocol.ScaleResponse, n int) protocol.Migration {
	t.Helper()
	if out.StreamPrefix != prefix || out.TargetShardCount != n {
		t.Fatalf("scale to %d answered %+v", n, out)
	}
	if !contains(out.AffectedConsumerGroups, group) {
		t.Fatalf("scale to %d: affectedConsumerGroups %v lacks %s", n, out.AffectedConsumerGroups, group)
	}
	for _, m := range out.Migrations {
		if m.ConsumerGroup == group || m.ConsumerGroup == "" {
			if m.ReshardingID == "" || m.ToShardCount != n {
				t.Fatalf("scale to %d: migration %+v", n, m)
			}
			return m
		}
	}
	t.Fatalf("scale to %d: no migration for group %s in %+v", n, group, out.Migrations)
	return protocol.Migration{}
}

func (a *api) migrations() (protocol.MigrationsResponse, error) {
	var out protocol.MigrationsResponse
	status, raw, err := a.do("GET", monitoringPath+"/migrations", nil, &out)
	if err == nil && status != 200 {
		err = fmt.Errorf("GET migrations: %d %s", status, raw)
	}
	return out, err
}

func (a *api) mustMigrations(t testing.TB) protocol.MigrationsResponse {
	t.Helper()
	out, err := a.migrations()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (a *api) migration(id string) (protocol.Migration, error) {
	var out protocol.Migration
	status, raw, err := a.do("GET", groupPath+"/migrations/"+id, nil, &out)
	if err == nil && status != 200 {
		err = fmt.Errorf("GET migration %s: %d %s", id, status, raw)
	}
	return out, err
}

func (a *api) rollback(id string) (int, []byte, protocol.Migration, error) {
	var out protocol.Migration
	status, raw, err := a.do("POST", groupPath+"/migrations/"+id+"/rollback", protocol.RollbackRequest{RequestedBy: "test", Reason: "roll back"}, &out)
	return status, raw, out, err
}

func (a *api) routing() (protocol.ProducerRouting, error) {
	var out protocol.ProducerRouting
	status, raw, err := a.do("GET", groupPath+"/producer-routing", nil, &out)
	if err == nil && status != 200 {
		err = fmt.Errorf("GET routing: %d %s", status, raw)
	}
	return out, err
}

func (a *api) mustRouting(t testing.TB) protocol.ProducerRouting {
	t.Helper()
	r, err := a.routing()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (a *api) assignments() (protocol.AssignmentsResponse, error) {
	var out protocol.AssignmentsResponse
	status, raw, err := a.do("GET", monitoringPath+"/assignments", nil, &out)
	if err == nil && status != 200 {
		err = fmt.Errorf("GET assignments: %d %s", status, raw)
	}
	return out, err
}

func (a *api) groupView() (protocol.GroupResponse, error) {
	var out protocol.GroupResponse
	status, raw, err := a.do("GET", monitoringPath, nil, &out)
	if err == nil && status != 200 {
		err = fmt.Errorf("GET group: %d %s", status, raw)
	}
	return out, err
}

// terminal reports whether state is a final migration state.
func terminal(state string) bool {
	return state == protocol.MigrationDeprecated || state == protocol.MigrationRolledBack
}

// waitState polls migration id until its state is one of states, and
// fails the test if it reaches another terminal state first or timeout
// passes.
func (e *env) waitState(id string, timeout time.Duration, states ...string) protocol.Migration {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	var last protocol.Migration
	var lastErr error
	for time.Now().Before(deadline) {
		m, err := e.api.migration(id)
		if err == nil {
			last = m
			if contains(states, m.State) {
				return m
			}
			if terminal(m.State) {
				e.t.Fatalf("migration %s ended %s, waiting for %v: %s", id, m.State, states, describe(m))
			}
		}
		lastErr = err
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("migration %s not in %v after %s (last: %s, last error %v)", id, states, timeout, describe(last), lastErr)
	return last
}

// describe is a migration in one line for failure messages.
func describe(m protocol.Migration) string {
	var steps []string
	for _, h := range m.History {
		steps = append(steps, h.State+"@"+h.Node)
	}
	var shards []string
	for _, s := range m.Shards {
		x := fmt.Sprintf("%s%d:%s", s.Change, s.ShardIndex, s.State)
		for _, b := range s.BlockedBy {
			x += fmt.Sprintf("(%s pending %d lag %d)", b.ConsumerGroup, b.Pending, b.Lag)
		}
		shards = append(shards, x)
	}
	raw, _ := json.Marshal(struct {
		ID, State, Waiting string
		From, To           int
		History, Shards    []string
	}{m.ReshardingID, m.State, m.Waiting, m.FromShardCount, m.ToShardCount, steps, shards})
	return string(raw)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// errorBody decodes and checks a SPEC error body.
func errorBody(t testing.TB, raw []byte) protocol.ErrorBody {
	t.Helper()
	var b protocol.ErrorBody
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("error body %q: %v", raw, err)
	}
	if b.Status == "" || b.ErrorCode == "" || strings.TrimSpace(b.Message) == "" {
		t.Fatalf("error body lacks status, errorCode or message: %s", raw)
	}
	return b
}

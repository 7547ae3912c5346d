package protocol

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docs/PROTOCOL.md has a row for every heartbeat request and response
// field, and names every field of the objects inside them.
func TestProtocolDocListsEveryHeartbeatField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	require.NoError(t, err)
	text := string(doc)
	section := func(title string) string {
		i := strings.Index(text, "### "+title+"\n")
		require.GreaterOrEqual(t, i, 0, "docs/PROTOCOL.md has no section %q", title)
		rest := text[i+len(title)+5:]
		if j := strings.Index(rest, "\n#"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	for title, typ := range map[string]reflect.Type{
		"Heartbeat request":  reflect.TypeOf(HeartbeatRequest{}),
		"Heartbeat response": reflect.TypeOf(HeartbeatResponse{}),
	} {
		sec := section(title)
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue // not on the wire (e.g. the caller's principal, set by the transport)
			}
			require.Contains(t, sec, "| `"+name+"` |", "docs/PROTOCOL.md %q: add a row for %s", title, name)
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for _, inner := range jsonFieldNames(ft) {
					inner = strings.TrimSuffix(strings.Trim(inner, `"`), `": …`)
					require.Contains(t, sec, inner, "docs/PROTOCOL.md %q: describe %s.%s", title, name, inner)
				}
			}
		}
	}
}

package redisstore

import (
	"fmt"
	"strings"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// DefaultKeyPrefix is the key prefix used when Options.KeyPrefix is empty.
const DefaultKeyPrefix = "rsc"

// format is the layout version written into every record.
const format = "1"

// keys builds every key the store uses.
type keys struct{ prefix string }

func newKeys(prefix string) (keys, error) {
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	if strings.ContainsAny(prefix, "{}") {
		return keys{}, fmt.Errorf("redisstore: key prefix %q must not contain '{' or '}' (they would break the Cluster hash tags)", prefix)
	}
	return keys{prefix: prefix}, nil
}

func (k keys) stream(streamPrefix string) string {
	return k.prefix + ":{s:" + escape(streamPrefix) + "}:stream"
}

func (k keys) streams() string { return k.prefix + ":streams" }
func (k keys) groups() string  { return k.prefix + ":groups" }

// live indexes groups with members in the target or holding shards.
func (k keys) live() string { return k.prefix + ":live" }

// instance and node records share one hash tag so that RenewNode is one
// script on Redis Cluster too.
func (k keys) instance() string { return k.prefix + ":{n}:instance" }

// registry is the node registry: a hash of every live node incarnation's
// registration (persistence.NodeRegistration), same hash tag as the nodes.
func (k keys) registry() string { return k.prefix + ":{n}:registry" }

func (k keys) node(owner string) string { return k.prefix + ":{n}:node:" + escape(owner) }

// groupID is the escaped "<prefix>|<group>" that names a group in keys and in
// the groups index.
func groupID(key persistence.GroupKey) string {
	return escape(key.StreamPrefix) + "|" + escape(key.ConsumerGroup)
}

func (k keys) groupMeta(key persistence.GroupKey) string {
	return k.prefix + ":{g:" + groupID(key) + "}:meta"
}

func (k keys) groupMembers(key persistence.GroupKey) string {
	return k.prefix + ":{g:" + groupID(key) + "}:members"
}

// parseGroupID inverts groupID.
func parseGroupID(id string) (persistence.GroupKey, error) {
	p, g, ok := strings.Cut(id, "|")
	if !ok {
		return persistence.GroupKey{}, fmt.Errorf("malformed group index entry %q", id)
	}
	prefix, err := unescape(p)
	if err != nil {
		return persistence.GroupKey{}, err
	}
	group, err := unescape(g)
	if err != nil {
		return persistence.GroupKey{}, err
	}
	return persistence.GroupKey{StreamPrefix: prefix, ConsumerGroup: group}, nil
}

// escape percent-encodes every byte outside [A-Za-z0-9._:-]
// (protocol.EscapeKeyName, the rule members use for mailbox keys too). Valid
// API names pass through unchanged; the output never contains '{', '}', '|'
// or '%' other than as an escape.
func escape(s string) string { return protocol.EscapeKeyName(s) }

func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("malformed escape in %q", s)
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", fmt.Errorf("malformed escape in %q", s)
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

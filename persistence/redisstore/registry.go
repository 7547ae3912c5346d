package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// registration is the JSON a node stores in the node registry (the times
// are kept by the script, outside the JSON, from the server's clock).
type registration struct {
	NodeID      string   `json:"nodeId"`
	ClusterName string   `json:"cluster,omitempty"`
	Provider    string   `json:"provider,omitempty"`
	Address     string   `json:"address,omitempty"`
	Refusing    bool     `json:"refusing,omitempty"`
	MemberID    string   `json:"memberId,omitempty"`
	Blocked     []string `json:"blocked,omitempty"`
}

func encodeRegistration(owner string, r persistence.NodeRegistration) string {
	if r.NodeID == "" {
		r.NodeID = persistence.OwnerNode(owner)
	}
	b, _ := json.Marshal(registration{NodeID: r.NodeID, ClusterName: r.ClusterName, Provider: r.Provider, Address: r.Address, Refusing: r.Refusing,
		MemberID: r.MemberID, Blocked: r.Blocked})
	return string(b)
}

// decodeEntry parses one registry entry "expiresMs|registeredMs|renewedMs|json".
// A malformed entry still yields a peer (owner and node id from the field):
// a node that cannot be described is still a node that shares the store.
func decodeEntry(owner, entry string) persistence.NodeRegistration {
	out := persistence.NodeRegistration{Owner: owner, NodeID: persistence.OwnerNode(owner)}
	parts := strings.SplitN(entry, "|", 4)
	if len(parts) != 4 {
		return out
	}
	if ms, err := strconv.ParseInt(parts[1], 10, 64); err == nil {
		out.RegisteredAt = time.UnixMilli(ms).UTC()
	}
	if ms, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
		out.RenewedAt = time.UnixMilli(ms).UTC()
	}
	var r registration
	if json.Unmarshal([]byte(parts[3]), &r) == nil {
		if r.NodeID != "" {
			out.NodeID = r.NodeID
		}
		out.ClusterName, out.Provider, out.Address, out.Refusing = r.ClusterName, r.Provider, r.Address, r.Refusing
		out.MemberID, out.Blocked = r.MemberID, r.Blocked
	}
	return out
}

// decodeRegistry fills st.Self and st.Peers from the renew script's reply
// tail: registeredMs, nowMs, then owner/entry pairs.
func decodeRegistry(r persistence.NodeRenewal, tail []any, st *persistence.NodeStatus) error {
	if len(tail) < 2 {
		return fmt.Errorf("short reply %v", tail)
	}
	reg, err := asInt(tail[0])
	if err != nil {
		return err
	}
	now, err := asInt(tail[1])
	if err != nil {
		return err
	}
	st.Self = decodeEntry(r.Owner, "0|0|0|"+encodeRegistration(r.Owner, r.Registration))
	st.Self.RegisteredAt, st.Self.RenewedAt = time.UnixMilli(reg).UTC(), time.UnixMilli(now).UTC()
	st.Peers = make([]persistence.NodeRegistration, 0, (len(tail)-2)/2)
	for i := 2; i+1 < len(tail); i += 2 {
		st.Peers = append(st.Peers, decodeEntry(asString(tail[i]), asString(tail[i+1])))
	}
	sort.Slice(st.Peers, func(i, j int) bool { return st.Peers[i].Owner < st.Peers[j].Owner })
	return nil
}

// Deregister implements persistence.Nodes: one HDEL.
func (s *Store) Deregister(ctx context.Context, owner string) error {
	op := "deregister node " + owner
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	return mapErr(op, s.c.HDel(ctx, s.k.registry(), owner).Err())
}

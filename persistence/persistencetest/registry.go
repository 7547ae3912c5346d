package persistencetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

func registered(owner, cluster, provider, addr string, ttl time.Duration) persistence.NodeRenewal {
	r := renewal(owner, ttl)
	r.Registration = persistence.NodeRegistration{NodeID: persistence.OwnerNode(owner), ClusterName: cluster, Provider: provider, Address: addr}
	return r
}

// testRegistry: every renewal registers the node and returns the other live
// registrations; RegisteredAt stays put while the entry lives; Deregister
// removes an entry at once.
func testRegistry(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	a, err := s.RenewNode(ctx, registered("n1/a", "rsc", "single", "", time.Minute))
	require.NoError(t, err)
	require.Empty(t, a.Peers)
	require.Equal(t, "n1/a", a.Self.Owner)
	require.Equal(t, "n1", a.Self.NodeID)
	require.Equal(t, "single", a.Self.Provider)
	require.False(t, a.Self.RegisteredAt.IsZero())
	require.Equal(t, a.Self.RegisteredAt, a.Self.RenewedAt, "first registration")

	rb := registered("n2/b", "blue", "automanaged", "10.0.0.2:4020", time.Minute)
	rb.Registration.Refusing = true
	rb.Registration.MemberID, rb.Registration.Blocked = "member-b", []string{"member-x", "member-y"}
	b, err := s.RenewNode(ctx, rb)
	require.NoError(t, err)
	require.True(t, b.Self.Refusing)
	require.Len(t, b.Peers, 1)
	p := b.Peers[0]
	require.Equal(t, "n1/a", p.Owner)
	require.Equal(t, "n1", p.NodeID)
	require.Equal(t, "rsc", p.ClusterName)
	require.Equal(t, "single", p.Provider)
	require.Equal(t, "", p.Address)
	require.Equal(t, a.Self.RegisteredAt, p.RegisteredAt)
	require.False(t, b.Self.RegisteredAt.Before(a.Self.RegisteredAt))
	require.True(t, a.Self.Before(b.Self), "earlier registration (or, in the same millisecond, smaller owner) first")
	require.False(t, b.Self.Before(a.Self))

	// Renewing keeps RegisteredAt and moves RenewedAt; the peer is described in full.
	a2, err := s.RenewNode(ctx, registered("n1/a", "rsc", "single", "", time.Minute))
	require.NoError(t, err)
	require.False(t, a2.Self.Refusing)
	require.True(t, a2.Peers[0].Refusing)
	require.Equal(t, "blue", a2.Peers[0].ClusterName)
	require.Equal(t, "automanaged", a2.Peers[0].Provider)
	require.Equal(t, "10.0.0.2:4020", a2.Peers[0].Address)
	require.Equal(t, "member-b", a2.Peers[0].MemberID)
	require.Equal(t, []string{"member-x", "member-y"}, a2.Peers[0].Blocked)
	require.Equal(t, a.Self.RegisteredAt, a2.Self.RegisteredAt)
	require.False(t, a2.Self.RenewedAt.Before(a.Self.RenewedAt))
	require.Equal(t, []persistence.NodeRegistration{b.Self}, a2.Peers)

	// A third node sees both, sorted by owner.
	c, err := s.RenewNode(ctx, registered("n0/c", "rsc", "single", "", time.Minute))
	require.NoError(t, err)
	require.Len(t, c.Peers, 2)
	require.Equal(t, "n1/a", c.Peers[0].Owner)
	require.Equal(t, "n2/b", c.Peers[1].Owner)

	// A node that renews without registering anything still appears (node id from its owner).
	_, err = s.RenewNode(ctx, renewal("n3/d", time.Minute))
	require.NoError(t, err)
	a3, err := s.RenewNode(ctx, registered("n1/a", "rsc", "single", "", time.Minute))
	require.NoError(t, err)
	require.Len(t, a3.Peers, 3)
	require.Equal(t, "n3", a3.Peers[2].NodeID)

	require.NoError(t, s.Deregister(ctx, "n2/b"))
	require.NoError(t, s.Deregister(ctx, "n3/d"))
	require.NoError(t, s.Deregister(ctx, "n9/never"), "a missing registration is no error")
	a4, err := s.RenewNode(ctx, registered("n1/a", "rsc", "single", "", time.Minute))
	require.NoError(t, err)
	require.Equal(t, []string{"n0/c"}, owners(a4.Peers))
	ok, err := s.NodeAlive(ctx, "n2/b")
	require.NoError(t, err)
	require.True(t, ok, "deregistering leaves the node record to expire (it fences the owner's activations)")
}

// testRegistryExpires: a registration lives as long as its TTL; one that
// expired and renews again counts as a new registration (later).
func testRegistryExpires(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	first, err := s.RenewNode(ctx, registered("n1/a", "rsc", "single", "", 50*time.Millisecond))
	require.NoError(t, err)
	b, err := s.RenewNode(ctx, registered("n2/b", "rsc", "single", "", time.Minute))
	require.NoError(t, err)
	require.Equal(t, []string{"n1/a"}, owners(b.Peers))
	require.Eventually(t, func() bool {
		st, err := s.RenewNode(ctx, registered("n2/b", "rsc", "single", "", time.Minute))
		return err == nil && len(st.Peers) == 0
	}, 5*time.Second, 20*time.Millisecond)
	again, err := s.RenewNode(ctx, registered("n1/a", "rsc", "single", "", time.Minute))
	require.NoError(t, err)
	require.True(t, again.Self.RegisteredAt.After(first.Self.RegisteredAt), "an expired entry registers anew")
	require.True(t, b.Self.Before(again.Self), "n2 is now the earlier node")
	require.Equal(t, []string{"n2/b"}, owners(again.Peers))
}

func owners(p []persistence.NodeRegistration) []string {
	out := make([]string, len(p))
	for i, r := range p {
		out[i] = r.Owner
	}
	return out
}

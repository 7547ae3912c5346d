package failover

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// A Redis Cluster with a replica per primary: a CLUSTER FAILOVER on a
// replica, then a primary killed with -9, with the coordinator, two SDK
// consumers and two producers on cluster clients. The same checks as
// TestSentinelFailoverHeals: the cluster client follows MOVED to the new
// primaries.
func TestClusterFailoverHeals(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t, 3)
	w := startWorld(t, membersdk.RedisOptions{Addrs: cl.Addrs(), Cluster: true}, cl.Nodes[0].Addr(),
		map[string]string{"RSC_REDIS_ADDRS": strings.Join(cl.Addrs(), ",")})
	promote := func(name string, f func(int) time.Duration, i int) failover {
		return failover{name, func() (string, string, time.Duration) {
			from, to := cl.Nodes[i].Addr(), cl.Replicas[i].Addr()
			return from, to, f(i)
		}}
	}
	w.exercise([]failover{
		promote(fmt.Sprintf("CLUSTER FAILOVER (shard %d)", 0), cl.Failover, 0),
		promote(fmt.Sprintf("primary of shard %d killed -9", 1), cl.KillMaster, 1),
	})
}

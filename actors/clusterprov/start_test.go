package clusterprov

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/config"
)

// A manage port that is taken fails StartMember with an error naming it,
// where upstream only logs from a goroutine and runs on without an endpoint.
func TestAutomanagedPortTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	mp := taken.Addr().(*net.TCPAddr).Port
	o := Options{Provider: config.ProviderAutomanaged, Name: "rsc-test", Host: "127.0.0.1", Port: freePort(t), ManagePort: mp,
		Seeds: []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(mp))}, Logger: quiet}
	c := newNode(t, o)
	err = c.Config.ClusterProvider.StartMember(c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cluster.manage-port")
	assert.Contains(t, err.Error(), "address already in use")
}

// StartMember turns protoactor's start panics into an error.
func TestStartMemberReturnsThePanic(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	o := Options{Provider: config.ProviderTest, Name: "rsc-test", Host: "127.0.0.1", Port: taken.Addr().(*net.TCPAddr).Port}
	o.TestAgent = testAgent()
	err = StartMember(newNode(t, o))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "clusterprov: cluster start failed")
	assert.Contains(t, err.Error(), "address already in use")
}

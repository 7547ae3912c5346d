package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard/driver"
)

// driverNode is this node as its resharding driver sees it (driver.Node).
type driverNode struct{ h *Host }

var _ driver.Node = driverNode{}

func (n driverNode) Store() persistence.Store             { return n.h.opts.Store }
func (n driverNode) Provisioner() persistence.Provisioner { return n.h.opts.Provisioner }
func (n driverNode) Refusal() error                       { return n.h.router.Refusal() }
func (n driverNode) NodeID() string                       { return n.h.opts.NodeID }
func (n driverNode) Owner() string                        { return n.h.node.Owner() }
func (n driverNode) Logger() *slog.Logger                 { return n.h.opts.Logger }
func (n driverNode) Metrics() driver.Metrics              { return n.h.opts.ReshardMetrics }
func (n driverNode) Now() time.Time                       { return n.h.opts.Now() }

// ResizeGroups tells every stored group of p its shard set (activating it
// where the cluster places it); n is how many did not confirm.
func (n driverNode) ResizeGroups(ctx context.Context, p string, count int, mv int64, migration string) (int, error) {
	return n.h.resizeGroups(ctx, p, count, mv, migration)
}

func (h *Host) resizeGroups(ctx context.Context, p string, count int, mv int64, migration string) (n int, err error) {
	keys, err := h.opts.Store.ListGroups(ctx, p)
	if err != nil {
		return 0, err
	}
	var mu sync.Mutex
	var first error
	h.eachGroup(keys, func(k persistence.GroupKey) {
		err := h.router.Resize(ctx, k, &groupmsg.ResizeRequest{ShardCount: count, MetadataVersion: mv, RequestID: migration})
		if err != nil && errors.Is(router.GroupErr(k, err), coordinator.ErrGroupNotFound) {
			err = nil // deleted meanwhile: nothing to tell
		}
		if err != nil {
			mu.Lock()
			n++
			if first == nil {
				first = fmt.Errorf("group %s: %w", k, err)
			}
			mu.Unlock()
		}
	})
	return n, first
}

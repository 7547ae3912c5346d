package shard

import "sync"

// Unconfirmed remembers entries whose handler succeeded but whose XACK
// failed (typically Redis going away mid-command): Redis may or may not have
// applied it. When the member owns the shard again, the worker settles each
// one instead of running its handler a second time.
type Unconfirmed struct {
	mu sync.Mutex
	m  map[int]map[string]int64 // shard → entry id → epoch it was read at
}

// Add remembers id of shard, read at epoch.
func (u *Unconfirmed) Add(shard int, id string, epoch int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[int]map[string]int64{}
	}
	if u.m[shard] == nil {
		u.m[shard] = map[string]int64{}
	}
	u.m[shard][id] = epoch
}

// Take returns and forgets the entries of shard (id → epoch).
func (u *Unconfirmed) Take(shard int) map[string]int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	ids := u.m[shard]
	delete(u.m, shard)
	return ids
}

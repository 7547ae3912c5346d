package membersdk

import (
	"strconv"

	"github.com/redis/go-redis/v9"
)

// checkPoolSize warns once when the Redis pool is too small for one blocking
// XREADGROUP per shard plus acknowledgements (plus the mailbox's BLPOP).
func (c *Consumer) checkPoolSize(workers int) {
	rc, ok := c.cfg.Redis.(*redis.Client)
	if !ok || c.ls.warnedPool {
		return
	}
	spare := 2
	if c.cfg.Transport == TransportRedis {
		spare++ // the reply reader blocks in BLPOP on a connection of its own
	}
	if pool := rc.Options().PoolSize; pool > 0 && workers+spare > pool {
		c.ls.warnedPool = true
		c.log.Warn("redis PoolSize is smaller than the shards this member reads plus "+strconv.Itoa(spare)+"; each shard holds a connection while it blocks in XREADGROUP",
			"poolSize", pool, "shards", workers)
	}
}

package config

import "slices"

// checkSentinel checks the redis.sentinel keys: the master name and the
// Sentinel addresses go together, and they replace redis.addrs (a client
// that follows failovers and a fixed address cannot both be the store).
func (r Redis) checkSentinel(bad badFunc, failed map[string]bool) {
	s := r.Sentinel
	if !s.Enabled() {
		if s.Username != "" || s.Password != "" {
			bad("redis.sentinel.username", s.Username, "or redis.sentinel.password is set but redis.sentinel.master-name is not: name the primary and list redis.sentinel.addrs, or remove them")
		}
		return
	}
	if s.MasterName == "" && !failed["redis.sentinel.master-name"] {
		bad("redis.sentinel.master-name", "", "is required with redis.sentinel.addrs: the name of the primary the Sentinels monitor (sentinel monitor NAME ...)")
	}
	if len(s.Addrs) == 0 && !failed["redis.sentinel.addrs"] {
		bad("redis.sentinel.addrs", "", "is required with redis.sentinel.master-name: the Sentinels' host:port, comma separated")
	}
	for i, a := range s.Addrs {
		if key := "redis.sentinel.addrs"; !failed[key] && slices.Contains(s.Addrs[:i], a) {
			bad(key, a, "lists %s twice", a)
		}
	}
	if len(r.Addrs) > 0 && !slices.Equal(r.Addrs, Default().Redis.Addrs) {
		bad("redis.addrs", r.Addrs, "is set together with redis.sentinel: with Sentinel the coordinator asks the Sentinels where the primary is; remove redis.addrs")
	}
}

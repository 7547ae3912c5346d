package shardset

// Holders is a group's holder index: Holders[s] is the member that may still be reading
// shard s ("" = free). It grows on demand; a shard past its end is free.
type Holders []string

// Grow makes room for n shards, keeping the holders already set.
func (h *Holders) Grow(n int) {
	g := make([]string, n)
	copy(g, *h)
	*h = g
}

// Set records id as the holder of shard s (a negative shard is ignored).
func (h *Holders) Set(s int, id string) {
	if s < 0 {
		return
	}
	if s >= len(*h) {
		h.Grow(max(s+1, 2*len(*h)))
	}
	(*h)[s] = id
}

// Clear frees shard s if id holds it.
func (h Holders) Clear(s int, id string) {
	if s >= 0 && s < len(h) && h[s] == id {
		h[s] = ""
	}
}

// Of returns the member that may still read shard s ("" = free).
func (h Holders) Of(s int) string {
	if s < 0 || s >= len(h) {
		return ""
	}
	return h[s]
}

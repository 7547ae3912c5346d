package config

// Assignment tunes how the coordinator moves shards between a group's members
// (docs/OPERATIONS.md, configuration reference; docs/BENCHMARKS.md, "Move cap").
type Assignment struct {
	MaxMovesPerRound int     `koanf:"max-moves-per-round" validate:"min=0,max=1000000" hint:"0 = no cap" help:"most shards of one group on the move at once (revoked, or released and not yet started by their new owner); the rest move on later heartbeats, so a flood of joins or leaves never stops most of a group at once. Shards of expired or departed members are never held back. 0 = no cap"`
	MaxMovesFraction float64 `koanf:"max-moves-fraction" validate:"finite,min=0,max=1" hint:"0 = no cap" help:"the same cap as a fraction of the group's shard count (0.1 = 10%, rounded up, at least 1 shard); with both set the smaller applies. 0 = no cap"`
}

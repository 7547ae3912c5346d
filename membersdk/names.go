package membersdk

// ConsumerNamesDeleted counts consumer names of other members this consumer
// deleted from the consumer groups of shards it owned: names left by members
// that no longer hold the shard, with nothing pending under them (internal/shardworker,
// docs/MEMBER-SDK.md "Consumer names").
func (c *Consumer) ConsumerNamesDeleted() int64 { return c.namesGone.Load() }

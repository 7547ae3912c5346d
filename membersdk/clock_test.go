package membersdk

import "time"

// setClock replaces the consumer's clock (time.Now) for a test: the
// timestamps, lease and self-fence deadlines and the ownership checks all
// read it. Call it right after NewConsumer, before Run. It lives in a test
// file so that the public API has no test seam (ConsumerConfig.Now was one).
func (c *Consumer) setClock(now func() time.Time) {
	c.clock = now
	c.gate.Now = now
}

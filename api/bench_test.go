package api

import (
	"encoding/json"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// BenchmarkHeartbeatRoute measures one heartbeat through the whole HTTP front
// (routing, auth check, path and body validation, fake Service, metrics,
// JSON answer) against two bare fiber handlers in the same run:
//
//	baseline        route + canned JSON answer, no decoding
//	baseline-decode route + json.Unmarshal of the body + JSON answer
//
// Requests go through app.Handler() with a reused fasthttp.RequestCtx, so the
// figures exclude the network. Compare ns/op of rsc-* against baseline-*.
func BenchmarkHeartbeatRoute(b *testing.B) {
	body := []byte(hb(`"ownedShards":[]`, `"ownedShards":[{"shardIndex":0},{"shardIndex":1},{"shardIndex":2},{"shardIndex":3}]`))
	canned := newFake()
	cannedResp, _ := canned.Heartbeat(b.Context(), "orders", "workers", "10.0.3.7-m0", protocol.HeartbeatRequest{RequestID: "r-1", MemberID: "10.0.3.7-m0"})
	const route = "/coord/v1/streams/:streamPrefix/groups/:consumerGroup/members/:memberId/heartbeat"

	run := func(b *testing.B, h fasthttp.RequestHandler, hdr ...string) {
		d := &direct{h: h}
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if st, resp := d.serve("POST", hbPath, body, hdr...); st != 200 {
				b.Fatalf("%d %s", st, resp)
			}
		}
	}
	b.Run("baseline", func(b *testing.B) {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		app.Post(route, func(c *fiber.Ctx) error { return c.JSON(cannedResp) })
		run(b, app.Handler())
	})
	b.Run("baseline-decode", func(b *testing.B) {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		app.Post(route, func(c *fiber.Ctx) error {
			var req protocol.HeartbeatRequest
			if err := json.Unmarshal(c.Body(), &req); err != nil {
				return err
			}
			return c.JSON(cannedResp)
		})
		run(b, app.Handler())
	})
	b.Run("rsc-auth-off", func(b *testing.B) {
		h := newHarness(b, Config{})
		h.fake.quiet = true
		run(b, h.srv.App().Handler())
	})
	b.Run("rsc-member-auth-basic", func(b *testing.B) {
		cfg := authConfig(b)
		cfg.Auth.AuthenticateMemberAPI = true
		h := newHarness(b, cfg)
		h.fake.quiet = true
		run(b, h.srv.App().Handler(), "Authorization", basic("member", "member-pass"))
	})
}

package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	app := fiber.New(fiber.Config{DisableStartupMessage: true, CaseSensitive: true})
	app.Post("/coord/v1/streams/:p/groups/:g/members/:m/heartbeat", func(c *fiber.Ctx) error {
		var req protocol.HeartbeatRequest
		if err := c.BodyParser(&req); err != nil {
			return c.Status(http.StatusBadRequest).SendString(err.Error())
		}
		return c.JSON(protocol.HeartbeatResponse{
			ResponseTo: req.RequestID, Status: protocol.StatusOK, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch,
			HeartbeatIntervalMs: 3000, RebalanceTimeoutMs: 60000, MemberLeaseTTLMs: 15000,
			GroupEpoch: req.MemberEpoch, AssignmentEpoch: req.MemberEpoch, MetadataVersion: req.MetadataVersion,
			Assignment: protocol.Assignment{AssignedShards: req.OwnedShards, PendingShards: []protocol.ShardID{}, MetadataVersion: req.MetadataVersion},
		})
	})
	app.Get("/health", func(c *fiber.Ctx) error { return c.SendString("ok") })
	log.Fatal(app.Listen(*addr))
}

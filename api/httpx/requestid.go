package httpx

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Request ids. Every request gets one: the client's X-Request-Id when it is
// 1..128 printable ASCII characters without spaces; for a heartbeat without
// that header, the body's requestId (AdoptRequestID); else a generated one
// (32 hex digits). It is echoed in the X-Request-Id response header, written
// in the audit log and in the request's error logs, and handed to the
// Service in the call's context (coordinator.WithRequestID): the actor host
// writes it in the log lines of the changes it makes (stream created, group
// created, group deleted). A heartbeat's requestId travels in the actor message
// itself and comes back as responseTo.

// HeaderRequestID is the request id header.
const HeaderRequestID = "X-Request-Id"

const RequestIDKey = "rsc.requestId"

// AssignRequestID takes the client's X-Request-Id when it is valid: stored
// in the locals and echoed in the response header. Without one the id is
// picked lazily — a heartbeat adopts its body's requestId (AdoptRequestID),
// anything else gets a generated one when first asked for (requestID) or at
// the latest when observe finishes the response — so that a heartbeat does
// not generate an id it then throws away.
func AssignRequestID(c *fiber.Ctx) {
	if id := c.Get(HeaderRequestID); ValidRequestID(id) {
		id = strings.Clone(id) // fiber's strings alias a reused buffer
		c.Locals(RequestIDKey, id)
		c.Set(HeaderRequestID, id)
	}
}

func ValidRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// requestID is the id of the request, generated (and set in the response
// header) if it has none yet.
func RequestID(c *fiber.Ctx) string {
	id, _ := c.Locals(RequestIDKey).(string)
	if id == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
		c.Locals(RequestIDKey, id)
		c.Set(HeaderRequestID, id)
	}
	return id
}

// AdoptRequestID makes id (a heartbeat body's requestId) the request's id
// when the client sent no valid X-Request-Id, so that the header, the logs
// and the member's own request id agree.
func AdoptRequestID(c *fiber.Ctx, id string) {
	if ValidRequestID(c.Get(HeaderRequestID)) || !ValidRequestID(id) {
		return
	}
	c.Locals(RequestIDKey, id)
	c.Set(HeaderRequestID, id)
}

package edge

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A request's body length must be unambiguous. fasthttp reads a body as
// chunked whenever Transfer-Encoding is present (whatever its value) and
// then ignores Content-Length; a proxy in front of the coordinator that
// reads the same bytes by Content-Length instead sees a different request
// boundary, and whatever fasthttp leaves over would run as a second request
// nobody sent through the proxy (request smuggling). So, from the raw
// header block as received:
//
//	Content-Length and Transfer-Encoding together        400
//	Transfer-Encoding other than exactly "chunked"       400 (we decode no other coding)
//	Transfer-Encoding or Content-Length given twice      400
//
// and the connection is closed after the answer, so that the bytes after
// the refused request are never read as a request of their own.

// RefuseAmbiguousLength is a global middleware (after observe, which writes
// the error).
func RefuseAmbiguousLength(c *fiber.Ctx) error {
	if msg := ambiguousLength(c.Request().Header.RawHeaders()); msg != "" {
		c.Context().SetConnectionClose()
		return httpx.New(http.StatusBadRequest, protocol.CodeAmbiguousLength, msg)
	}
	return c.Next()
}

var (
	headerContentLength    = []byte("content-length")
	headerTransferEncoding = []byte("transfer-encoding")
	codingChunked          = []byte("chunked")
)

// ambiguousLength scans a raw header block (the lines after the request
// line, as fasthttp keeps them) and says what makes the body length
// ambiguous, or "" when nothing does.
func ambiguousLength(raw []byte) string {
	var cl, te int
	var teValue []byte
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		name = bytes.TrimSpace(name)
		switch {
		case bytes.EqualFold(name, headerContentLength):
			cl++
		case bytes.EqualFold(name, headerTransferEncoding):
			te++
			teValue = bytes.TrimSpace(value)
		}
	}
	switch {
	case cl > 0 && te > 0:
		return "the request has both Content-Length and Transfer-Encoding: send one of them (Content-Length, or Transfer-Encoding: chunked alone)"
	case te > 1:
		return "the request has Transfer-Encoding twice: send it once, as Transfer-Encoding: chunked"
	case cl > 1:
		return "the request has Content-Length twice: send it once"
	case te == 1 && !bytes.EqualFold(teValue, codingChunked):
		return "Transfer-Encoding " + httpx.Truncate(string(teValue), 40) + " is not supported: send Transfer-Encoding: chunked or a Content-Length (and no Content-Encoding)"
	}
	return ""
}

// FasthttpLengthError answers like refuseAmbiguousLength the two cases
// fasthttp (v1.69, as huma requires it) refuses itself while it reads the
// headers, before any handler runs: its error reaches serverError.
func FasthttpLengthError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "duplicate Content-Length header") {
		return httpx.New(http.StatusBadRequest, protocol.CodeAmbiguousLength, "the request has Content-Length twice: send it once")
	}
	if _, rest, ok := strings.Cut(msg, "unsupported Transfer-Encoding: "); ok {
		if q, qerr := strconv.QuotedPrefix(rest); qerr == nil {
			rest, _ = strconv.Unquote(q)
		}
		return httpx.New(http.StatusBadRequest, protocol.CodeAmbiguousLength, "Transfer-Encoding "+httpx.Truncate(strings.TrimSpace(rest), 40)+
			" is not supported: send Transfer-Encoding: chunked or a Content-Length (and no Content-Encoding)")
	}
	return err
}

package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed static
var static embed.FS

// Path is where the console is mounted. The page's own URLs are absolute
// under it, so /console and /console/ both work.
const Path = "/console"

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

// assets maps a file name under Path ("" is the page) to its content; built
// once at start-up from the embedded files.
var assets = load()

func load() map[string]asset {
	out := map[string]asset{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		out[strings.TrimPrefix(p, "static/")] = asset{body: body, contentType: contentType(p), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic("console: reading embedded files: " + err.Error()) // a build problem, not a runtime one
	}
	out[""] = out["index.html"]
	return out
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".html":
		return fiber.MIMETextHTMLCharsetUTF8
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return fiber.MIMEApplicationJavaScriptCharsetUTF8
	case ".svg":
		return "image/svg+xml"
	}
	return fiber.MIMEOctetStream
}

// securityPolicy lets the page load only its own files and talk only to its
// own origin: no inline script, no third party, no framing.
const securityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Handler serves Path and Path/* from the embedded files: 404 for any other
// name, 304 when the browser's copy is current. It needs no credentials.
func Handler(c *fiber.Ctx) error {
	name := strings.TrimPrefix(strings.TrimPrefix(c.Path(), Path), "/")
	a, ok := assets[name]
	if !ok {
		return fiber.NewError(http.StatusNotFound, "no such console file: "+name)
	}
	c.Set(fiber.HeaderContentSecurityPolicy, securityPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderETag, a.etag)
	if c.Get(fiber.HeaderIfNoneMatch) == a.etag {
		return c.SendStatus(http.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, a.contentType)
	return c.Send(a.body)
}

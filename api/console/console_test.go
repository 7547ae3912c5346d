package console

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"
)

func app() *fiber.App {
	a := fiber.New(fiber.Config{DisableStartupMessage: true})
	a.Get(Path, Handler)
	a.Get(Path+"/*", Handler)
	return a
}

func get(t *testing.T, a *fiber.App, path string, hdr ...string) (int, map[string]string, string) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := a.Test(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	h := map[string]string{}
	for k := range resp.Header {
		h[k] = resp.Header.Get(k)
	}
	return resp.StatusCode, h, string(b)
}

// The page and its two files are served with their types, a policy that
// allows only this origin, and a validator; other names are 404.
func TestServesEmbeddedFiles(t *testing.T) {
	a := app()
	for path, want := range map[string]string{
		"/console":             "text/html",
		"/console/":            "text/html",
		"/console/index.html":  "text/html",
		"/console/console.js":  "javascript",
		"/console/console.css": "text/css",
	} {
		status, h, body := get(t, a, path)
		require.Equal(t, 200, status, path)
		require.Contains(t, h["Content-Type"], want, path)
		require.Contains(t, h["Content-Security-Policy"], "default-src 'none'", path)
		require.Equal(t, "nosniff", h["X-Content-Type-Options"], path)
		require.NotEmpty(t, h["Etag"], path)
		require.NotEmpty(t, body, path)
		st, _, _ := get(t, a, path, "If-None-Match", h["Etag"])
		require.Equal(t, 304, st, path)
	}
	for _, path := range []string{"/console/missing.js", "/console/static/console.js", "/console/../go.mod"} {
		status, _, _ := get(t, a, path)
		require.Equal(t, 404, status, path)
	}
}

// Offline and self-contained: the page names no other origin, and its
// script never writes data into the page as HTML.
func TestNoThirdPartyAndNoHTMLInjection(t *testing.T) {
	for name, a := range assets {
		// The SVG namespace name is an identifier, not a place the page loads from.
		body := strings.ReplaceAll(string(a.body), "'http://www.w3.org/2000/svg'", "SVG_NS")
		for _, bad := range []string{"http://", "https://", "//cdn", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
			require.NotContains(t, body, bad, "%s contains %q", name, bad)
		}
	}
	page := string(assets["index.html"].body)
	require.True(t, strings.Contains(page, `src="/console/console.js"`) && strings.Contains(page, `href="/console/console.css"`))
	for _, js := range []string{"dom.js", "plots.js", "cluster.js", "migrations.js", "messages.js", "assignment.js", "grouplist.js", "summary.js", "shards.js", "members.js"} {
		require.Contains(t, page, `src="/console/`+js+`"`)
	}
}

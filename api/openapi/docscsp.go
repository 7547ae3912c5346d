package openapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
)

// docsPolicy is the Content-Security-Policy of /docs: as strict as the
// console's (no 'unsafe-inline', no framing, nothing from elsewhere). The
// viewer is one embedded page, so its one <script> and one <style> are
// allowed by their SHA-256 hashes, computed here from the embedded page:
// the policy follows any edit of docsui/index.html, and an injected script
// or style (whose hash differs) does not run.
var docsPolicy = "default-src 'none'; script-src " + inlineHash(docsHTML, "script") +
	"; style-src " + inlineHash(docsHTML, "style") +
	"; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// inlineHash is the CSP source ('sha256-…') of the content of the first
// <tag>…</tag> element of page. A page without one is a build error.
func inlineHash(page []byte, tag string) string {
	open, closing := []byte("<"+tag+">"), []byte("</"+tag+">")
	i := bytes.Index(page, open)
	j := bytes.Index(page, closing)
	if i < 0 || j < i {
		panic("openapi: docsui/index.html has no <" + tag + "> element: the /docs policy cannot allow it")
	}
	sum := sha256.Sum256(page[i+len(open) : j])
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

package console

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// /docs renders in a real browser under its strict policy (no
// 'unsafe-inline': its script and style are allowed by hash): the
// operations are listed, the page's style applies, and the browser reports
// no refused script or style.
func TestDocsViewerRunsUnderItsPolicy(t *testing.T) {
	chromium := chromiumPath(t)
	coord := startCoordinator(t)
	br := newBrowser(t, chromium)
	br.run(chromedp.Navigate(coord.secured + "/docs"))
	ops := waitFor(br, "the operations", `document.querySelectorAll('details.op').length`, func(n int) bool { return n > 20 })
	require.Greater(t, ops, 20)
	bg, err := eval[string](br, `getComputedStyle(document.querySelector('header')).backgroundColor`)
	require.NoError(t, err)
	require.Equal(t, "rgb(29, 36, 48)", bg, "the page's <style> applies")
	require.Empty(t, br.scriptErrors(), "the policy refused part of the page")
}

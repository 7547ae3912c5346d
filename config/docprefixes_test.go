package config

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docs/OPERATIONS.md lists the variable prefixes that stop the start: the
// list must be exactly the configuration's sections.
func TestOperationsListsEverySectionPrefix(t *testing.T) {
	doc, err := os.ReadFile("../docs/OPERATIONS.md")
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "it starts with a section of the\n  configuration (")
	require.GreaterOrEqual(t, start, 0, "OPERATIONS.md: the prefix list of unknown RSC_* variables moved; update this test")
	end := strings.Index(text[start:], ")")
	require.Greater(t, end, 0)
	var listed []string
	for _, m := range regexp.MustCompile("`RSC_([A-Z]+)_`").FindAllStringSubmatch(text[start:start+end], -1) {
		listed = append(listed, strings.ToLower(m[1]))
	}
	var want []string
	for s := range sections {
		want = append(want, s)
	}
	sort.Strings(listed)
	sort.Strings(want)
	require.Equal(t, want, listed, "docs/OPERATIONS.md \"Unknown RSC_* variables\": list every section as `RSC_<SECTION>_`")
}

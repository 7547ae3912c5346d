package config

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// doc.go: config imports no other package of this module but config/source,
// which imports none (source/doc.go).
func TestImportsNoPackageOfThisModule(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sourceFiles, err := filepath.Glob("source/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, sourceFiles...)
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/redisstream/coordinator/") &&
				(p != "github.com/redisstream/coordinator/config/source" || strings.HasPrefix(name, "source/")) {
				t.Errorf("%s imports %s: config must not import packages of this module but config/source, nor config/source any (doc.go)", name, p)
			}
		}
	}
}

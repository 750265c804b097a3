package partitionindex_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readmeSnippet is what the README's Go block must be: the import block of
// readme_example_test.go, a blank line, and ExampleOpen's body up to its
// Output comment, one tab of indentation removed.
func readmeSnippet(t *testing.T) string {
	t.Helper()
	const name = "readme_example_test.go"
	src, err := os.ReadFile(name)
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	require.NoError(t, err)
	text := func(from, to token.Pos) string {
		return string(src[fset.Position(from).Offset:fset.Position(to).Offset])
	}
	var imports, body string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				imports = text(d.Pos(), d.End())
			}
		case *ast.FuncDecl:
			if d.Name.Name == "ExampleOpen" {
				body = text(d.Body.Lbrace+1, d.Body.Rbrace)
			}
		}
	}
	require.NotEmpty(t, imports, "no import block in %s", name)
	require.NotEmpty(t, body, "no ExampleOpen in %s", name)
	before, _, found := strings.Cut(body, "\t// Output:")
	require.True(t, found, "ExampleOpen has no Output comment, so it is compiled but never run")
	var lines []string
	for _, l := range strings.Split(strings.Trim(before, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	return imports + "\n\n" + strings.Join(lines, "\n") + "\n"
}

// readmeGoBlock returns the README's only ```go block.
func readmeGoBlock(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	parts := strings.Split(string(readme), "```go\n")
	require.Len(t, parts, 2, "README.md should hold exactly one ```go block")
	block, _, found := strings.Cut(parts[1], "```\n")
	require.True(t, found, "the README's ```go block is not closed")
	return block
}

// TestReadmeSnippet keeps the README's library snippet and ExampleOpen, a
// compiled and run example, the same text, so the snippet cannot drift
// into code that does not build or handles errors wrongly (it once
// overwrote Open's error with OpenReader's and never closed the index).
func TestReadmeSnippet(t *testing.T) {
	want := readmeSnippet(t)
	got := readmeGoBlock(t)
	require.Equal(t, want, got, "README.md's ```go block differs from ExampleOpen in partitionindex/readme_example_test.go: copy the example's import block and body (up to // Output:) into the README")
}

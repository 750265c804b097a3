package lint

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The module's format document is docs/format.md. Comments cite it by
// section (§7.4) and quirk (Q16); the shared note the project started from,
// outside the module, and its numbered pitfalls are not cited.
var (
	// A citation: "docs/format.md" and the sections and quirks after it,
	// as in "docs/format.md §9.5, Q16" or "docs/format.md §2.3 and §2.5".
	citationRE = regexp.MustCompile(`docs/format\.md((?:[\s,/–-]*(?:and\s+)?(?:§\d+(?:\.\d+)?|Q\d+))*)`)
	refRE      = regexp.MustCompile(`§\d+(?:\.\d+)?|Q\d+`)
	// What comments may not cite: a document outside the module.
	outsideRE = regexp.MustCompile(`(?i)bti-format\.md|pitfall\s+\d+`)
	// The anchors format.md has: "## 7. The page-aware layout", "### 7.4
	// Re-measuring a branch", "- **Q16. The reverse iterator ...".
	headingRE = regexp.MustCompile(`(?m)^##+ (\d+(?:\.\d+)?)\.? `)
	quirkRE   = regexp.MustCompile(`(?m)^- \*\*(Q\d+)\.`)
)

// TestDocReferences checks every comment of the module: it cites no
// document outside the module, and every section or quirk of
// docs/format.md it names exists.
func TestDocReferences(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "format.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := docAnchors(string(doc))
	if len(anchors) < 50 {
		t.Fatalf("found only %d sections and quirks in docs/format.md", len(anchors))
	}
	fset := token.NewFileSet()
	var cited int
	err = walkGoFiles(root, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, g := range f.Comments {
			text := g.Text()
			for _, p := range commentProblems(text, anchors, &cited) {
				// Text keeps the comment's lines (one per // line).
				line := fset.Position(g.Pos()).Line + strings.Count(text[:p.at], "\n")
				t.Errorf("%s:%d: %s", filepath.ToSlash(rel), line, p.msg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d citations of docs/format.md sections and quirks, all found", cited)
}

// docAnchors returns the section numbers and quirk names of format.md.
func docAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(doc, -1) {
		anchors["§"+m[1]] = true
	}
	for _, m := range quirkRE.FindAllStringSubmatch(doc, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// problem is one bad citation, at byte at of a comment's text.
type problem struct {
	at  int
	msg string
}

// commentProblems lists what is wrong with the citations in one comment's
// text, counting the good ones in cited.
func commentProblems(text string, anchors map[string]bool, cited *int) []problem {
	var problems []problem
	for _, m := range outsideRE.FindAllStringIndex(text, -1) {
		cite := strings.Join(strings.Fields(text[m[0]:m[1]]), " ")
		problems = append(problems, problem{m[0], "cites " + cite + ", outside the module: cite docs/format.md"})
	}
	for _, m := range citationRE.FindAllStringSubmatchIndex(text, -1) {
		refs := text[m[2]:m[3]]
		for _, r := range refRE.FindAllStringIndex(refs, -1) {
			if ref := refs[r[0]:r[1]]; !anchors[ref] {
				problems = append(problems, problem{m[2] + r[0], "docs/format.md has no " + ref})
				continue
			}
			*cited++
		}
	}
	return problems
}

// The checks catch what they are meant to catch.
func TestDocReferenceRules(t *testing.T) {
	anchors := docAnchors("## 2. Keys\n### 2.3 Decorated keys\n## 9. Reader\n### 9.5 Iteration\n- **Q16. Reverse quirk**\n")
	for _, c := range []struct {
		text     string
		problems int
	}{
		{"see docs/format.md §9.5, Q16 and the rest", 0},
		{"docs/format.md §2.3 and\n§9.5", 0},
		{"docs/format.md §2, the diff-point rule", 0},
		{"docs/format.md §2.4", 1},
		{"docs/format.md §9.5, Q17", 1},
		{"(bti-format.md §1)", 1},
		{"(trie\npitfall 25)", 1},
		{"Numerical Recipes §6.4", 0},
	} {
		var cited int
		if got := len(commentProblems(c.text, anchors, &cited)); got != c.problems {
			t.Errorf("%q: %d problems, want %d", c.text, got, c.problems)
		}
	}
}

package lint

import (
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/bti-go/bti"

// library lists the packages a user of the module imports, with the
// packages of this module each may import (beside the standard library and
// the external packages in runtimeDeps). The layers follow the data flow:
// encoding, then keys, then the trie, then the file.
var library = map[string][]string{
	"bytecomparable":            nil,
	"ring":                      nil,
	"internal/invariants":       nil,
	"internal/indexfile":        nil,
	"internal/partitionpayload": nil,
	"internal/rowfile":          {"partitioner", "trie", "internal/indexfile"},
	"partitioner":               {"bytecomparable"},
	// Below both Partitions.db writers (partitionindex's and the reference
	// builder of internal/refpartitions): what does not depend on how keys
	// are encoded.
	"internal/partitionfile": {"partitioner", "trie", "internal/indexfile", "internal/invariants"},
	"trie":                   {"internal/indexfile", "internal/invariants"},
	"partitionindex":         {"bytecomparable", "partitioner", "ring", "trie", "internal/indexfile", "internal/invariants", "internal/partitionfile", "internal/partitionpayload"},
	"rowindex":               {"bytecomparable", "partitioner", "ring", "trie", "internal/indexfile", "internal/invariants", "internal/rowfile"},
	"tableindex":             {"bytecomparable", "partitioner", "partitionindex", "rowindex"},
	// The tools' audience (style guide point 4): built on the engine
	// packages, imported by none of them (no entry above lists it).
	"audit": {"bytecomparable", "partitioner", "partitionindex", "rowindex", "trie", "internal/indexfile", "internal/partitionpayload"},
}

// tooling lists packages that exist for the command and the tests; no
// library package may import them.
var tooling = []string{"cmd/", "internal/buildpath", "internal/faultsink", "internal/fuzzinput", "internal/golden", "internal/goldenindex", "internal/keygen", "internal/keyset", "internal/keystsv", "internal/over4gib", "internal/refpartitions", "internal/refrows", "internal/rowgen", "internal/rowstsv", "internal/workload", "jmhstyle"}

// runtimeDeps are the only external packages a non-test file may import.
// Everything else go.mod requires (testify, btree, roaring, vellum, …) is
// for tests and benchmarks, and must not reach a user's binary.
// (x/sys/cpu: bytecomparable's escaper asks it whether the CPU has the
// instructions of its assembly; the module is x/sys/unix's.)
var runtimeDeps = []string{"golang.org/x/sys/unix", "golang.org/x/sys/cpu"}

// knownViolations are imports that other work in progress removes (issue
// 11). Each entry is "file: import". The test fails once an entry is no
// longer needed, so the list cannot go stale: delete the entry then.
var knownViolations = []string{}

type goFile struct {
	rel     string // path from the module root, slash-separated
	pkg     string // directory from the module root, slash-separated
	name    string // package clause
	test    bool
	imports []string
}

// TestImports checks every non-test file of the module against the rules
// above, reading import clauses with go/parser: no build, no go command.
func TestImports(t *testing.T) {
	files := parseModule(t)
	if len(files) < 50 {
		t.Fatalf("found only %d Go files; is the module root right?", len(files))
	}
	used := map[string]bool{}
	var problems []string
	checked := 0
	for _, f := range files {
		if f.test {
			continue
		}
		checked++
		for _, imp := range f.imports {
			why := violation(f, imp)
			if why == "" {
				continue
			}
			entry := f.rel + ": " + imp
			if slices.Contains(knownViolations, entry) {
				used[entry] = true
				continue
			}
			problems = append(problems, entry+" ("+why+")")
		}
	}
	for _, e := range knownViolations {
		if !used[e] {
			problems = append(problems, e+" (listed in knownViolations but no longer imported: delete the entry)")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("checked the imports of %d non-test files", checked)
}

// violation says why file f may not import imp, or returns "".
func violation(f goFile, imp string) string {
	own, inModule := strings.CutPrefix(imp, module+"/")
	if !inModule {
		first, _, _ := strings.Cut(imp, "/")
		if !strings.Contains(first, ".") || slices.Contains(runtimeDeps, imp) {
			return "" // standard library, or an allowed runtime dependency
		}
		return "external package outside runtimeDeps; test-only modules belong in _test.go files"
	}
	if isTooling(own) && !isTooling(f.pkg) && f.name != "main" {
		return "a library package imports tool or test infrastructure"
	}
	allowed, isLib := library[f.pkg]
	if isLib && !slices.Contains(allowed, own) {
		return "against the layering in library (internal/lint/imports_test.go)"
	}
	return ""
}

func isTooling(pkg string) bool {
	for _, p := range tooling {
		if pkg == strings.TrimSuffix(p, "/") || strings.HasPrefix(pkg, p) {
			return true
		}
	}
	return false
}

// The rules catch what they are meant to catch.
func TestImportRules(t *testing.T) {
	// Each line: the importing package (its name is its last element, or
	// main under cmd/), the import, and whether it breaks a rule.
	for _, line := range []string{
		"trie github.com/RoaringBitmap/roaring bad",
		"partitionindex github.com/stretchr/testify/require bad",
		"partitionindex github.com/google/btree bad",
		"partitionindex golang.org/x/sys/unix ok",
		"partitionindex sort ok",
		"partitionindex " + module + "/cmd/bti bad",
		"partitionindex " + module + "/internal/keygen bad",
		"partitionindex " + module + "/trie ok",
		"trie " + module + "/partitionindex bad",
		"partitionindex " + module + "/audit bad",
		"rowindex " + module + "/audit bad",
		"tableindex " + module + "/audit bad",
		"trie " + module + "/audit bad",
		"audit " + module + "/partitionindex ok",
		"audit " + module + "/rowindex ok",
		"audit " + module + "/cmd/bti bad",
		"cmd/bti " + module + "/audit ok",
		"bytecomparable " + module + "/partitioner bad",
		"cmd/bti " + module + "/internal/keygen ok",
		"cmd/bti github.com/blevesearch/vellum bad",
		"internal/keygen " + module + "/internal/keystsv ok",
	} {
		f := strings.Fields(line)
		file := goFile{pkg: f[0], name: path.Base(f[0])}
		if strings.HasPrefix(f[0], "cmd/") {
			file.name = "main"
		}
		if got := violation(file, f[1]) != ""; got != (f[2] == "bad") {
			t.Errorf("%s importing %s: violation %v, want %s", f[0], f[1], got, f[2])
		}
	}
}

// parseModule reads the import clauses of every Go file of the module.
func parseModule(t *testing.T) []goFile {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []goFile
	err = walkGoFiles(root, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		g := goFile{rel: rel, pkg: filepath.ToSlash(filepath.Dir(rel)), name: f.Name.Name, test: strings.HasSuffix(path, "_test.go")}
		for _, s := range f.Imports {
			p, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return err
			}
			g.imports = append(g.imports, p)
		}
		files = append(files, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// walkGoFiles calls fn with the path of every Go file of the module below
// root, skipping testdata, hidden folders and nested modules
// (examples/consumer has its own go.mod and its own rules).
func walkGoFiles(root string, fn func(path string) error) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return fn(path)
	})
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module "+module+"\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of " + module + " above the working directory")
		}
		dir = parent
	}
}

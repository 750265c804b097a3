package lint

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update-api", false, "rewrite testdata/api.txt from the current exported identifiers")

// TestExportedAPI lists every exported identifier of the public library
// packages (top-level names, and the methods of exported types) and
// compares the list with testdata/api.txt, as the Go project's api/ files
// pin the standard library's surface. A change to what a storage engine
// can import then shows in review as a diff of that file, and the counts
// per package (the measure issue 21 asks for) are one grep away:
//
//	go test ./internal/lint/ -run TestExportedAPI -update-api
//	grep -c '^partitionindex ' internal/lint/testdata/api.txt
//
// Fields of exported structs are left out: they are read with their type's
// doc, and counting them would make every options struct dominate.
func TestExportedAPI(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	counts := map[string]int{}
	for pkg := range library {
		if strings.HasPrefix(pkg, "internal/") {
			continue
		}
		names, err := exportedNames(filepath.Join(root, filepath.FromSlash(pkg)))
		if err != nil {
			t.Fatal(err)
		}
		counts[pkg] = len(names)
		for _, n := range names {
			lines = append(lines, pkg+" "+n)
		}
	}
	slices.Sort(lines)
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "api.txt")
	if *updateAPI {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := make([]string, 0, len(counts))
	for p := range counts {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		t.Logf("exported: %-16s %d", p, counts[p])
	}
	if string(want) != got {
		t.Errorf("the exported API differs from %s:\n%s\nif the change is meant, run: go test ./internal/lint/ -run TestExportedAPI -update-api",
			golden, lineDiff(string(want), got))
	}
}

// exportedNames returns "Name" for each exported top-level identifier and
// "Type.Method" for each exported method of an exported type, of the
// non-test files of the package in dir, sorted.
func exportedNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			names = append(names, declNames(d)...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
		recv := receiverType(d.Recv.List[0].Type)
		if recv != nil && recv.IsExported() {
			names = append(names, recv.Name+"."+d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					names = append(names, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// receiverType is the named type of a method's receiver: T, *T, T[P] or *T[P].
func receiverType(e ast.Expr) *ast.Ident {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	id, _ := e.(*ast.Ident)
	return id
}

// lineDiff lists the lines only one side has, "-" for want and "+" for got.
func lineDiff(want, got string) string {
	w := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	g := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "-%s\n", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+%s\n", l)
		}
	}
	return b.String()
}

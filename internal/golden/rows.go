package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// RowsCase is one folder of the row-index golden set, ../shared/golden-rows
// (see its README): rows.tsv, the Rows.db and RESULT Cassandra wrote. Parse
// rows.tsv with internal/rowstsv (not imported here: trie's tests use this
// package, and rowstsv depends on trie through rowindex).
type RowsCase struct {
	Name       string
	Dir        string
	InputPath  string // rows.tsv
	DBPath     string // Rows.db
	ResultPath string // RESULT
}

// RowsDir returns ../shared/golden-rows beside the module root.
func RowsDir() (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(dir), "golden-rows"), nil
}

// RowsCases lists every row-index case. Where the folder is absent it skips
// tb, or fails it when BTI_REQUIRE_GOLDEN=1.
func RowsCases(tb testing.TB) []RowsCase {
	tb.Helper()
	root, names := caseDirs(tb, RowsDir, "row-index golden cases")
	var cases []RowsCase
	for _, name := range names {
		dir := filepath.Join(root, name)
		cases = append(cases, RowsCase{
			Name:       name,
			Dir:        dir,
			InputPath:  filepath.Join(dir, "rows.tsv"),
			DBPath:     filepath.Join(dir, "Rows.db"),
			ResultPath: filepath.Join(dir, "RESULT"),
		})
	}
	tb.Logf("%d row-index golden cases in %s", len(cases), root)
	return cases
}

// ForEachRows runs f on every row-index case, each in a subtest named for
// it (skipping t as RowsCases does).
func ForEachRows(t *testing.T, f func(t *testing.T, c RowsCase)) {
	t.Helper()
	for _, c := range RowsCases(t) {
		t.Run(c.Name, func(t *testing.T) { f(t, c) })
	}
}

// RowsDB reads the Rows.db Cassandra wrote.
func (c RowsCase) RowsDB(tb testing.TB) []byte {
	tb.Helper()
	return readFile(tb, c.DBPath)
}

// Result reads the RESULT file Cassandra's harness wrote.
func (c RowsCase) Result(tb testing.TB) []byte {
	tb.Helper()
	return readFile(tb, c.ResultPath)
}

// RowsCaseNamed returns the row-index case called name. Where it is
// absent it skips tb, or fails it when BTI_REQUIRE_GOLDEN=1 (as for the
// whole folder).
func RowsCaseNamed(tb testing.TB, name string) RowsCase {
	tb.Helper()
	for _, c := range RowsCases(tb) {
		if c.Name == name {
			return c
		}
	}
	if os.Getenv(EnvRequire) == "1" {
		tb.Fatalf("row-index golden case %s not found, and %s=1 requires it", name, EnvRequire)
	}
	tb.Skipf("row-index golden case %s not found; skipping", name)
	return RowsCase{}
}

package golden

import (
	"errors"
	"io/fs"
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

// RequireEnv is the environment variable under which a missing golden
// folder fails a test instead of skipping it.
const RequireEnv = "BTI_REQUIRE_GOLDEN"

// RowsCases lists every row-index case. Where the folder is absent it skips
// tb, or fails it when BTI_REQUIRE_GOLDEN=1.
func RowsCases(tb testing.TB) []RowsCase {
	tb.Helper()
	root, err := RowsDir()
	if err != nil {
		tb.Fatal(err)
	}
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		if os.Getenv(RequireEnv) == "1" {
			tb.Fatalf("row-index golden cases not found at %s and %s=1", root, RequireEnv)
		}
		tb.Skipf("row-index golden cases not found at %s (the shared folder beside the repository); skipping", root)
	}
	if err != nil {
		tb.Fatal(err)
	}
	var cases []RowsCase
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(root, d.Name())
		cases = append(cases, RowsCase{
			Name:       d.Name(),
			Dir:        dir,
			InputPath:  filepath.Join(dir, "rows.tsv"),
			DBPath:     filepath.Join(dir, "Rows.db"),
			ResultPath: filepath.Join(dir, "RESULT"),
		})
	}
	if len(cases) == 0 {
		tb.Fatalf("no row-index golden cases in %s", root)
	}
	tb.Logf("%d row-index golden cases in %s", len(cases), root)
	return cases
}

// RowsDB reads the Rows.db Cassandra wrote.
func (c RowsCase) RowsDB(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(c.DBPath)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Result reads the RESULT file Cassandra's harness wrote.
func (c RowsCase) Result(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(c.ResultPath)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Package golden finds the Cassandra-written golden cases that tests in
// several packages check against: ../shared/golden beside the module root
// (see its README). They are read in place, never copied into the project;
// tests skip with a message where the folder is absent, or fail where
// BTI_REQUIRE_GOLDEN=1 (as CI sets it).
package golden

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bti-go/bti/internal/keystsv"
)

// Case is one folder of the golden set.
type Case struct {
	Name string
	Dir  string
	// Partitioner is the folder name's prefix: "murmur3" or "byteordered".
	Partitioner string
	KeysPath    string // keys.tsv, or keys.tsv.bz2 where that is what is stored
	DBPath      string // the Partitions.db Cassandra wrote
	Partials    []Partial
}

// Partial is one row of a case's partials.tsv: an early-open request made
// right after key AfterKeys, and what the view looked like if accepted.
type Partial struct {
	AfterKeys  int
	Accepted   bool
	Root       int64
	Count      int64
	Cutoff     int64
	TailLen    int64
	TailSHA256 string // lowercase hex
}

// RequireView fails the test unless an accepted early-open view (its root,
// key count, cutoff and the bytes past the cutoff) is the one Cassandra's
// writer produced at this request. The golden tests of partitionindex and
// audit both compare their views with it.
func (p Partial) RequireView(tb testing.TB, root, count, cutoff int64, tail []byte) {
	tb.Helper()
	sum := sha256.Sum256(tail)
	for _, f := range [...]struct {
		what      string
		want, got any
	}{
		{"root", p.Root, root},
		{"count", p.Count, count},
		{"cutoff", p.Cutoff, cutoff},
		{"tail length", p.TailLen, int64(len(tail))},
		{"tail sha256", p.TailSHA256, hex.EncodeToString(sum[:])},
	} {
		if f.want != f.got {
			tb.Fatalf("after %d keys: %s is %v, Cassandra's is %v", p.AfterKeys, f.what, f.got, f.want)
		}
	}
}

// Dir returns the golden folder: ../shared/golden relative to the directory
// holding go.mod, found by walking up from the working directory (a test's
// package directory).
func Dir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "golden"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("golden: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Cases lists every case, skipping tb if the golden folder is absent
// (failing it instead under BTI_REQUIRE_GOLDEN=1).
func Cases(tb testing.TB) []Case {
	tb.Helper()
	root, names := caseDirs(tb, Dir, "golden cases")
	var cases []Case
	for _, name := range names {
		c := Case{Name: name, Dir: filepath.Join(root, name)}
		c.Partitioner, _, _ = strings.Cut(name, "-")
		c.DBPath = filepath.Join(c.Dir, "Partitions.db")
		c.KeysPath = filepath.Join(c.Dir, "keys.tsv")
		if _, err := os.Stat(c.KeysPath); err != nil {
			c.KeysPath += ".bz2"
		}
		var err error
		if c.Partials, err = readPartials(filepath.Join(c.Dir, "partials.tsv")); err != nil {
			tb.Fatal(err)
		}
		cases = append(cases, c)
	}
	return cases
}

// ForEach runs f on every case, each in a subtest named for it (skipping t
// as Cases does).
func ForEach(t *testing.T, f func(t *testing.T, c Case)) {
	t.Helper()
	for _, c := range Cases(t) {
		t.Run(c.Name, func(t *testing.T) { f(t, c) })
	}
}

// caseDirs returns the folder that dir names and the names of the folders
// in it, one a case, for Cases and RowsCases. A missing folder skips tb, or
// fails it under BTI_REQUIRE_GOLDEN=1; a folder without cases fails it.
func caseDirs(tb testing.TB, dir func() (string, error), what string) (root string, names []string) {
	tb.Helper()
	root, err := dir()
	if err != nil {
		tb.Fatal(err)
	}
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("%s not found at %s, and %s=1 requires them", what, root, EnvRequire)
		}
		tb.Skipf("%s not found at %s (the shared folder beside the repository); skipping", what, root)
	}
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() {
			names = append(names, d.Name())
		}
	}
	if len(names) == 0 {
		tb.Fatalf("no %s in %s", what, root)
	}
	return root, names
}

// readFile reads one file of a case.
func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Entries reads the case's keys and positions.
func (c Case) Entries(tb testing.TB) []keystsv.Entry {
	tb.Helper()
	entries, err := keystsv.ReadFile(c.KeysPath)
	if err != nil {
		tb.Fatal(err)
	}
	return entries
}

// PartitionsDB reads the file Cassandra wrote.
func (c Case) PartitionsDB(tb testing.TB) []byte {
	tb.Helper()
	return readFile(tb, c.DBPath)
}

// readPartials parses partials.tsv (absent: no partial requests). Columns:
// after_keys, accepted, root, count, cutoff, tail_len, tail_sha256.
func readPartials(path string) ([]Partial, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Partial
	s := bufio.NewScanner(f)
	for line := 1; s.Scan(); line++ {
		if line == 1 {
			continue // header
		}
		cols := strings.Split(s.Text(), "\t")
		if len(cols) != 7 {
			return nil, errors.New(path + ": line " + strconv.Itoa(line) + ": want 7 columns")
		}
		p := Partial{Accepted: cols[1] == "true"}
		if p.AfterKeys, err = strconv.Atoi(cols[0]); err != nil {
			return nil, err
		}
		if p.Accepted {
			for i, dst := range []*int64{&p.Root, &p.Count, &p.Cutoff, &p.TailLen} {
				if *dst, err = strconv.ParseInt(cols[2+i], 10, 64); err != nil {
					return nil, err
				}
			}
			p.TailSHA256 = cols[6]
		}
		out = append(out, p)
	}
	return out, s.Err()
}

package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenDir holds the Cassandra-written cases (see its README): the shared
// folder beside the repository, ../shared/golden from the module root.
// Tests that need it skip when it is absent.
const goldenDir = "../../../shared/golden"

// result is one in-process run of the tool.
type result struct {
	code           int
	stdout, stderr string
}

func bti(args ...string) result {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return result{code, out.String(), errb.String()}
}

// requireCode checks the exit status and that nothing panicked.
func requireCode(t *testing.T, want int, r result, args ...any) {
	t.Helper()
	require.Equal(t, want, r.code, append([]any{"stdout:\n%s\nstderr:\n%s\n", r.stdout, r.stderr}, args...)...)
	require.NotContains(t, r.stderr, "internal error", "a panic was recovered")
	require.NotContains(t, r.stderr, "goroutine ", "a stack trace was printed")
}

type goldenCase struct {
	name      string
	dir       string
	part      string
	keys      string   // keys.tsv or keys.tsv.bz2
	db        string   // Partitions.db
	partialAt []string // every after_keys value of partials.tsv
}

func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	dirs, err := os.ReadDir(goldenDir)
	if os.IsNotExist(err) {
		t.Skipf("golden cases not found at %s (the shared folder beside the repository); skipping", goldenDir)
	}
	require.NoError(t, err)
	var cases []goldenCase
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		c := goldenCase{name: d.Name(), dir: filepath.Join(goldenDir, d.Name())}
		c.part, _, _ = strings.Cut(d.Name(), "-")
		c.db = filepath.Join(c.dir, "Partitions.db")
		c.keys = filepath.Join(c.dir, "keys.tsv")
		if _, err := os.Stat(c.keys); err != nil {
			c.keys += ".bz2"
		}
		c.partialAt = readAfterKeys(t, filepath.Join(c.dir, "partials.tsv"))
		cases = append(cases, c)
	}
	require.NotEmpty(t, cases)
	return cases
}

// readAfterKeys returns the after_keys column of a partials.tsv, accepted
// or not (a declined request must not fail the build).
func readAfterKeys(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		field, _, _ := strings.Cut(sc.Text(), "\t")
		if field == "after_keys" || field == "" {
			continue
		}
		out = append(out, field)
	}
	require.NoError(t, sc.Err())
	return out
}

// smallGolden returns the golden case of that name (skipping if absent).
func smallGolden(t *testing.T, name string) goldenCase {
	t.Helper()
	for _, c := range goldenCases(t) {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("golden case %s not found", name)
	return goldenCase{}
}

// listDir returns the names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

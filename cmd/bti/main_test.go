package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
)

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

// requireFails runs the tool with args and checks that it exits with
// status 2 (bad input or usage) and a message containing msg.
func requireFails(t *testing.T, msg string, args ...string) result {
	t.Helper()
	r := bti(args...)
	requireCode(t, 2, r, args)
	assert.Contains(t, r.stderr, msg, args)
	return r
}

// requireOldOutput checks that a failed build left out (beside keys.tsv in
// dir) as it was, holding "old", and no temporary file.
func requireOldOutput(t *testing.T, dir, out string) {
	t.Helper()
	assert.Equal(t, "old", readFile(t, out))
	assert.ElementsMatch(t, []string{"keys.tsv", filepath.Base(out)}, listDir(t, dir))
}

type goldenCase struct {
	name      string
	dir       string
	part      string
	keys      string   // keys.tsv or keys.tsv.bz2
	db        string   // Partitions.db
	partialAt []string // every after_keys value of partials.tsv
}

// goldenCases lists the Cassandra-written cases (skipping if absent).
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	var cases []goldenCase
	for _, gc := range golden.Cases(t) {
		c := goldenCase{name: gc.Name, dir: gc.Dir, part: gc.Partitioner, keys: gc.KeysPath, db: gc.DBPath}
		for _, p := range gc.Partials {
			// Every request, accepted or not: a declined one must not fail the build.
			c.partialAt = append(c.partialAt, strconv.Itoa(p.AfterKeys))
		}
		cases = append(cases, c)
	}
	return cases
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

// readFile is writeFile's inverse: the file's bytes, as a string so text
// compares directly ([]byte(readFile(...)) where bytes are wanted).
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

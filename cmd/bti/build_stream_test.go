package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// writeKeysTSV writes n generated Murmur3 UUID keys, sorted, with their
// line numbers as positions.
func writeKeysTSV(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	keys, err := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: seed}.Keys()
	require.NoError(t, err)
	var buf []byte
	for i, k := range keys {
		buf = keystsv.AppendLine(buf, k.Raw, int64(i))
	}
	writeFile(t, path, string(buf))
}

// The streamed build (the default) writes the bytes the in-memory build
// (the one --stats measures) writes, on both builder paths.
func TestStreamedBuildMatchesInMemory(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeKeysTSV(t, keys, 30_000, 5)
	for _, path := range []string{"scratch", "reference"} {
		streamed := filepath.Join(dir, path+"-stream.db")
		held := filepath.Join(dir, path+"-held.db")
		requireCode(t, 0, bti("build", "--in", keys, "--out", streamed, "--path", path))
		requireCode(t, 0, bti("build", "--in", keys, "--out", held, "--path", path, "--stats", "text"))
		assert.True(t, readFile(t, streamed) == readFile(t, held), "path %s: streamed build differs from the in-memory build", path)
	}
}

// A bad line deep in the input fails the streamed build naming the line,
// and leaves the old output and no temporary file.
func TestStreamedBuildLateBadLine(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeKeysTSV(t, keys, 100_000, 3)
	f, err := os.OpenFile(keys, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("zz-not-hex\t1\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	out := filepath.Join(dir, "Partitions.db")
	writeFile(t, out, "old")
	requireFails(t, "line 100001", "build", "--in", keys, "--out", out)
	requireOldOutput(t, dir, out)
}

// The temporary output is named for what it is while the build runs (a
// SIGKILL leaves it behind under that name), and is gone after success.
func TestTemporaryOutputName(t *testing.T) {
	dir := t.TempDir()
	o, err := createOutput(filepath.Join(dir, "Partitions.db"), io.Discard)
	require.NoError(t, err)
	defer o.abort()
	names := listDir(t, dir)
	require.Len(t, names, 1)
	assert.Regexp(t, `^\.Partitions\.db\.bti-incomplete-[0-9]+-[0-9a-f]{12}$`, names[0])
	require.NoError(t, o.commit())
	assert.Equal(t, []string{"Partitions.db"}, listDir(t, dir))
}

// streamedBuildAlloc is what one streamed build of n keys allocates.
func streamedBuildAlloc(t *testing.T, dir string, n int) uint64 {
	t.Helper()
	keys := filepath.Join(dir, fmt.Sprintf("keys-%d.tsv", n))
	writeKeysTSV(t, keys, n, 9)
	o, err := createOutput(filepath.Join(dir, fmt.Sprintf("out-%d.db", n)), io.Discard)
	require.NoError(t, err)
	defer o.abort()
	var res *streamResult
	alloc := allocated(func() {
		res, err = streamBuild(keys, o, partitionindex.Options{Partitioner: partitioner.Murmur3}, buildpath.Scratch, nil, newProgress(nil))
	})
	require.NoError(t, err)
	require.EqualValues(t, n, res.count)
	require.NoError(t, o.commit())
	return alloc
}

// streamedVerifyAlloc is what one streamed verification of n keys
// allocates, the index built beforehand.
func streamedVerifyAlloc(t *testing.T, dir string, n int) uint64 {
	t.Helper()
	keys := filepath.Join(dir, fmt.Sprintf("vkeys-%d.tsv", n))
	writeKeysTSV(t, keys, n, 11)
	db := filepath.Join(dir, fmt.Sprintf("v-%d.db", n))
	requireCode(t, 0, bti("build", "--in", keys, "--out", db))
	ix, err := partitionindex.Open(db, partitionindex.OpenOptions{})
	require.NoError(t, err)
	defer ix.Close()
	pp := &problemPrinter{w: io.Discard}
	var count int64
	alloc := allocated(func() { count, err = verifyStream(ix, keys, newProgress(nil), pp.report) })
	require.NoError(t, err)
	require.EqualValues(t, n, count)
	require.Zero(t, pp.problems)
	return alloc
}

// allocated returns what f allocates (runtime.MemStats.TotalAlloc), after
// a collection.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// Memory is part of the contract: the streamed build and bti verify hold no
// key they have read, so ten times the keys allocate about the same.
// Holding them (as the in-memory build does) costs over 100 bytes a key,
// 18 MB more here. The build's bound allows 4 MiB for the builder's working
// set growing with the trie's width; verify streams keys.tsv through an
// EntryVerifier and gets 1 MiB.
func TestStreamedMemoryFlat(t *testing.T) {
	if testing.Short() || testing.CoverMode() != "" {
		t.Skip("runs 200,000 keys; skipped under -short and -cover")
	}
	for _, c := range []struct {
		name  string
		slack uint64
		alloc func(t *testing.T, dir string, n int) uint64
	}{
		{"build", 4 << 20, streamedBuildAlloc},
		{"verify", 1 << 20, streamedVerifyAlloc},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			small := c.alloc(t, dir, 20_000)
			large := c.alloc(t, dir, 200_000)
			t.Logf("allocated: %d bytes for 20,000 keys, %d for 200,000", small, large)
			if large > small+c.slack {
				t.Errorf("200,000 keys allocate %d bytes, 20,000 keys %d: the streamed %s grows with its input", large, small, c.name)
			}
		})
	}
}

// --partial-at streams too: the file and the views' verdicts are those of
// the held build (--hold-keys), and a view that disagrees with keys.tsv
// fails the streamed check naming the line.
func TestStreamedPartialViews(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeKeysTSV(t, keys, 20_000, 7)
	streamed, held := filepath.Join(dir, "streamed.db"), filepath.Join(dir, "held.db")
	views := "1,2,500,4096,19999,20000"
	requireCode(t, 0, bti("build", "--in", keys, "--out", streamed, "--partial-at", views))
	requireCode(t, 0, bti("build", "--in", keys, "--out", held, "--partial-at", views, "--hold-keys"))
	require.True(t, readFile(t, streamed) == readFile(t, held), "streamed and held builds with views differ")

	requireFails(t, "has only 20000 keys", "build", "--in", keys, "--out", filepath.Join(dir, "short.db"), "--partial-at", "20001")
	assert.NoFileExists(t, filepath.Join(dir, "short.db"))

	// The views of a real streamed build, checked against a keys.tsv whose
	// line 11 has another position.
	o, err := createOutput(filepath.Join(dir, "views.db"), io.Discard)
	require.NoError(t, err)
	defer o.abort()
	res, err := streamBuild(keys, o, partitionindex.Options{Partitioner: partitioner.Murmur3}, buildpath.Scratch, []int{500, 4096}, newProgress(nil))
	require.NoError(t, err)
	file, unmap, err := mapFile(o.tmp)
	require.NoError(t, err)
	defer unmap()
	var stderr strings.Builder
	require.NoError(t, checkStreamedPartials(keys, partitioner.Murmur3, file, res.partials, &stderr))
	lines := strings.SplitAfter(readFile(t, keys), "\n")
	key, _, _ := strings.Cut(lines[10], "\t")
	lines[10] = key + "\t12345\n"
	changed := filepath.Join(dir, "changed.tsv")
	writeFile(t, changed, strings.Join(lines, ""))
	err = checkStreamedPartials(changed, partitioner.Murmur3, file, res.partials, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2 of 2 early-open views failed")
	assert.Contains(t, stderr.String(), "view after key 500: key "+key+" (line 11): found at ")
	assert.Contains(t, stderr.String(), "want position 12345")
}

// --stats --hold-keys=false streams and still reports the build.
func TestStreamedStats(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeKeysTSV(t, keys, 5_000, 8)
	out := filepath.Join(dir, "out.db")
	r := bti("build", "--in", keys, "--out", out, "--stats", "json", "--hold-keys=false")
	requireCode(t, 0, r)
	var s buildStats
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s))
	st, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, 5000, s.Keys)
	assert.EqualValues(t, st.Size(), s.IndexBytes)
	assert.Equal(t, "murmur3", s.Partitioner)
	assert.Positive(t, s.BuildNs)
}

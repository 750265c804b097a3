package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tiny are bench settings that finish in well under a second per benchmark.
var tiny = []string{"--forks", "0", "--warmup", "0", "--iterations", "1", "--iter-time", "10ms"}

type benchJSON struct {
	Benchmark       string            `json:"benchmark"`
	Params          map[string]string `json:"params"`
	NsPerOp         *float64          `json:"ns_per_op"`
	NsPerOpError    *float64          `json:"ns_per_op_error"`
	AllocBytesPerOp *float64          `json:"alloc_bytes_per_op"`
	AllocsPerOp     *float64          `json:"allocs_per_op"`
	Forks           int               `json:"forks"`
}

// parseBenchJSON checks the output is one JSON document with provenance
// and results carrying the required fields, and returns the results.
func parseBenchJSON(t *testing.T, out string) []benchJSON {
	t.Helper()
	var doc struct {
		Provenance map[string]any  `json:"provenance"`
		Results    json.RawMessage `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	for _, f := range []string{"module", "revision", "revision_source", "go_version", "goos", "goarch", "cpu", "gomaxprocs", "command"} {
		require.Contains(t, doc.Provenance, f)
	}
	require.Equal(t, "github.com/bti-go/bti", doc.Provenance["module"])
	var raw []map[string]any
	require.NoError(t, json.Unmarshal(doc.Results, &raw), out)
	for _, o := range raw {
		for _, f := range []string{"benchmark", "params", "ns_per_op", "ns_per_op_error", "alloc_bytes_per_op", "allocs_per_op"} {
			require.Contains(t, o, f)
		}
	}
	var rs []benchJSON
	require.NoError(t, json.Unmarshal(doc.Results, &rs))
	for _, r := range rs {
		require.NotNil(t, r.NsPerOp)
		require.Positive(t, *r.NsPerOp, r.Benchmark)
		require.Contains(t, r.Params, "threads")
		require.Contains(t, r.Params, "keys")
	}
	return rs
}

func TestBenchJSONOnInput(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	r := bti(append([]string{"bench", "--in", c.keys, "--format", "json"}, tiny...)...)
	requireCode(t, 0, r)
	rs := parseBenchJSON(t, r.stdout)

	count := map[string]int{}
	for _, b := range rs {
		count[b.Benchmark]++
		if b.Benchmark != "new-builder" { // always one generated key
			assert.Equal(t, "1000", b.Params["keys"])
		}
		if b.Benchmark == "build" {
			assert.Contains(t, []string{"scratch", "reference"}, b.Params["path"])
			assert.Equal(t, "1", b.Params["threads"])
		}
	}
	threads := 1
	if runtime.GOMAXPROCS(0) > 1 {
		threads = 2 // threads=1 and threads=GOMAXPROCS
	}
	assert.Equal(t, map[string]int{"build": 2, "build-cold": 1, "new-builder": 1,
		"lookup-hit": threads, "lookup-miss": threads, "lookup-batch": threads, "ceiling": threads, "binary-search-hit": threads}, count)
}

func TestBenchFormats(t *testing.T) {
	c := smallGolden(t, "murmur3-10-int32")
	for _, f := range []string{"text", "csv", "benchfmt"} {
		r := bti(append([]string{"bench", "--benchmark", "build", "--in", c.keys, "--format", f}, tiny...)...)
		requireCode(t, 0, r, f)
		assert.Contains(t, strings.ToLower(r.stdout), "build", f)
		if f == "benchfmt" {
			// Named and configured as partitionindex's go test benchmarks,
			// so benchstat puts the two outputs in one table.
			assert.Contains(t, r.stdout, "\npkg: github.com/bti-go/bti/partitionindex\n")
			assert.Contains(t, r.stdout, "\nBenchmarkBuild/keys=10/set=keys.tsv/partitioner=murmur3/path=scratch/threads=1")
			assert.Contains(t, r.stdout, "\n# vcs-source: ")
		}
	}
	r := bti(append([]string{"bench", "--compare", "--rounds", "1", "--in", c.keys}, tiny...)...)
	requireCode(t, 0, r)
	assert.Contains(t, r.stdout, "reference")
	assert.Contains(t, r.stdout, "scratch")
}

// TestBenchBuiltIn runs the built-in sets (small size, a small lookup set).
func TestBenchBuiltIn(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 1.2 MB... 67 MB of keys; skipped under -short")
	}
	r := bti(append([]string{"bench", "--size", "small", "--lookup-keys", "2000", "--format", "json", "--iter-time", "2ms"}, tiny[:6]...)...)
	requireCode(t, 0, r)
	rs := parseBenchJSON(t, r.stdout)
	var prefixes []string
	for _, b := range rs {
		if b.Benchmark == "build" && b.Params["set"] == "byteordered-blob" && b.Params["path"] == "scratch" {
			prefixes = append(prefixes, b.Params["prefix"])
			assert.Equal(t, "16384", b.Params["keys"])
		}
	}
	assert.Equal(t, []string{"0", "64", "4096"}, prefixes)
}

func TestBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, "00\t1\nzz\t2\n")
	requireFails(t, "line 2: key is not hex", append([]string{"bench", "--in", keys, "--partitioner", "byteordered"}, tiny...)...)

	writeFile(t, keys, "")
	requireFails(t, "no keys to benchmark", append([]string{"bench", "--in", keys}, tiny...)...)
}

// TestBenchRunMatchesNothing: a --run pattern that selects no benchmark is
// an error naming the pattern and showing what IDs look like, not an empty
// table with exit status 0 (threads is never part of an ID).
func TestBenchRunMatchesNothing(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, "00\t1\n01\t2\n")
	r := requireFails(t, `--run "threads=1" matches no benchmark`, append([]string{"bench", "--in", keys, "--partitioner", "byteordered", "--run", "threads=1"}, tiny...)...)
	assert.Contains(t, r.stderr, "build/")
	assert.Empty(t, r.stdout)
}

// TestBenchForks runs the real binary so the fork children (re-executions
// with JMHSTYLE_FORK set) go through main's MaybeRunFork hook.
func TestBenchForks(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	bin := filepath.Join(t.TempDir(), "bti")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	cmd := exec.Command(bin, "bench", "--benchmark", "lookup", "--forks", "1", "--warmup", "0", "--iterations", "2",
		"--iter-time", "10ms", "--in", c.keys, "--format", "json")
	var stderr []byte
	stdout, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "stderr: %s", stderr)
	rs := parseBenchJSON(t, string(stdout))
	require.NotEmpty(t, rs)
	for _, r := range rs {
		assert.Equal(t, 1, r.Forks, r.Benchmark)
	}

	cmd = exec.Command(bin, "bench", "--compare", "--forks", "1", "--warmup", "0", "--iterations", "1", "--rounds", "2",
		"--iter-time", "10ms", "--in", c.keys)
	stdout, err = cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(stdout), "scratch")
}

// TestBenchIndexFile runs the lookups on an existing index with its own
// keys.tsv, cold ones included, and checks the names and that no
// binary-search baseline (which would load every key) runs.
func TestBenchIndexFile(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	r := bti(append([]string{"bench", "--benchmark", "lookup", "--index", c.db, "--in", c.keys, "--cold", "--format", "json"}, tiny...)...)
	requireCode(t, 0, r)
	count := map[string]int{}
	for _, b := range parseBenchJSON(t, r.stdout) {
		count[b.Benchmark]++
		assert.Equal(t, "1000", b.Params["keys"])
	}
	for _, name := range []string{"lookup-hit", "lookup-miss", "lookup-batch", "ceiling", "lookup-hit-cold", "lookup-miss-cold", "ceiling-cold", "lookup-batch-cold"} {
		assert.Positive(t, count[name], name)
	}
	assert.Zero(t, count["binary-search-hit"])
}

// TestBenchIndexForeignKeys: a keys.tsv with a key the index lacks is
// refused, naming the line, before anything is measured.
func TestBenchIndexForeignKeys(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	entries, err := keystsv.ReadFile(c.keys)
	require.NoError(t, err)
	var tsv []byte
	for i, e := range entries {
		if i == 700 {
			tsv = keystsv.AppendLine(tsv, []byte("not a key of the index"), 5)
		}
		tsv = keystsv.AppendLine(tsv, e.Key, e.Pos)
	}
	keys := filepath.Join(t.TempDir(), "keys.tsv")
	writeFile(t, keys, string(tsv))
	r := requireFails(t, "keys.tsv line 701: key 6e6f742061206b6579206f662074686520696e646578 is not in ", append([]string{"bench", "--benchmark", "lookup", "--index", c.db, "--in", keys}, tiny...)...)
	assert.Empty(t, r.stdout)
}

func TestBenchScaleFlags(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--index", c.db}, "--partitions needs --in"},
		{[]string{"--index", c.db, "--in", c.keys, "--benchmark", "build"}, "--benchmark lookup"},
		{[]string{"--cold"}, "--cold needs an index file"},
		{[]string{"--size", "huge", "--in", c.keys}, "--size huge runs on generated sets"},
		{[]string{"--size", "enormous"}, "want small, default or huge"},
	} {
		requireFails(t, tc.want, append([]string{"bench"}, tc.args...)...)
	}
}

package main

import (
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keystsv"
)

// tiny are bench settings that finish in well under a second per benchmark.
var tiny = []string{"--forks", "0", "--warmup", "0", "--iterations", "1", "--iter-time", "10ms"}

// parseBenchJSON checks the output is one JSON document with provenance
// and results carrying the required fields, each statistic a number (or
// null where undefined), and returns the results as the revision A/B mode
// reads them (parseSideJSON: what jmhstyle writes, seen from the reader
// that depends on it, rather than a third copy of its field list).
func parseBenchJSON(t *testing.T, out string) []sideResult {
	t.Helper()
	rs, prov, _, err := parseSideJSON([]byte(out))
	require.NoError(t, err, out)
	var doc struct {
		Provenance map[string]any   `json:"provenance"`
		Results    []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	require.NotNil(t, prov, "a document, not a bare array of results")
	for _, f := range []string{"module", "revision", "revision_source", "go_version", "goos", "goarch", "cpu", "gomaxprocs", "command"} {
		require.Contains(t, doc.Provenance, f)
	}
	require.Equal(t, "github.com/bti-go/bti", doc.Provenance["module"])
	for _, o := range doc.Results {
		require.Contains(t, o, "benchmark")
		require.Contains(t, o, "params")
		for _, f := range []string{"ns_per_op", "ns_per_op_error", "alloc_bytes_per_op", "allocs_per_op", "forks"} {
			require.Contains(t, o, f)
			if o[f] != nil {
				require.IsType(t, float64(0), o[f], f)
			}
		}
	}
	require.Len(t, rs, len(doc.Results))
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

	requireFails(t, "--jump-slots opens lookup indexes", "bench", "--benchmark", "build", "--jump-slots")
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
	require.NotEmpty(t, parseBenchJSON(t, string(stdout)))
	var doc struct {
		Results []struct {
			Benchmark string `json:"benchmark"`
			Forks     int    `json:"forks"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(stdout, &doc))
	for _, r := range doc.Results {
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

// tempRepo copies the module's sources (no tests, no test data) into a new
// git repository and commits them, tagged "base"; then commits a change
// that leaves the code as it is, tagged "cand". The revision A/B mode runs
// against it without touching the real repository's worktree list.
func tempRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	repo := t.TempDir()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		name := d.Name()
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !((strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) || strings.HasSuffix(name, ".s")) && name != "go.mod" && name != "go.sum" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	require.NoError(t, err)
	gitT(t, repo, "init", "-q")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "base")
	gitT(t, repo, "tag", "base")
	writeFile(t, filepath.Join(repo, "NOTES"), "a commit that changes no code\n")
	gitT(t, repo, "add", "NOTES")
	gitT(t, repo, "commit", "-q", "-m", "cand")
	gitT(t, repo, "tag", "cand")
	return repo
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com",
		"-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// requireNoLeftovers checks that the revision mode removed its worktrees
// and temporary files.
func requireNoLeftovers(t *testing.T, repo, tmp string) {
	t.Helper()
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left, "temporary files left in %s", tmp)
	lines := strings.Split(gitT(t, repo, "worktree", "list"), "\n")
	assert.Len(t, lines, 1, "worktrees left: %v", lines)
}

// TestBenchRevisionCompare runs the revision A/B mode end to end on a
// temporary repository: two revisions, two binaries, three alternating
// rounds of a tiny build benchmark, and checks the CSV, the JSON and the
// cleanup. Then a candidate that does not compile must fail cleanly.
func TestBenchRevisionCompare(t *testing.T) {
	repo := tempRepo(t)
	baseCommit := gitT(t, repo, "rev-parse", "base")
	candCommit := gitT(t, repo, "rev-parse", "cand")
	keys := filepath.Join(t.TempDir(), "keys.tsv")
	writeKeysTSV(t, keys, 300, 5)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the worktrees and binaries go
	out := filepath.Join(t.TempDir(), "cmp")

	const rounds, count = 3, 2
	r := bti("bench", "--compare=base..cand", "--repo", repo, "--out", out, "--rounds", strconv.Itoa(rounds),
		"--benchmark", "build", "--run", "^build/", "--in", keys,
		"--forks", "0", "--warmup", "0", "--count", strconv.Itoa(count), "--iter-time", "2ms")
	requireCode(t, 0, r)
	requireNoLeftovers(t, repo, tmp)
	assert.Contains(t, r.stdout, baseCommit)
	assert.Contains(t, r.stdout, candCommit)

	// The metadata: both sides' commits and builds, and the run order.
	var meta struct {
		Rounds    int      `json:"rounds"`
		BenchArgs []string `json:"bench_args"`
		CSV       string   `json:"csv"`
		Host      struct {
			GoVersion string `json:"go_version"`
			CPU       string `json:"cpu"`
		} `json:"host"`
		Baseline, Candidate struct {
			Rev, Commit string
			Build       []string `json:"build_command"`
			BuildInfo   struct {
				GoVersion string            `json:"go_version"`
				Module    string            `json:"module"`
				Settings  map[string]string `json:"settings"`
			} `json:"build_info"`
			Provenance struct {
				Revision       string `json:"revision"`
				Modified       *bool  `json:"modified"`
				RevisionSource string `json:"revision_source"`
			} `json:"provenance"`
		}
		Runs []struct {
			Seq     int      `json:"seq"`
			Round   int      `json:"round"`
			Side    string   `json:"side"`
			Commit  string   `json:"commit"`
			Command []string `json:"command"`
		} `json:"runs"`
		Comparisons []struct {
			Benchmark           string `json:"benchmark"`
			Baseline, Candidate struct {
				Scores   []float64 `json:"scores_ns_per_op"`
				Median   float64   `json:"median"`
				Min, Max float64
			}
			Disjoint  bool    `json:"disjoint"`
			ChangePct float64 `json:"change_pct"`
			Ratio     float64 `json:"ratio"`
		} `json:"comparisons"`
	}
	js := readFile(t, out+".json")
	require.NoError(t, json.Unmarshal([]byte(js), &meta), js)
	assert.Equal(t, rounds, meta.Rounds)
	assert.Equal(t, "cmp.csv", meta.CSV)
	assert.NotEmpty(t, meta.Host.GoVersion)
	assert.Contains(t, meta.BenchArgs, "--in="+keys)
	assert.Contains(t, meta.BenchArgs, "--run=^build/")
	assert.Equal(t, "base", meta.Baseline.Rev)
	assert.Equal(t, baseCommit, meta.Baseline.Commit)
	assert.Equal(t, candCommit, meta.Candidate.Commit)
	for _, side := range []struct {
		commit string
		build  []string
		module string
		trim   string
		prov   string
		source string
	}{
		{baseCommit, meta.Baseline.Build, meta.Baseline.BuildInfo.Module, meta.Baseline.BuildInfo.Settings["-trimpath"], meta.Baseline.Provenance.Revision, meta.Baseline.Provenance.RevisionSource},
		{candCommit, meta.Candidate.Build, meta.Candidate.BuildInfo.Module, meta.Candidate.BuildInfo.Settings["-trimpath"], meta.Candidate.Provenance.Revision, meta.Candidate.Provenance.RevisionSource},
	} {
		assert.Contains(t, side.build, "-trimpath")
		assert.Equal(t, "github.com/bti-go/bti", side.module)
		assert.Equal(t, "true", side.trim)
		// Each binary reports its own revision (stamped, or found by git in
		// its worktree), not the revision of the directory it was run from.
		assert.Equal(t, side.commit, side.prov)
		assert.Contains(t, []string{"buildinfo", "git"}, side.source)
	}
	require.Len(t, meta.Runs, 2*rounds)
	wantSides := []string{"baseline", "candidate", "candidate", "baseline", "baseline", "candidate"}
	for i, run := range meta.Runs {
		assert.Equal(t, i+1, run.Seq)
		assert.Equal(t, i/2+1, run.Round)
		assert.Equal(t, wantSides[i], run.Side, "run %d: sides alternate A B, B A, A B", i+1)
		if run.Side == "baseline" {
			assert.Equal(t, baseCommit, run.Commit)
		} else {
			assert.Equal(t, candCommit, run.Commit)
		}
		assert.Equal(t, "bench", run.Command[1])
		assert.Equal(t, "--format=json", run.Command[len(run.Command)-1])
	}

	// The CSV: every iteration of every run, and per run the score the
	// comparison used.
	f, err := os.Open(out + ".csv")
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, revCSVHeader, recs[0])
	const benches = 2 // build with path=scratch and path=reference
	require.Len(t, recs, 1+2*rounds*benches*count)
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	scores := map[string][]float64{} // side + benchmark -> per-round scores
	for _, rec := range recs[1:] {
		assert.Equal(t, "1", rec[col["threads"]])
		if rec[col["sample"]] != "1" {
			continue
		}
		v, err := strconv.ParseFloat(rec[col["run_score_ns_per_op"]], 64)
		require.NoError(t, err)
		key := rec[col["side"]] + " " + rec[col["benchmark"]]
		scores[key] = append(scores[key], v)
	}
	require.Len(t, meta.Comparisons, benches)
	for _, c := range meta.Comparisons {
		assert.True(t, strings.HasPrefix(c.Benchmark, "build/keys=300/partitioner=murmur3/path="), c.Benchmark)
		assert.Equal(t, scores["baseline "+c.Benchmark], c.Baseline.Scores)
		assert.Equal(t, scores["candidate "+c.Benchmark], c.Candidate.Scores)
		require.Len(t, c.Baseline.Scores, rounds)
		assert.Equal(t, median(c.Baseline.Scores), c.Baseline.Median)
		assert.Equal(t, median(c.Candidate.Scores), c.Candidate.Median)
		assert.Equal(t, c.Baseline.Max < c.Candidate.Min || c.Candidate.Max < c.Baseline.Min, c.Disjoint)
		assert.InDelta(t, c.Candidate.Median/c.Baseline.Median, c.Ratio, 1e-12)
		assert.InDelta(t, (c.Ratio-1)*100, c.ChangePct, 1e-9)
		assert.Contains(t, r.stdout, c.Benchmark)
	}

	// A candidate that does not build: a clear error, nothing left behind.
	writeFile(t, filepath.Join(repo, "cmd", "bti", "broken.go"), "package main\n\nfunc broken() { undefined() }\n")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "broken")
	r = bti("bench", "--baseline", "base", "--candidate", "HEAD", "--repo", repo, "--out", out+"-broken",
		"--benchmark", "build", "--in", keys, "--forks", "0", "--warmup", "0", "--count", "1", "--iter-time", "1ms")
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "building candidate HEAD")
	assert.Contains(t, r.stderr, "undefined")
	requireNoLeftovers(t, repo, tmp)
	_, err = os.Stat(out + "-broken.csv")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestBenchRevisionUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare=HEAD"}, "want BASE..CAND"},
		{[]string{"--compare=HEAD.."}, "want BASE..CAND"},
		{[]string{"--compare=a...b"}, "want BASE..CAND"},
		{[]string{"--baseline", "HEAD"}, "--baseline and --candidate go together"},
		{[]string{"--compare=a..b", "--baseline", "c"}, "not both"},
		{[]string{"--compare=a..b", "--format", "json"}, "--format"},
		{[]string{"--out", "x"}, "--out and --repo are for the revision A/B mode"},
		{[]string{"--compare=HEAD..nosuchrevision-xyz"}, "candidate revision \"nosuchrevision-xyz\": not a commit"},
	} {
		r := bti(append([]string{"bench"}, tc.args...)...)
		requireCode(t, 2, r, tc.args)
		assert.Contains(t, r.stderr, tc.want, tc.args)
	}
}

// TestCompareRunsFixed checks the revision statistics on fixed numbers:
// per-round scores in round order, medians, ranges, disjointness (touching
// ranges are not disjoint), the change, and benchmarks present on one side
// only.
func TestCompareRunsFixed(t *testing.T) {
	res := func(name string, threads string, ns float64) sideResult {
		return sideResult{Benchmark: name, Params: map[string]string{"threads": threads, "keys": "10", "set": "s"},
			NsPerOp: &ns, AllocBytesPerOp: ns / 10, RawNsPerOp: []float64{ns}}
	}
	meta := &revMeta{Runs: []*revRun{
		{Side: "baseline", results: []sideResult{res("build", "1", 100), res("get", "1", 50), res("old", "1", 1)}},
		{Side: "candidate", results: []sideResult{res("build", "1", 80), res("get", "1", 52), res("new", "1", 1)}},
		{Side: "candidate", results: []sideResult{res("build", "1", 82), res("get", "1", 49)}},
		{Side: "baseline", results: []sideResult{res("build", "1", 104), res("get", "1", 51)}},
		{Side: "baseline", results: []sideResult{res("build", "1", 98), res("get", "1", 52)}},
		{Side: "candidate", results: []sideResult{res("build", "1", 90), res("get", "1", 60)}},
	}}
	compareRuns(meta)
	require.Len(t, meta.Comparisons, 2)
	b := meta.Comparisons[0]
	assert.Equal(t, "build/keys=10/set=s/threads=1", b.Benchmark)
	assert.Equal(t, []float64{100, 104, 98}, b.Baseline.Scores)
	assert.Equal(t, []float64{80, 82, 90}, b.Candidate.Scores)
	assert.Equal(t, 100.0, b.Baseline.Median)
	assert.Equal(t, 82.0, b.Candidate.Median)
	assert.Equal(t, [2]float64{98, 104}, [2]float64{b.Baseline.Min, b.Baseline.Max})
	assert.Equal(t, [2]float64{80, 90}, [2]float64{b.Candidate.Min, b.Candidate.Max})
	assert.True(t, b.Disjoint, "90 < 98: every candidate round beat every baseline round")
	assert.InDelta(t, -18.0, b.ChangePct, 1e-9)
	assert.InDelta(t, 0.82, b.Ratio, 1e-12)
	assert.Equal(t, 10.0, b.Baseline.BytesPerOp) // median of 10, 10.4, 9.8

	g := meta.Comparisons[1]
	assert.Equal(t, 51.0, g.Baseline.Median)
	assert.Equal(t, 52.0, g.Candidate.Median)
	assert.False(t, g.Disjoint, "49..60 overlaps 50..52")
	assert.Equal(t, []string{"old/keys=10/set=s/threads=1"}, meta.OnlyBaseline)
	assert.Equal(t, []string{"new/keys=10/set=s/threads=1"}, meta.OnlyCandidate)

	// Touching ranges are not disjoint.
	meta = &revMeta{Runs: []*revRun{
		{Side: "baseline", results: []sideResult{res("x", "1", 10)}},
		{Side: "candidate", results: []sideResult{res("x", "1", 10)}},
	}}
	compareRuns(meta)
	assert.False(t, meta.Comparisons[0].Disjoint)
	assert.Equal(t, 0.0, meta.Comparisons[0].ChangePct)
}

// TestParseSideJSON reads both shapes of bti bench --format json: the
// current object and the bare array of revisions before provenance.
func TestParseSideJSON(t *testing.T) {
	old := `[{"benchmark":"build","params":{"keys":"5","threads":"1"},"ns_per_op":12.5,"alloc_bytes_per_op":0,"allocs_per_op":0,"raw_ns_per_op":[12,13]}]`
	rs, prov, procs, err := parseSideJSON([]byte(old))
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Equal(t, "build/keys=5/threads=1", rs[0].id())
	assert.Nil(t, prov)
	assert.Nil(t, procs)

	cur := `{"provenance":{"revision":"abc"},"processes":[{"seq":1}],"results":[{"benchmark":"get","params":{"threads":"2","b":"1","a":"2"},"ns_per_op":null}]}`
	rs, prov, procs, err = parseSideJSON([]byte(cur))
	require.NoError(t, err)
	assert.Equal(t, "get/a=2/b=1/threads=2", rs[0].id())
	assert.Nil(t, rs[0].NsPerOp)
	assert.JSONEq(t, `{"revision":"abc"}`, string(prov))
	assert.JSONEq(t, `[{"seq":1}]`, string(procs))

	_, _, _, err = parseSideJSON([]byte("goos: linux\n"))
	assert.Error(t, err)
}

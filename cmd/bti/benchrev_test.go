package main

import (
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	js, err := os.ReadFile(out + ".json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(js, &meta), string(js))
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

package main

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bti-go/bti/jmhstyle"
)

// The revision A/B mode of bti bench (--compare=BASE..CAND): two git
// revisions built into two binaries from temporary worktrees, run as
// alternating fresh processes. See benchUsage.

// revOptions are the flags of the revision mode.
type revOptions struct {
	baseline, candidate string
	out, repo           string
	command             []string // the subcommand each side runs: nil for "bench", or "rows", "bench"
	forward             []string // bench flags passed to both sides
}

func (r *revOptions) enabled() bool { return r.baseline != "" }

// notForwarded are the flags that belong to the comparing process itself.
var notForwarded = map[string]bool{
	"compare": true, "ab": true, "baseline": true, "candidate": true, "rounds": true,
	"out": true, "repo": true, "v": true, "format": true,
}

// resolve takes the revisions from --compare=BASE..CAND or --baseline and
// --candidate, and collects the bench flags to forward: exactly those set
// on the command line, each as --name=value.
func (r *revOptions) resolve(fs *flag.FlagSet, c *compareFlag) error {
	if c.revs != "" {
		base, cand, ok := strings.Cut(c.revs, "..")
		if !ok || base == "" || cand == "" || strings.HasPrefix(cand, ".") {
			return usagef("--compare=%s: want BASE..CAND (two git revisions)", c.revs)
		}
		if r.baseline != "" || r.candidate != "" {
			return usagef("give the revisions either as --compare=BASE..CAND or as --baseline and --candidate, not both")
		}
		r.baseline, r.candidate = base, cand
	}
	if (r.baseline == "") != (r.candidate == "") {
		return usagef("--baseline and --candidate go together")
	}
	if !r.enabled() {
		if r.out != "" || r.repo != "" {
			return usagef("--out and --repo are for the revision A/B mode (--compare=BASE..CAND)")
		}
		return nil
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "format":
			err = usagef("--format: the revision A/B mode prints a table and writes its own CSV and JSON (--out)")
		case notForwarded[f.Name]:
		case f.Name == "in":
			abs, aerr := filepath.Abs(f.Value.String())
			if aerr != nil {
				err = aerr
			}
			r.forward = append(r.forward, "--in="+abs)
		default:
			r.forward = append(r.forward, "--"+f.Name+"="+f.Value.String())
		}
	})
	return err
}

// revSide is one side of the comparison.
type revSide struct {
	Label      string          `json:"label"`    // baseline or candidate
	Rev        string          `json:"rev"`      // as given
	Commit     string          `json:"commit"`   // resolved
	Worktree   string          `json:"worktree"` // temporary, removed on exit
	Binary     string          `json:"binary"`   // temporary, removed on exit
	Build      []string        `json:"build_command"`
	BuildInfo  *revBuildInfo   `json:"build_info"`
	Provenance json.RawMessage `json:"provenance"` // as its first run reported it; null if it reports none
}

// revBuildInfo is what the binary says about how it was built.
type revBuildInfo struct {
	GoVersion string            `json:"go_version"`
	Module    string            `json:"module"`
	Settings  map[string]string `json:"settings"` // -trimpath, vcs.revision, vcs.modified, ...
}

// revRun is one process run of one side.
type revRun struct {
	Seq       int             `json:"seq"`
	Round     int             `json:"round"`
	Side      string          `json:"side"`
	Commit    string          `json:"commit"`
	Command   []string        `json:"command"`
	Started   string          `json:"started"`
	Seconds   float64         `json:"seconds"`
	Processes json.RawMessage `json:"processes"` // the side's own fork order, if it reports one

	results []sideResult
}

// sideResult is one result of a side's "bench --format json" output, in
// the form every revision writes (old ones a bare array of these).
type sideResult struct {
	Benchmark       string            `json:"benchmark"`
	Params          map[string]string `json:"params"`
	NsPerOp         *float64          `json:"ns_per_op"`
	AllocBytesPerOp float64           `json:"alloc_bytes_per_op"`
	AllocsPerOp     float64           `json:"allocs_per_op"`
	RawNsPerOp      []float64         `json:"raw_ns_per_op"`
	Info            map[string]string `json:"info"`
}

// id names the result by benchmark and parameters, sorted by key with
// threads last: JSON params are a map, so their order is not kept.
func (r sideResult) id() string {
	keys := make([]string, 0, len(r.Params))
	for k := range r.Params {
		if k != "threads" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if _, ok := r.Params["threads"]; ok {
		keys = append(keys, "threads")
	}
	var sb strings.Builder
	sb.WriteString(r.Benchmark)
	for _, k := range keys {
		sb.WriteString("/" + k + "=" + r.Params[k])
	}
	return sb.String()
}

// revComparison is the outcome for one benchmark.
type revComparison struct {
	Benchmark string        `json:"benchmark"`
	Baseline  revSideScores `json:"baseline"`
	Candidate revSideScores `json:"candidate"`
	Disjoint  bool          `json:"disjoint"`
	ChangePct float64       `json:"change_pct"` // candidate vs baseline median; negative is faster
	Ratio     float64       `json:"ratio"`      // candidate median / baseline median
}

type revSideScores struct {
	Scores      []float64 `json:"scores_ns_per_op"` // per round, in round order
	Median      float64   `json:"median"`
	Min         float64   `json:"min"`
	Max         float64   `json:"max"`
	BytesPerOp  float64   `json:"alloc_bytes_per_op_median"`
	AllocsPerOp float64   `json:"allocs_per_op_median"`
}

// revMeta is the metadata JSON written beside the CSV.
type revMeta struct {
	Command       []string              `json:"command"`
	Repo          string                `json:"repo"`
	Rounds        int                   `json:"rounds"`
	BenchArgs     []string              `json:"bench_args"`
	CSV           string                `json:"csv"`
	Host          jmhstyle.Provenance   `json:"host"` // the comparing process
	Baseline      *revSide              `json:"baseline"`
	Candidate     *revSide              `json:"candidate"`
	Runs          []*revRun             `json:"runs"` // in the order they ran
	Comparisons   []revComparison       `json:"comparisons"`
	OnlyBaseline  []string              `json:"only_in_baseline"`
	OnlyCandidate []string              `json:"only_in_candidate"`
	Infos         map[string]sideInfoes `json:"info,omitempty"` // per side, per benchmark: seeds, digests
}

type sideInfoes map[string]map[string]string

func runRevisionCompare(o *benchOptions, stdout, stderr io.Writer) (err error) {
	ctx, stop := interruptible()
	defer stop()
	logw := o.cfg.Log // nil: quiet
	logf := func(format string, a ...any) {
		if logw != nil {
			fmt.Fprintf(logw, format, a...)
		}
	}

	repoDir := o.rev.repo
	if repoDir == "" {
		repoDir = "."
	}
	repo, err := gitIn(ctx, repoDir, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("--repo %s: not inside a git checkout: %w", repoDir, err)
	}
	base := &revSide{Label: "baseline", Rev: o.rev.baseline}
	cand := &revSide{Label: "candidate", Rev: o.rev.candidate}
	for _, sd := range []*revSide{base, cand} {
		if sd.Commit, err = gitIn(ctx, repo, "rev-parse", "--verify", "--quiet", sd.Rev+"^{commit}"); err != nil {
			return usagef("%s revision %q: not a commit in %s", sd.Label, sd.Rev, repo)
		}
	}
	prefix := o.rev.out
	if prefix == "" {
		prefix = "bti-compare-" + shortRev(base.Commit) + "-" + shortRev(cand.Commit)
	}

	tmp, err := os.MkdirTemp("", "bti-compare-")
	if err != nil {
		return err
	}
	// Remove what was created whatever happens: a worktree left behind
	// stays registered in the repository and blocks its revision.
	var worktrees []string
	defer func() {
		// A fresh context: ctx may be cancelled already (interrupt).
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var errs []error
		for _, wt := range worktrees {
			if _, rerr := gitIn(cctx, repo, "worktree", "remove", "--force", wt); rerr != nil {
				errs = append(errs, fmt.Errorf("removing worktree %s: %w", wt, rerr))
			}
		}
		if rerr := os.RemoveAll(tmp); rerr != nil {
			errs = append(errs, rerr)
		}
		if _, rerr := gitIn(cctx, repo, "worktree", "prune"); rerr != nil {
			errs = append(errs, fmt.Errorf("git worktree prune: %w", rerr))
		}
		if cerr := errors.Join(errs...); cerr != nil {
			err = errors.Join(err, cerr)
		}
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("interrupted; temporary worktrees removed: %w", err)
		}
	}()

	for _, sd := range []*revSide{base, cand} {
		sd.Worktree = filepath.Join(tmp, sd.Label)
		sd.Binary = filepath.Join(tmp, "bti-"+sd.Label)
		logf("# %s %s (%s): worktree and build\n", sd.Label, sd.Rev, shortRev(sd.Commit))
		if _, err := gitIn(ctx, repo, "worktree", "add", "--detach", "--quiet", sd.Worktree, sd.Commit); err != nil {
			return fmt.Errorf("%s: git worktree add: %w", sd.Label, err)
		}
		worktrees = append(worktrees, sd.Worktree)
		if err := buildSide(ctx, sd); err != nil {
			return err
		}
	}

	meta := &revMeta{
		Command: append([]string(nil), os.Args...), Repo: repo, Rounds: o.rounds, BenchArgs: o.rev.forward,
		CSV: filepath.Base(prefix) + ".csv", Host: jmhstyle.CollectProvenance(), Baseline: base, Candidate: cand,
	}
	for round := range o.rounds {
		order := []*revSide{base, cand}
		if round%2 == 1 {
			order[0], order[1] = cand, base
		}
		for _, sd := range order {
			logf("# round %d of %d: %s\n", round+1, o.rounds, sd.Label)
			run, err := runSide(ctx, sd, o.rev.command, o.rev.forward)
			if err != nil {
				return fmt.Errorf("round %d: %w", round+1, err)
			}
			run.Seq, run.Round = len(meta.Runs)+1, round+1
			meta.Runs = append(meta.Runs, run)
		}
	}
	compareRuns(meta)
	if err := writeRevOutputs(prefix, meta); err != nil {
		return err
	}
	if err := writeRevTable(stdout, meta); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s.csv (every measurement) and %s.json (provenance, commands, order)\n", prefix, prefix)
	return nil
}

func shortRev(commit string) string { return commit[:min(len(commit), 7)] }

// gitIn runs git in dir and returns its trimmed standard output; a failure
// carries git's standard error.
func gitIn(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// buildSide builds cmd/bti of the side's worktree. -trimpath makes the
// build independent of the (temporary) directory, so identical packages
// come from the build cache and the binary holds no temporary paths;
// -buildvcs=auto stamps the revision where go can (overriding a
// GOFLAGS=-buildvcs=false) without failing where it cannot.
func buildSide(ctx context.Context, sd *revSide) error {
	sd.Build = []string{"go", "build", "-trimpath", "-buildvcs=auto", "-o", sd.Binary, "./cmd/bti"}
	cmd := exec.CommandContext(ctx, sd.Build[0], sd.Build[1:]...)
	cmd.Dir = sd.Worktree
	cmd.Env = withoutEnv(os.Environ(), jmhstyle.EnvFork)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s %s (%s): %w\n%s", sd.Label, sd.Rev, shortRev(sd.Commit), err, bytes.TrimSpace(out))
	}
	bi, err := buildinfo.ReadFile(sd.Binary)
	if err != nil {
		return fmt.Errorf("%s: reading build info: %w", sd.Label, err)
	}
	sd.BuildInfo = &revBuildInfo{GoVersion: bi.GoVersion, Module: bi.Main.Path, Settings: map[string]string{}}
	for _, s := range bi.Settings {
		sd.BuildInfo.Settings[s.Key] = s.Value
	}
	return nil
}

// withoutEnv drops a variable, so a side never starts as a fork child.
func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// runSide runs one fresh process of the side's binary (its subcommand
// command, "bench" when nil) and parses its JSON.
func runSide(ctx context.Context, sd *revSide, command, forward []string) (*revRun, error) {
	if command == nil {
		command = []string{"bench"}
	}
	args := append(append(append([]string(nil), command...), forward...), "--format=json")
	run := &revRun{Side: sd.Label, Commit: sd.Commit, Command: append([]string{sd.Binary}, args...)}
	cmd := exec.CommandContext(ctx, sd.Binary, args...)
	cmd.Env = withoutEnv(os.Environ(), jmhstyle.EnvFork)
	// In its own worktree, a binary without a VCS stamp finds its own
	// revision with git (jmhstyle provenance), not the caller's.
	cmd.Dir = sd.Worktree
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	run.Started = start.UTC().Format(time.RFC3339Nano)
	err := cmd.Run()
	run.Seconds = time.Since(start).Seconds()
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %s: %w\n%s", sd.Label, shortRev(sd.Commit), strings.Join(args, " "), err, tail(stderr.String(), 4096))
	}
	var prov json.RawMessage
	run.results, prov, run.Processes, err = parseSideJSON(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s (%s): output of %s: %w", sd.Label, shortRev(sd.Commit), strings.Join(args, " "), err)
	}
	if sd.Provenance == nil {
		sd.Provenance = prov
	}
	return run, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// parseSideJSON reads "bti bench --format json" output: an object with
// provenance, processes and results, or (revisions before provenance) a
// bare array of results.
func parseSideJSON(data []byte) (rs []sideResult, prov, procs json.RawMessage, err error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &rs)
		return rs, nil, nil, err
	}
	var doc struct {
		Provenance json.RawMessage `json:"provenance"`
		Processes  json.RawMessage `json:"processes"`
		Results    []sideResult    `json:"results"`
	}
	if err := json.Unmarshal(trimmed, &doc); err != nil {
		return nil, nil, nil, err
	}
	return doc.Results, doc.Provenance, doc.Processes, nil
}

// compareRuns fills the comparisons from the runs: per benchmark ID, the
// per-round scores of each side, compared with jmhstyle.CompareScores.
func compareRuns(meta *revMeta) {
	type acc struct {
		scores, bytes, allocs []float64
	}
	var order []string // IDs in first-run order
	listed := map[string]bool{}
	sides := map[string]map[string]*acc{"baseline": {}, "candidate": {}}
	infos := map[string]sideInfoes{"baseline": {}, "candidate": {}}
	for _, run := range meta.Runs {
		for _, r := range run.results {
			if r.NsPerOp == nil {
				continue
			}
			id := r.id()
			a := sides[run.Side][id]
			if a == nil {
				a = &acc{}
				sides[run.Side][id] = a
			}
			if !listed[id] {
				listed[id] = true
				order = append(order, id)
			}
			a.scores = append(a.scores, *r.NsPerOp)
			a.bytes = append(a.bytes, r.AllocBytesPerOp)
			a.allocs = append(a.allocs, r.AllocsPerOp)
			if len(r.Info) > 0 && infos[run.Side][id] == nil {
				infos[run.Side][id] = r.Info
			}
		}
	}
	for _, id := range order {
		b, c := sides["baseline"][id], sides["candidate"][id]
		switch {
		case c == nil:
			meta.OnlyBaseline = append(meta.OnlyBaseline, id)
			continue
		case b == nil:
			meta.OnlyCandidate = append(meta.OnlyCandidate, id)
			continue
		}
		cmp := jmhstyle.CompareScores(b.scores, c.scores)
		side := func(s jmhstyle.Side, a *acc) revSideScores {
			return revSideScores{Scores: s.Scores, Median: s.Median, Min: s.Min, Max: s.Max,
				BytesPerOp: median(a.bytes), AllocsPerOp: median(a.allocs)}
		}
		meta.Comparisons = append(meta.Comparisons, revComparison{
			Benchmark: id, Baseline: side(cmp.Baseline, b), Candidate: side(cmp.Candidate, c),
			Disjoint: cmp.Disjoint, ChangePct: cmp.ChangePct, Ratio: cmp.Candidate.Median / cmp.Baseline.Median,
		})
	}
	if len(infos["baseline"]) > 0 || len(infos["candidate"]) > 0 {
		meta.Infos = infos
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// revCSVHeader is the CSV layout: one row per measurement iteration.
var revCSVHeader = []string{"seq", "round", "side", "commit", "benchmark", "threads", "sample",
	"ns_per_op", "run_score_ns_per_op", "run_alloc_bytes_per_op", "run_allocs_per_op"}

// writeRevOutputs writes PREFIX.csv and PREFIX.json, each complete or not
// at all (written to a temporary name and renamed).
func writeRevOutputs(prefix string, meta *revMeta) error {
	var csvBuf bytes.Buffer
	cw := csv.NewWriter(&csvBuf)
	_ = cw.Write(revCSVHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, run := range meta.Runs {
		for _, r := range run.results {
			if r.NsPerOp == nil {
				continue
			}
			for i, ns := range r.RawNsPerOp {
				_ = cw.Write([]string{strconv.Itoa(run.Seq), strconv.Itoa(run.Round), run.Side, run.Commit, r.id(),
					r.Params["threads"], strconv.Itoa(i + 1), f(ns), f(*r.NsPerOp), f(r.AllocBytesPerOp), f(r.AllocsPerOp)})
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	js, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	outs, err := createOutputs(io.Discard, nil, prefix+".csv", prefix+".json")
	if err != nil {
		return err
	}
	for i, data := range [][]byte{csvBuf.Bytes(), append(js, '\n')} {
		if err := writeAndCommit(outs[i], data); err != nil {
			outs[1].abort()
			return err
		}
	}
	return nil
}

// writeRevTable prints the comparison table.
func writeRevTable(w io.Writer, meta *revMeta) error {
	fmt.Fprintf(w, "baseline  %s = %s\ncandidate %s = %s\n%d rounds, alternating fresh processes; ns/op per round is the mean of that process's iterations\n\n",
		meta.Baseline.Rev, meta.Baseline.Commit, meta.Candidate.Rev, meta.Candidate.Commit, meta.Rounds)
	rows := [][]string{{"benchmark", "base median", "base range", "cand median", "cand range", "change", "ratio", "disjoint", "B/op base", "B/op cand"}}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	for _, c := range meta.Comparisons {
		disjoint := "no"
		if c.Disjoint {
			disjoint = "yes"
		}
		rows = append(rows, []string{c.Benchmark, num(c.Baseline.Median), num(c.Baseline.Min) + " … " + num(c.Baseline.Max),
			num(c.Candidate.Median), num(c.Candidate.Min) + " … " + num(c.Candidate.Max),
			fmt.Sprintf("%+.1f%%", c.ChangePct), fmt.Sprintf("%.3f", c.Ratio), disjoint,
			num(c.Baseline.BytesPerOp), num(c.Candidate.BytesPerOp)})
	}
	if err := jmhstyle.WriteTable(w, rows); err != nil {
		return err
	}
	for _, id := range meta.OnlyBaseline {
		fmt.Fprintf(w, "only in baseline: %s\n", id)
	}
	for _, id := range meta.OnlyCandidate {
		fmt.Fprintf(w, "only in candidate: %s\n", id)
	}
	return nil
}

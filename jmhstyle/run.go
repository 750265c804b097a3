package jmhstyle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Param is one benchmark parameter, printed as "key=value". Parameters are
// an ordered slice rather than a map so that names and report columns come
// out in the same order on every run.
type Param struct {
	Key, Value string
}

// Benchmark is one named, parameterised operation to measure.
//
// Setup runs outside the timed region. It returns op, which must perform
// the measured operation exactly n times: the runner calls op with growing n
// so the cost of reading the clock is amortised over a batch, as JMH does
// with its generated loop. teardown (may be nil) releases what Setup built.
//
// With Config.Threads = T, Setup is called T times, once per worker
// goroutine, so each thread owns its state (JMH's Scope.Thread); data that
// is read-only and shared should be built once and captured by Setup.
type Benchmark struct {
	Name   string
	Params []Param
	Setup  func() (op func(n int), teardown func(), err error)

	// OpsPerInvocation is how many operations one call op(1) performs
	// (JMH's @OperationsPerInvocation), so ns/op, B/op and allocs/op are
	// per operation; 0 means 1. A whole-index build measured per key sets
	// it to the number of keys.
	OpsPerInvocation int
	// SingleShot makes every iteration exactly one call op(1), timed alone
	// (JMH's SingleShotTime mode): for operations that are measured once
	// per process, such as a cold build, where repeating them in a loop
	// would measure the warm case instead. It requires one thread.
	SingleShot bool
	// Info, if not nil, is called after the measurement in the process that
	// ran it (the fork child when forking) and describes what was measured:
	// seeds, a digest of the input, peak memory. It lands in Result.Info.
	Info func() []Param
	// BeforeIteration, if not nil, runs once before every warmup and
	// measurement iteration, outside the timed region and before the
	// allocation counters are read (JMH's @Setup(Level.Iteration)): for
	// state that one iteration spoils for the next, such as evicting a
	// file from the page cache before each cold iteration. Its error
	// stops the run.
	BeforeIteration func() error
}

// ID names the benchmark together with its parameters, "Name/k=v/k2=v2".
// It is how a fork child finds its benchmark, so it must be unique among
// the benchmarks passed to Run, Compare and MaybeRunFork.
func (b Benchmark) ID() string {
	var sb strings.Builder
	sb.WriteString(b.Name)
	for _, p := range b.Params {
		sb.WriteString("/")
		sb.WriteString(p.Key)
		sb.WriteString("=")
		sb.WriteString(p.Value)
	}
	return sb.String()
}

// Defaults used for zero Config fields. They are smaller than JMH's (10 s
// iterations) because Go's runtime reaches steady state much sooner than a
// JIT does.
const (
	DefaultWarmup      = 5
	DefaultMeasurement = 5
	DefaultIterTime    = 200 * time.Millisecond
)

// Config controls how benchmarks are run. The zero value runs in-process
// with the defaults above and one thread.
type Config struct {
	// Forks is the number of fresh processes per benchmark. Each re-executes
	// this binary (see MaybeRunFork), so JIT-like effects of earlier
	// benchmarks (heap size, GC pacing, cache state) do not leak in.
	// 0 runs in the current process, which is what tests want.
	Forks int
	// Warmup is the number of unreported iterations per fork; 0 means
	// DefaultWarmup and a negative value means none.
	Warmup int
	// Measurement is the number of reported iterations per fork; 0 means
	// DefaultMeasurement.
	Measurement int
	// IterTime is the duration of one iteration; 0 means DefaultIterTime.
	IterTime time.Duration
	// Threads is the number of goroutines running op at once; 0 means 1.
	// The score is the mean over threads of each thread's time per op, as
	// in JMH's avgt mode, so it shows contention rather than hiding it.
	Threads int
	// Log, if not nil, receives JMH-style progress lines.
	Log io.Writer
	// ForkArgs are the arguments a fork child is started with; nil means
	// this process's own (os.Args[1:]). A test binary passes flags that run
	// only its fork hook, e.g. -test.run=^TestFork$ -test.bench=^$.
	ForkArgs []string
}

// plan is a Config with defaults resolved; it is what a fork child receives.
type plan struct {
	Warmup      int           `json:"warmup"`
	Measurement int           `json:"measurement"`
	IterTime    time.Duration `json:"iter_time_ns"`
	Threads     int           `json:"threads"`
	ForkArgs    []string      `json:"-"` // for the parent only
}

func (c Config) plan() plan {
	p := plan{Warmup: c.Warmup, Measurement: c.Measurement, IterTime: c.IterTime, Threads: c.Threads, ForkArgs: c.ForkArgs}
	switch {
	case p.Warmup == 0:
		p.Warmup = DefaultWarmup
	case p.Warmup < 0:
		p.Warmup = 0
	}
	if p.Measurement <= 0 {
		p.Measurement = DefaultMeasurement
	}
	if p.IterTime <= 0 {
		p.IterTime = DefaultIterTime
	}
	if p.Threads <= 0 {
		p.Threads = 1
	}
	return p
}

// Sample is one measurement iteration.
type Sample struct {
	NsPerOp float64 // mean over threads of thread time / thread ops
	Ops     int64   // operations completed by all threads
	Bytes   uint64  // heap bytes allocated during the iteration
	Allocs  uint64  // heap objects allocated during the iteration
	Fork    int     // fork index; 0 when run in-process
	PID     int     // process that ran the iteration
}

// Result is the outcome of one benchmark over all forks.
type Result struct {
	Benchmark string
	Params    []Param
	Threads   int
	Forks     int      // 0 if run in-process
	Samples   []Sample // measurement iterations, fork by fork

	Score       float64 // mean ns/op over Samples
	Error       float64 // half-width of the 99.9% CI of Score; NaN if one sample
	Min, Max    float64 // extreme ns/op among Samples
	BytesPerOp  float64 // heap bytes per op over all Samples
	AllocsPerOp float64 // heap objects per op over all Samples

	// Info is what Benchmark.Info reported. A key whose value differed
	// between forks holds the values of all forks in fork order, separated
	// by spaces.
	Info []Param
}

// PIDs returns the distinct processes that produced the samples, in order.
func (r Result) PIDs() []int {
	var pids []int
	for _, s := range r.Samples {
		if len(pids) == 0 || pids[len(pids)-1] != s.PID {
			pids = append(pids, s.PID)
		}
	}
	return pids
}

// newResult derives the summary statistics from the raw samples.
func newResult(b Benchmark, p plan, forks int, samples []Sample, infos [][]Param) Result {
	r := Result{Benchmark: b.Name, Params: b.Params, Threads: p.Threads, Forks: forks, Samples: samples,
		Info: mergeInfo(infos)}
	ns := make([]float64, len(samples))
	var ops int64
	var bytes, allocs uint64
	for i, s := range samples {
		ns[i] = s.NsPerOp
		ops += s.Ops
		bytes += s.Bytes
		allocs += s.Allocs
	}
	r.Score = mean(ns)
	r.Error = ciHalfWidth(ns, confidence)
	r.Min, r.Max = minMax(ns)
	if ops > 0 {
		// Weight by ops, not by iteration: allocation counts are exact
		// totals, so the total ratio is the least noisy estimate.
		r.BytesPerOp = float64(bytes) / float64(ops)
		r.AllocsPerOp = float64(allocs) / float64(ops)
	}
	return r
}

// mergeInfo merges the Info of each fork (see Result.Info).
func mergeInfo(infos [][]Param) []Param {
	var out []Param
	index := map[string]int{}
	values := map[string][]string{}
	for _, info := range infos {
		for _, p := range info {
			if _, ok := index[p.Key]; !ok {
				index[p.Key] = len(out)
				out = append(out, p)
			}
			values[p.Key] = append(values[p.Key], p.Value)
		}
	}
	for i, p := range out {
		vs := values[p.Key]
		for _, v := range vs[1:] {
			if v != vs[0] {
				out[i].Value = strings.Join(vs, " ")
				break
			}
		}
	}
	return out
}

// Run runs each benchmark with cfg and returns one Result per benchmark.
// It stops at the first failure and returns the results so far with the
// error. With cfg.Forks > 0 the program must call MaybeRunFork with the
// same benchmarks before doing anything else.
func Run(benches []Benchmark, cfg Config) ([]Result, error) {
	if err := checkBenchmarks(benches); err != nil {
		return nil, err
	}
	var results []Result
	for _, b := range benches {
		r, err := runBenchmark(b, cfg)
		if err != nil {
			return results, err
		}
		results = append(results, r)
	}
	return results, nil
}

// checkBenchmarks rejects benchmarks a fork child could not identify.
func checkBenchmarks(benches []Benchmark) error {
	seen := make(map[string]bool, len(benches))
	for _, b := range benches {
		id := b.ID()
		switch {
		case b.Name == "":
			return errors.New("jmhstyle: benchmark without a name")
		case b.Setup == nil:
			return fmt.Errorf("jmhstyle: benchmark %s has no Setup", id)
		case seen[id]:
			return fmt.Errorf("jmhstyle: duplicate benchmark %s", id)
		case b.OpsPerInvocation < 0:
			return fmt.Errorf("jmhstyle: benchmark %s has OpsPerInvocation %d", id, b.OpsPerInvocation)
		}
		seen[id] = true
	}
	return nil
}

func runBenchmark(b Benchmark, cfg Config) (Result, error) {
	p := cfg.plan()
	logf(cfg.Log, "# Benchmark: %s\n# Warmup: %d × %v, Measurement: %d × %v, Threads: %d, Forks: %d\n",
		b.ID(), p.Warmup, p.IterTime, p.Measurement, p.IterTime, p.Threads, cfg.Forks)
	if b.SingleShot && p.Threads != 1 {
		return Result{}, fmt.Errorf("jmhstyle: %s: a single-shot benchmark runs on one thread, not %d", b.ID(), p.Threads)
	}
	var samples []Sample
	var infos [][]Param
	collect := func(it iteration) {
		if it.Done {
			infos = append(infos, it.Info)
			return
		}
		logIteration(cfg.Log, it)
		if !it.Warmup {
			samples = append(samples, it.Sample)
		}
	}
	if cfg.Forks <= 0 {
		if err := measure(b, p, 0, collect); err != nil {
			return Result{}, fmt.Errorf("jmhstyle: %s: %w", b.ID(), err)
		}
		return newResult(b, p, 0, samples, infos), nil
	}
	for i := range cfg.Forks {
		logf(cfg.Log, "# Fork: %d of %d\n", i+1, cfg.Forks)
		if err := runFork(b, p, i, collect); err != nil {
			return Result{}, err
		}
	}
	return newResult(b, p, cfg.Forks, samples, infos), nil
}

// iteration is one warmup or measurement iteration as reported by measure,
// or (Done) the end of a process's measurement with its Info.
type iteration struct {
	Warmup bool
	Index  int // 0-based within its kind
	Sample
	Done bool
	Info []Param
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

func logIteration(w io.Writer, it iteration) {
	kind := "Iteration"
	if it.Warmup {
		kind = "Warmup Iteration"
	}
	var bpo, apo float64
	if it.Ops > 0 {
		bpo = float64(it.Bytes) / float64(it.Ops)
		apo = float64(it.Allocs) / float64(it.Ops)
	}
	logf(w, "%s %3d: %.3f ns/op  %.1f B/op  %.3f allocs/op\n", kind, it.Index+1, it.NsPerOp, bpo, apo)
}

// measure runs the warmup and measurement iterations of b in this process
// and reports each through emit. It is shared by in-process runs and fork
// children so both measure in exactly the same way.
func measure(b Benchmark, p plan, fork int, emit func(iteration)) (err error) {
	ws := make([]*worker, 0, p.Threads)
	defer func() {
		for _, w := range ws {
			w.stop()
		}
		for _, w := range ws {
			if terr := w.tearDown(); terr != nil && err == nil {
				err = terr
			}
		}
	}()
	for range p.Threads {
		w, err := newWorker(b)
		if err != nil {
			return err
		}
		ws = append(ws, w)
	}
	pid := os.Getpid()
	total := p.Warmup + p.Measurement
	for i := range total {
		if b.BeforeIteration != nil {
			if err := b.BeforeIteration(); err != nil {
				return fmt.Errorf("before iteration %d: %w", i+1, err)
			}
		}
		s, err := runIteration(ws, p.IterTime)
		if err != nil {
			return err
		}
		s.Fork, s.PID = fork, pid
		warm := i < p.Warmup
		idx := i
		if !warm {
			idx -= p.Warmup
		}
		emit(iteration{Warmup: warm, Index: idx, Sample: s})
	}
	var info []Param
	if b.Info != nil {
		info = b.Info()
	}
	emit(iteration{Done: true, Info: info})
	return nil
}

// runIteration runs all workers for d and aggregates their counts.
func runIteration(ws []*worker, d time.Duration) (Sample, error) {
	// Collect garbage from setup and earlier iterations first, like JMH's
	// -gc option, so one iteration does not pay for another's garbage.
	runtime.GC()
	before := readAllocs()
	for _, w := range ws {
		w.cmd <- d
	}
	var s Sample
	var nsSum float64
	var firstErr error
	for _, w := range ws {
		r := <-w.done
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		s.Ops += r.ops
		nsSum += float64(r.elapsed.Nanoseconds()) / float64(r.ops)
	}
	// Allocations are credited to the global counters only when a P's
	// cached span is swapped out, so without this GC the last partly used
	// span of each P would be missing (about 0.05% at 64 B/op). A GC
	// flushes every P's cache; it runs after the clock has stopped.
	runtime.GC()
	after := readAllocs()
	if firstErr != nil {
		return Sample{}, firstErr
	}
	s.NsPerOp = nsSum / float64(len(ws))
	s.Bytes = after.bytes - before.bytes
	s.Allocs = after.objects - before.objects
	return s, nil
}

// worker is a goroutine that owns one thread's op. Workers live for the
// whole run so no goroutine is created (and allocated) inside the
// measured region.
type worker struct {
	op       func(n int)
	teardown func()
	batch    int
	opsPer   int64 // operations per op(1)
	single   bool  // single shot: one op(1) per iteration
	cmd      chan time.Duration
	done     chan threadResult
}

type threadResult struct {
	ops     int64
	elapsed time.Duration
	err     error
}

func newWorker(b Benchmark) (w *worker, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("setup panicked: %v\n%s", p, debug.Stack())
		}
	}()
	op, td, err := b.Setup()
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	if op == nil {
		if td != nil {
			td()
		}
		return nil, errors.New("setup returned a nil op")
	}
	w = &worker{op: op, teardown: td, batch: 1, opsPer: int64(max(1, b.OpsPerInvocation)), single: b.SingleShot,
		cmd: make(chan time.Duration), done: make(chan threadResult)}
	go w.loop()
	return w, nil
}

func (w *worker) loop() {
	for d := range w.cmd {
		w.done <- w.iterate(d)
	}
}

func (w *worker) stop() { close(w.cmd) }

func (w *worker) tearDown() (err error) {
	if w.teardown == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("teardown panicked: %v", p)
		}
	}()
	w.teardown()
	return nil
}

// maxBatch bounds batch growth so a near-free op cannot overflow ops.
const maxBatch = 1 << 30

// iterate calls op in batches until d has passed (or, for a single-shot
// benchmark, once). The clock is read once
// per batch, and the batch doubles while one batch takes less than d/16,
// so clock overhead vanishes while the iteration still ends close to d.
// The batch size carries over between iterations: warmup calibrates it.
func (w *worker) iterate(d time.Duration) (r threadResult) {
	defer func() {
		if p := recover(); p != nil {
			r = threadResult{err: fmt.Errorf("op panicked: %v\n%s", p, debug.Stack())}
		}
	}()
	if w.single {
		start := time.Now()
		w.op(1)
		return threadResult{ops: w.opsPer, elapsed: time.Since(start)}
	}
	target := d / 16
	start := time.Now()
	var prev time.Duration
	for {
		w.op(w.batch)
		r.ops += int64(w.batch) * w.opsPer
		el := time.Since(start)
		if el >= d {
			r.elapsed = el
			return r
		}
		if el-prev < target && w.batch < maxBatch {
			w.batch *= 2
		}
		prev = el
	}
}

package jmhstyle

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

func runOne(t *testing.T, b Benchmark, cfg Config) Result {
	t.Helper()
	rs, err := Run([]Benchmark{b}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("got %d results, want 1", len(rs))
	}
	return rs[0]
}

func TestAllocationProfile(t *testing.T) {
	if raceEnabled() {
		t.Skip("allocation counts differ under -race")
	}
	for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
		cfg := quick
		cfg.Threads = threads

		r := runOne(t, alloc64Bench(), cfg)
		t.Logf("threads=%d alloc64: %.4f B/op %.5f allocs/op, %d ops in sample 0", threads, r.BytesPerOp, r.AllocsPerOp, r.Samples[0].Ops)
		if r.BytesPerOp < 63.5 || r.BytesPerOp > 64.5 {
			t.Errorf("threads=%d: alloc64 B/op = %.3f, want ~64", threads, r.BytesPerOp)
		}
		if r.AllocsPerOp < 0.99 || r.AllocsPerOp > 1.01 {
			t.Errorf("threads=%d: alloc64 allocs/op = %.4f, want ~1", threads, r.AllocsPerOp)
		}

		r = runOne(t, Benchmark{Name: "noop", Setup: noopSetup}, cfg)
		if r.AllocsPerOp >= 0.01 || r.BytesPerOp >= 0.01*64 {
			t.Errorf("threads=%d: noop allocs/op = %.4f, B/op = %.3f, want ~0", threads, r.AllocsPerOp, r.BytesPerOp)
		}
	}
}

func TestRunStructure(t *testing.T) {
	var setups, teardowns atomic.Int32
	b := Benchmark{Name: "count", Params: []Param{{"k", "v"}}, Setup: func() (func(int), func(), error) {
		setups.Add(1)
		op, _, _ := noopSetup()
		return op, func() { teardowns.Add(1) }, nil
	}}
	cfg := quick
	cfg.Threads = 3
	var log strings.Builder
	cfg.Log = &log
	r := runOne(t, b, cfg)
	if setups.Load() != 3 || teardowns.Load() != 3 {
		t.Errorf("setups, teardowns = %d, %d, want one per thread (3)", setups.Load(), teardowns.Load())
	}
	if len(r.Samples) != quick.Measurement || r.Threads != 3 || r.Forks != 0 || r.Benchmark != "count" {
		t.Errorf("result = %+v", r)
	}
	for _, s := range r.Samples {
		if s.Ops <= 0 || !(s.NsPerOp > 0) {
			t.Errorf("sample without ops or time: %+v", s)
		}
	}
	if got := strings.Count(log.String(), "Warmup Iteration"); got != quick.Warmup {
		t.Errorf("log has %d warmup lines, want %d:\n%s", got, quick.Warmup, log.String())
	}

	// A negative Warmup means none; zero fields take the defaults.
	p := Config{Warmup: -1}.plan()
	if p.Warmup != 0 || p.Measurement != DefaultMeasurement || p.IterTime != DefaultIterTime || p.Threads != 1 {
		t.Errorf("plan = %+v", p)
	}
}

func TestRunErrors(t *testing.T) {
	setupErr := errors.New("fixture missing")
	var tornDown atomic.Bool
	cases := []struct {
		name string
		b    Benchmark
		want string
	}{
		{"setup error", Benchmark{Name: "s", Setup: func() (func(int), func(), error) { return nil, nil, setupErr }}, "fixture missing"},
		{"nil op", Benchmark{Name: "n", Setup: func() (func(int), func(), error) { return nil, nil, nil }}, "nil op"},
		{"op panics", Benchmark{Name: "p", Setup: func() (func(int), func(), error) {
			return func(int) { panic("kaboom") }, func() { tornDown.Store(true) }, nil
		}}, "kaboom"},
		{"no setup", Benchmark{Name: "x"}, "no Setup"},
	}
	for _, tc := range cases {
		_, err := Run([]Benchmark{tc.b}, quick)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	if !tornDown.Load() {
		t.Error("teardown not called after op panicked")
	}
	dup := Benchmark{Name: "d", Setup: noopSetup}
	if _, err := Run([]Benchmark{dup, dup}, quick); err == nil {
		t.Error("duplicate benchmark IDs accepted")
	}
}

func TestID(t *testing.T) {
	b := Benchmark{Name: "Get", Params: []Param{{"keys", "1000"}, {"path", "mmap"}}}
	if got := b.ID(); got != "Get/keys=1000/path=mmap" {
		t.Errorf("ID = %q", got)
	}
}

// TestBeforeIteration checks that the hook runs once before each warmup
// and measurement iteration, before that iteration's op calls, and that
// its error stops the run.
func TestBeforeIteration(t *testing.T) {
	var calls, opsSinceHook, badOrder atomic.Int32
	b := Benchmark{Name: "hook", SingleShot: true,
		Setup: func() (func(int), func(), error) {
			return func(int) {
				if opsSinceHook.Add(1) != 1 {
					badOrder.Add(1)
				}
			}, nil, nil
		},
		BeforeIteration: func() error {
			calls.Add(1)
			opsSinceHook.Store(0)
			return nil
		},
	}
	cfg := Config{Warmup: 2, Measurement: 3}
	runOne(t, b, cfg)
	if calls.Load() != 5 || badOrder.Load() != 0 {
		t.Errorf("hook ran %d times (want 5), %d iterations without it", calls.Load(), badOrder.Load())
	}
	stop := errors.New("cache not evicted")
	b.BeforeIteration = func() error { return stop }
	if _, err := Run([]Benchmark{b}, cfg); !errors.Is(err, stop) {
		t.Errorf("err = %v, want %v", err, stop)
	}
}

// Compare (compare.go) runs two benchmarks in alternating rounds; its
// decision logic, CompareScores, is checked here on fixed scores.
func TestCompareScores(t *testing.T) {
	for _, tc := range []struct {
		name             string
		base, cand       []float64
		baseMed, candMed float64
		disjoint         bool
		changePct        float64
		candMin, candMax float64
	}{
		{"faster, disjoint", []float64{12, 10, 11}, []float64{9, 8, 8.5}, 11, 8.5, true, -250.0 / 11, 8, 9},
		{"slower, disjoint", []float64{10, 11}, []float64{12, 14}, 10.5, 13, true, 2.5 / 10.5 * 100, 12, 14},
		{"overlap", []float64{10, 12, 11, 30}, []float64{11.5, 13, 9, 10}, 11.5, 10.75, false, -0.75 / 11.5 * 100, 9, 13},
		{"touching is not disjoint", []float64{10, 11}, []float64{11, 12}, 10.5, 11.5, false, 1 / 10.5 * 100, 11, 12},
	} {
		c := CompareScores(tc.base, tc.cand)
		if c.Baseline.Median != tc.baseMed || c.Candidate.Median != tc.candMed {
			t.Errorf("%s: medians %g, %g, want %g, %g", tc.name, c.Baseline.Median, c.Candidate.Median, tc.baseMed, tc.candMed)
		}
		if c.Disjoint != tc.disjoint {
			t.Errorf("%s: disjoint = %v", tc.name, c.Disjoint)
		}
		if math.Abs(c.ChangePct-tc.changePct) > 1e-9 {
			t.Errorf("%s: change = %g%%, want %g%%", tc.name, c.ChangePct, tc.changePct)
		}
		if c.Candidate.Min != tc.candMin || c.Candidate.Max != tc.candMax {
			t.Errorf("%s: candidate range %g..%g", tc.name, c.Candidate.Min, c.Candidate.Max)
		}
	}
}

func TestCompareAlternates(t *testing.T) {
	var order []string
	side := func(name string) Benchmark {
		return Benchmark{Name: name, Setup: func() (func(int), func(), error) {
			order = append(order, name)
			return noopSetup()
		}}
	}
	c, err := Compare(side("A"), side("B"), 3, quick)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ""); got != "ABBAAB" {
		t.Errorf("run order %s, want ABBAAB (alternating)", got)
	}
	if len(c.Baseline.Scores) != 3 || len(c.Candidate.Scores) != 3 {
		t.Errorf("scores %v / %v, want 3 rounds each", c.Baseline.Scores, c.Candidate.Scores)
	}
	if c.Baseline.Benchmark != "A" || c.Candidate.Benchmark != "B" {
		t.Errorf("sides %s / %s", c.Baseline.Benchmark, c.Candidate.Benchmark)
	}
	if _, err := Compare(side("A"), side("A"), 1, quick); err == nil {
		t.Error("Compare accepted two benchmarks with the same ID")
	}
	if _, err := Compare(side("A"), side("B"), 0, quick); err == nil {
		t.Error("Compare accepted zero rounds")
	}
}

func TestCompareForks(t *testing.T) {
	cfg := quick
	cfg.Forks = 1
	cfg.Measurement = 1
	c, err := Compare(forkBench(t, "ab/side=a"), forkBench(t, "ab/side=b"), 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Baseline.Scores) != 2 || len(c.Candidate.Scores) != 2 {
		t.Errorf("scores %v / %v, want 2 rounds each", c.Baseline.Scores, c.Candidate.Scores)
	}
	if c.Candidate.Params[0].Value != "b" {
		t.Errorf("candidate params %v", c.Candidate.Params)
	}
}

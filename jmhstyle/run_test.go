package jmhstyle

import (
	"errors"
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

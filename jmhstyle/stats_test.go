package jmhstyle

import (
	"math"
	"testing"
)

func within(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func TestTQuantileTable(t *testing.T) {
	// Two-sided 99.9% critical values from standard t tables.
	for _, tc := range []struct {
		df, want float64
	}{
		{1, 636.62},
		{2, 31.599},
		{4, 8.610},
		{9, 4.781},
		{29, 3.659},
		{100, 3.390},
		{1e6, 3.291},
		{math.Inf(1), 3.291},
	} {
		got := tQuantile(0.9995, tc.df)
		if !within(got, tc.want, 5e-4) { // 3 significant digits
			t.Errorf("tQuantile(0.9995, %g) = %.4f, want %.4f", tc.df, got, tc.want)
		}
	}
	// Other levels and the lower tail, to catch a hard-wired p.
	if got := tQuantile(0.975, 10); !within(got, 2.228, 5e-4) {
		t.Errorf("tQuantile(0.975, 10) = %.4f, want 2.228", got)
	}
	if got := tQuantile(0.025, 10); !within(got, -2.228, 5e-4) {
		t.Errorf("tQuantile(0.025, 10) = %.4f, want -2.228", got)
	}
	if got := tQuantile(0.5, 3); got != 0 {
		t.Errorf("tQuantile(0.5, 3) = %g, want 0", got)
	}
	if got := tQuantile(1, 3); !math.IsNaN(got) {
		t.Errorf("tQuantile(1, 3) = %g, want NaN", got)
	}
}

func TestMeanAndCI(t *testing.T) {
	xs := []float64{10, 12, 14, 16, 18}
	if got := mean(xs); got != 14 {
		t.Errorf("mean = %g, want 14", got)
	}
	if got := stddev(xs); !within(got, math.Sqrt(10), 1e-12) {
		t.Errorf("stddev = %g, want sqrt(10)", got)
	}
	// t(0.9995, 4) * sqrt(10) / sqrt(5) = 8.6103 * 1.41421
	if got := ciHalfWidth(xs, 0.999); !within(got, 12.177, 5e-4) {
		t.Errorf("ciHalfWidth = %.4f, want 12.177", got)
	}
	if got := ciHalfWidth([]float64{3}, 0.999); !math.IsNaN(got) {
		t.Errorf("ciHalfWidth of one sample = %g, want NaN", got)
	}
	if got := median([]float64{5, 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %g, want 2.5", got)
	}
	if lo, hi := minMax(xs); lo != 10 || hi != 18 {
		t.Errorf("minMax = %g, %g", lo, hi)
	}
}

func TestNewResultSummary(t *testing.T) {
	samples := []Sample{
		{NsPerOp: 10, Ops: 100, Bytes: 6400, Allocs: 100},
		{NsPerOp: 12, Ops: 300, Bytes: 0, Allocs: 0},
		{NsPerOp: 14, Ops: 100, Bytes: 0, Allocs: 100},
		{NsPerOp: 16, Ops: 250, Bytes: 0, Allocs: 0},
		{NsPerOp: 18, Ops: 250, Bytes: 3600, Allocs: 0},
	}
	r := newResult(Benchmark{Name: "x"}, plan{Threads: 2}, 3, samples, nil)
	if r.Score != 14 || r.Min != 10 || r.Max != 18 || r.Threads != 2 || r.Forks != 3 {
		t.Errorf("summary = %+v", r)
	}
	if !within(r.Error, 12.177, 5e-4) {
		t.Errorf("Error = %g, want 12.177", r.Error)
	}
	// Allocation rates are weighted by ops: 10000 B / 1000 ops, 200 / 1000.
	if r.BytesPerOp != 10 || r.AllocsPerOp != 0.2 {
		t.Errorf("BytesPerOp, AllocsPerOp = %g, %g, want 10, 0.2", r.BytesPerOp, r.AllocsPerOp)
	}
}

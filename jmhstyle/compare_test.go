package jmhstyle

import (
	"math"
	"strings"
	"testing"
)

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

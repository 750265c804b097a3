package jmhstyle

import (
	"errors"
	"fmt"
)

// Side summarises one side of an A/B comparison over its rounds.
type Side struct {
	Benchmark string
	Params    []Param
	Scores    []float64 // per-round score (mean ns/op), in round order
	Median    float64
	Min, Max  float64

	BytesPerOp  float64 // mean over rounds
	AllocsPerOp float64 // mean over rounds
}

// Comparison is the outcome of Compare.
type Comparison struct {
	Baseline, Candidate Side
	// Disjoint is true when the [Min, Max] ranges of the two sides do not
	// overlap: every round of one side beat every round of the other. It
	// is a deliberately blunt, assumption-free test of "really different".
	Disjoint bool
	// ChangePct is the candidate median relative to the baseline median,
	// in percent; negative means the candidate is faster.
	ChangePct float64
}

// Compare runs baseline and candidate alternately for rounds rounds each
// and compares their per-round scores. Each round runs each side with cfg
// (cfg.Forks fresh processes, usually 1; in-process when cfg.Forks is 0),
// and the order flips every round (A B, B A, A B, …) so slow drift of the
// machine, such as thermal throttling, hits both sides alike.
//
// Both benchmarks must have distinct IDs and, when forking, both must be
// passed to MaybeRunFork.
func Compare(baseline, candidate Benchmark, rounds int, cfg Config) (Comparison, error) {
	if rounds < 1 {
		return Comparison{}, errors.New("jmhstyle: Compare needs at least one round")
	}
	if err := checkBenchmarks([]Benchmark{baseline, candidate}); err != nil {
		return Comparison{}, err
	}
	var base, cand []Result
	runSide := func(b Benchmark, dst *[]Result, round int) error {
		logf(cfg.Log, "# Round %d of %d\n", round+1, rounds)
		r, err := runBenchmark(b, cfg)
		if err != nil {
			return fmt.Errorf("round %d: %w", round+1, err)
		}
		*dst = append(*dst, r)
		return nil
	}
	for round := range rounds {
		first, second := baseline, candidate
		fdst, sdst := &base, &cand
		if round%2 == 1 {
			first, second, fdst, sdst = second, first, sdst, fdst
		}
		if err := runSide(first, fdst, round); err != nil {
			return Comparison{}, err
		}
		if err := runSide(second, sdst, round); err != nil {
			return Comparison{}, err
		}
	}
	c := CompareScores(scoresOf(base), scoresOf(cand))
	fillSide(&c.Baseline, baseline, base)
	fillSide(&c.Candidate, candidate, cand)
	return c, nil
}

func scoresOf(rs []Result) []float64 {
	s := make([]float64, len(rs))
	for i, r := range rs {
		s[i] = r.Score
	}
	return s
}

func fillSide(s *Side, b Benchmark, rs []Result) {
	s.Benchmark, s.Params = b.Name, b.Params
	bytes := make([]float64, len(rs))
	allocs := make([]float64, len(rs))
	for i, r := range rs {
		bytes[i], allocs[i] = r.BytesPerOp, r.AllocsPerOp
	}
	s.BytesPerOp, s.AllocsPerOp = mean(bytes), mean(allocs)
}

// CompareScores holds the decision logic of Compare: per side the median
// and range of the per-round scores, whether the ranges are disjoint, and
// the change of the candidate median. It is separate from running so that
// it can be tested on fixed numbers and used on scores measured elsewhere
// (bti bench's revision mode compares scores from two binaries).
func CompareScores(base, cand []float64) Comparison {
	side := func(scores []float64) Side {
		lo, hi := minMax(scores)
		return Side{Scores: scores, Median: median(scores), Min: lo, Max: hi}
	}
	c := Comparison{Baseline: side(base), Candidate: side(cand)}
	c.Disjoint = c.Baseline.Max < c.Candidate.Min || c.Candidate.Max < c.Baseline.Min
	c.ChangePct = (c.Candidate.Median - c.Baseline.Median) / c.Baseline.Median * 100
	return c
}

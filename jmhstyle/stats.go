package jmhstyle

import (
	"math"
	"sort"
)

// confidence is the two-sided confidence level of Result.Error. JMH reports
// the half-width of the 99.9% interval, so scores are comparable with it.
const confidence = 0.999

// mean returns the arithmetic mean of xs, or NaN for an empty slice.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// stddev returns the sample standard deviation (n-1 denominator), which is
// what the Student's t interval assumes. It is NaN for fewer than 2 values.
func stddev(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := mean(xs)
	var ss float64
	for _, x := range xs {
		d := x - m
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// ciHalfWidth returns the half-width of the two-sided confidence interval
// of the mean of xs at the given level, using Student's t because the
// number of iterations is small and the variance is estimated. Like JMH it
// is NaN for a single sample: one iteration says nothing about spread.
func ciHalfWidth(xs []float64, level float64) float64 {
	n := len(xs)
	if n < 2 {
		return math.NaN()
	}
	t := tQuantile(1-(1-level)/2, float64(n-1))
	return t * stddev(xs) / math.Sqrt(float64(n))
}

// minMax returns the smallest and largest value of xs (NaN, NaN if empty).
func minMax(xs []float64) (lo, hi float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	lo, hi = xs[0], xs[0]
	for _, x := range xs[1:] {
		lo = math.Min(lo, x)
		hi = math.Max(hi, x)
	}
	return lo, hi
}

// median returns the median of xs without reordering the caller's slice
// (NaN if empty). The A/B comparison uses it because one noisy round must
// not move the verdict the way it moves a mean.
func median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// tQuantile returns the p-quantile of Student's t distribution with df
// degrees of freedom (df may be +Inf, giving the normal quantile).
//
// For t > 0 the CDF is 1 - I_x(df/2, 1/2)/2 with x = df/(df+t²), where I is
// the regularized incomplete beta function. Because I_x is monotone in x we
// invert it by bisection: slower than Newton's method but it cannot diverge,
// and we call this once per result.
func tQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || math.IsNaN(df) || p <= 0 || p >= 1 || df <= 0:
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -tQuantile(1-p, df)
	case df > 1e7:
		// The t distribution differs from the normal by O(1/df); beyond
		// 1e7 that is below 1e-6 and the continued fraction would need
		// O(sqrt(df)) terms for nothing.
		return math.Sqrt2 * math.Erfinv(2*p-1)
	}
	target := 2 * (1 - p) // = I_x(df/2, 1/2)
	a, b := df/2, 0.5
	lo, hi := 0.0, 1.0
	// 200 halvings take the interval far below float64 resolution even for
	// x ≈ 1e-6 (df=1, p=0.9995); stopping when mid stops moving ends sooner.
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if regIncBeta(a, b, mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	x := (lo + hi) / 2
	return math.Sqrt(df * (1 - x) / x)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), using
// the continued fraction of Numerical Recipes §6.4. The fraction converges
// fast only for x < (a+1)/(a+b+2), so otherwise we use the symmetry
// I_x(a, b) = 1 - I_{1-x}(b, a).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the incomplete beta continued fraction with the modified
// Lentz method; tiny guards the divisions against exact zeros.
func betaCF(a, b, x float64) float64 {
	const (
		maxIter = 10000
		eps     = 1e-15
		tiny    = 1e-300
	)
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	qab, qap, qam := a+b, a+1, a-1
	c := 1.0
	d := 1 / guard(1-qab*x/qap)
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 / guard(1+aa*d)
		c = guard(1 + aa/c)
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 / guard(1+aa*d)
		c = guard(1 + aa/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

package jmhstyle

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestMain is the fork hook: when the test binary is re-executed as a fork
// child it runs one benchmark and exits before any test runs.
func TestMain(m *testing.M) {
	if MaybeRunFork(forkBenches()) {
		return
	}
	os.Exit(m.Run())
}

// forkBenches are the benchmarks the fork tests run in child processes.
// It is a function, not a variable, so no test can mutate what children see.
func forkBenches() []Benchmark {
	return []Benchmark{
		{Name: "noop", Setup: noopSetup},
		alloc64Bench(),
		{Name: "setupfail", Setup: func() (func(int), func(), error) {
			return nil, nil, errors.New("no fixture here")
		}},
		{Name: "crash", Setup: func() (func(int), func(), error) {
			return func(int) {
				fmt.Fprintln(os.Stderr, "child about to crash")
				os.Exit(3)
			}, nil, nil
		}},
		{Name: "chatty", Setup: func() (func(int), func(), error) {
			// Output that is not a protocol line must be ignored.
			fmt.Println("hello from the benchmark {\"kind\":\"done\"}")
			return func(int) {}, nil, nil
		}},
		{Name: "ab", Params: []Param{{"side", "a"}}, Setup: noopSetup},
		shotBench(),
		{Name: "ab", Params: []Param{{"side", "b"}}, Setup: noopSetup},
	}
}

func noopSetup() (func(int), func(), error) {
	var x int
	return func(n int) {
		for i := range n {
			x += i
		}
	}, nil, nil
}

// alloc64Bench allocates exactly one pointer-free 64-byte object per op:
// 64 B is a size class of its own and too big for the tiny allocator, so
// B/op and allocs/op must come out as 64 and 1.
func alloc64Bench() Benchmark {
	return Benchmark{Name: "alloc64", Params: []Param{{"size", "64"}}, Setup: func() (func(int), func(), error) {
		var sink *[64]byte // captured by the closure, so every new escapes
		return func(n int) {
			for range n {
				sink = new([64]byte)
			}
			_ = sink
		}, nil, nil
	}}
}

// quick keeps the whole package test run short; nothing asserts on time.
var quick = Config{Warmup: 1, Measurement: 3, IterTime: 5e6}

// shotBench is a single-shot benchmark of 10 operations per call that
// reports its process ID as Info, so tests can tell forks apart by it.
func shotBench() Benchmark {
	calls := 0
	return Benchmark{Name: "shot", SingleShot: true, OpsPerInvocation: 10,
		Setup: func() (func(int), func(), error) {
			return func(n int) {
				if n != 1 {
					panic(fmt.Sprintf("single shot called with n=%d", n))
				}
				calls++
				sink = make([]byte, 1000) // 100 B per operation
			}, nil, nil
		},
		Info: func() []Param {
			return []Param{{"pid", strconv.Itoa(os.Getpid())}, {"calls", strconv.Itoa(calls)}}
		},
	}
}

var sink []byte

// Package jmhstyle runs benchmarks the way Java's JMH does, for programs
// (such as "bti bench") that need more control than testing.B gives:
// separate processes per measurement, warmup, a confidence interval on the
// score, and A/B comparisons in alternating fresh processes.
//
// The library's own micro-benchmarks stay plain testing.B; this package is
// for end-to-end runs and imports nothing from the rest of the module.
//
// # Measurement
//
// A Benchmark's Setup builds state outside the timed region and returns an
// op that performs the operation n times. Each iteration:
//
//  1. runs a full GC, so garbage from setup or earlier iterations is not
//     collected on this iteration's clock (JMH's -gc true);
//  2. reads the heap allocation counters (runtime/metrics
//     /gc/heap/allocs:bytes and :objects, falling back to
//     runtime.MemStats);
//  3. in each of Config.Threads goroutines, calls op in doubling batches
//     until Config.IterTime has passed, so the clock is read rarely;
//  4. runs another GC, which flushes per-P allocation caches into the
//     counters, and records ns/op (the mean over threads of each thread's
//     time per op, JMH's avgt) and the allocation deltas divided by the
//     total ops.
//
// A SingleShot benchmark instead calls op(1) exactly once per iteration
// (JMH's SingleShotTime), for work that is measured once per process, such
// as a cold build; OpsPerInvocation turns its time into a per-operation
// figure. Warmup iterations are discarded. The Result's Score is the mean ns/op of
// all measurement iterations of all forks and its Error the half-width of
// the 99.9% Student's t confidence interval, as in JMH.
//
// # Forks
//
// With Config.Forks > 0 every benchmark runs in that many fresh processes:
// the current binary (os.Executable) is re-executed with its arguments and
// the environment variable JMHSTYLE_FORK=<benchmark ID>/<fork index>. The
// program must therefore call MaybeRunFork first thing in main, or in
// TestMain for tests, with the same benchmarks. In the child it runs the
// requested benchmark and writes one JSON line per iteration to stdout,
// prefixed with "#jmhstyle " so the benchmark's own output is ignored. A
// child that fails yields a *ForkError carrying the tail of its stderr.
//
// # Output
//
// WriteText prints JMH's summary table, WriteCSV its CSV layout, WriteJSON
// a JSON document, and WriteBenchfmt Go benchmark lines for benchstat,
// named as the equivalent go test benchmarks are (BenchName).
//
// # Provenance
//
// CollectProvenance records what produced the numbers: module path, VCS
// revision and dirty flag (from the binary's build info, or from git in the
// working directory for go run and go test binaries, which carry no VCS
// stamp; RevisionSource says which), Go version, GOOS/GOARCH, CPU model,
// GOMAXPROCS and the exact command line. WriteJSON and WriteBenchfmt
// include it; WriteProvenance appends it to a text report. ProcessOrder
// lists the processes in the order they ran, and Benchmark.Info lets a
// benchmark report what it ran on (seeds, input digests, peak memory).
//
// Only JMH's average-time mode is implemented.
package jmhstyle

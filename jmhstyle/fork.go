package jmhstyle

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Environment variables that turn a re-executed binary into a fork child.
const (
	// EnvFork holds "<benchmark ID>/<fork index>".
	EnvFork = "JMHSTYLE_FORK"
	// envPlan holds the resolved configuration as JSON.
	envPlan = "JMHSTYLE_PLAN"
)

// recordPrefix marks protocol lines on the child's stdout, so output that
// the benchmarked code itself prints is ignored rather than misparsed.
const recordPrefix = "#jmhstyle "

// ErrNoHook means a fork child exited without running its benchmark, which
// happens when the program does not call MaybeRunFork first thing in main
// (or TestMain), or calls it with a list lacking that benchmark.
var ErrNoHook = errors.New("jmhstyle: fork child did not run the benchmark (is MaybeRunFork called first in main/TestMain with the same benchmarks?)")

// ErrNestedFork is returned by Run when asked to fork from inside a fork
// child. Without this check a program that forgets MaybeRunFork would
// re-execute itself without end.
var ErrNestedFork = errors.New("jmhstyle: refusing to fork from inside a fork child (" + EnvFork + " is set)")

// ForkError reports a fork child that failed. Stderr holds the tail of the
// child's standard error, which is where panics and fatal errors end up.
type ForkError struct {
	Benchmark string // benchmark ID
	Fork      int    // 0-based fork index
	Err       error  // the child's own report, its exit status, or ErrNoHook
	Stderr    string
}

func (e *ForkError) Error() string {
	msg := fmt.Sprintf("jmhstyle: %s: fork %d: %v", e.Benchmark, e.Fork, e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += "\nchild stderr:\n" + s
	}
	return msg
}

func (e *ForkError) Unwrap() error { return e.Err }

// record is one protocol line written by a fork child.
type record struct {
	Kind    string  `json:"kind"` // "iter", "done" or "error"
	Warmup  bool    `json:"warmup,omitempty"`
	Index   int     `json:"index,omitempty"`
	NsPerOp float64 `json:"ns_per_op,omitempty"`
	Ops     int64   `json:"ops,omitempty"`
	Bytes   uint64  `json:"bytes,omitempty"`
	Allocs  uint64  `json:"allocs,omitempty"`
	PID     int     `json:"pid,omitempty"`
	Err     string  `json:"error,omitempty"`
	Info    []Param `json:"info,omitempty"` // with "done"
}

// MaybeRunFork must be called first thing in main (and in TestMain for
// tests), with every benchmark the program may run or compare. In a normal
// process it returns false at once. In a fork child (EnvFork set) it runs
// the one requested benchmark, writes its iterations as JSON lines to
// stdout, and returns true; the caller must then return without doing
// anything else. A failure is reported to the parent through stdout and
// stderr, where the parent turns it into a *ForkError.
func MaybeRunFork(benches []Benchmark) bool {
	spec, ok := os.LookupEnv(EnvFork)
	if !ok {
		return false
	}
	err := runChild(spec, os.Getenv(envPlan), benches, os.Stdout)
	if err != nil {
		_ = writeRecord(os.Stdout, record{Kind: "error", Err: err.Error()})
		fmt.Fprintln(os.Stderr, err)
	}
	return true
}

// runChild is the body of a fork child; out receives the protocol lines.
func runChild(spec, planJSON string, benches []Benchmark, out io.Writer) error {
	slash := strings.LastIndexByte(spec, '/')
	if slash < 0 {
		return fmt.Errorf("jmhstyle: malformed %s=%q, want <benchmark>/<fork>", EnvFork, spec)
	}
	id := spec[:slash]
	fork, err := strconv.Atoi(spec[slash+1:])
	if err != nil {
		return fmt.Errorf("jmhstyle: malformed %s=%q: %w", EnvFork, spec, err)
	}
	var p plan
	if err := json.Unmarshal([]byte(planJSON), &p); err != nil {
		return fmt.Errorf("jmhstyle: malformed %s: %w", envPlan, err)
	}
	var b *Benchmark
	for i := range benches {
		if benches[i].ID() == id {
			b = &benches[i]
			break
		}
	}
	if b == nil || b.Setup == nil {
		return fmt.Errorf("jmhstyle: benchmark %q not passed to MaybeRunFork", id)
	}
	var werr error
	var info []Param
	err = measure(*b, p, fork, func(it iteration) {
		if it.Done {
			info = it.Info
			return
		}
		if werr == nil {
			werr = writeRecord(out, record{
				Kind: "iter", Warmup: it.Warmup, Index: it.Index, NsPerOp: it.NsPerOp,
				Ops: it.Ops, Bytes: it.Bytes, Allocs: it.Allocs, PID: it.PID,
			})
		}
	})
	if err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("jmhstyle: writing results: %w", werr)
	}
	return writeRecord(out, record{Kind: "done", PID: os.Getpid(), Info: info})
}

func writeRecord(w io.Writer, r record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// One Write per line keeps lines whole even if op also prints.
	_, err = w.Write(append(append([]byte(recordPrefix), line...), '\n'))
	return err
}

// runFork runs benchmark b once in a fresh process with the same arguments
// and passes the child's iterations to emit.
func runFork(b Benchmark, p plan, fork int, emit func(iteration)) error {
	id := b.ID()
	fail := func(err error, stderr string) error {
		return &ForkError{Benchmark: id, Fork: fork, Err: err, Stderr: stderr}
	}
	if _, ok := os.LookupEnv(EnvFork); ok {
		return fail(ErrNestedFork, "")
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(fmt.Errorf("locating own binary: %w", err), "")
	}
	planJSON, err := json.Marshal(p)
	if err != nil {
		return fail(err, "")
	}
	args := p.ForkArgs
	if args == nil {
		args = os.Args[1:]
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(),
		EnvFork+"="+id+"/"+strconv.Itoa(fork),
		envPlan+"="+string(planJSON))
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err, "")
	}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("starting %s: %w", exe, err), "")
	}

	var done bool
	var childErr, protoErr error
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), recordPrefix)
		if !ok {
			continue // the benchmarked code's own output
		}
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			protoErr = fmt.Errorf("bad result line %q: %w", line, err)
			continue
		}
		switch r.Kind {
		case "iter":
			emit(iteration{Warmup: r.Warmup, Index: r.Index, Sample: Sample{
				NsPerOp: r.NsPerOp, Ops: r.Ops, Bytes: r.Bytes, Allocs: r.Allocs, Fork: fork, PID: r.PID,
			}})
		case "done":
			done = true
			emit(iteration{Done: true, Info: r.Info})
		case "error":
			childErr = errors.New(r.Err)
		}
	}
	if err := sc.Err(); err != nil && protoErr == nil {
		protoErr = fmt.Errorf("reading child output: %w", err)
	}
	// Drain whatever is left (after a scanner error) so Wait cannot block
	// on a child stuck writing to a full pipe.
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()

	switch {
	case childErr != nil:
		return fail(childErr, stderr.String())
	case waitErr != nil:
		return fail(fmt.Errorf("child failed: %w", waitErr), stderr.String())
	case protoErr != nil:
		return fail(protoErr, stderr.String())
	case !done:
		return fail(ErrNoHook, stderr.String())
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it: the end of a crashing
// child's stderr (panic value and stack) is the useful part.
type tailBuffer struct {
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t.cut {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}

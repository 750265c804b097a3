package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// Exit codes.
const (
	exitOK    = 0
	exitCheck = 1 // a check failed or a key was not found
	exitUsage = 2 // bad usage or bad input
)

// usageError is bad usage: a missing or malformed flag or argument.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// checkFailed means a check ran and failed (exit 1); the details were
// already printed, msg is the summary.
type checkFailed struct{ msg string }

func (e *checkFailed) Error() string { return e.msg }

// errHelp is returned after -h printed the usage.
var errHelp = errors.New("help shown")

// exitCode prints err (if any) and maps it to an exit status. Errors other
// than usage errors and failed checks are bad input (exit 2): unreadable
// or malformed files, corrupt indexes.
func exitCode(stderr io.Writer, cmd string, err error) int {
	var ue *usageError
	var cf *checkFailed
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "bti %s: %v (run \"bti %s -h\")\n", cmd, err, cmd)
		return exitUsage
	case errors.As(err, &cf):
		fmt.Fprintf(stderr, "bti %s: %v\n", cmd, err)
		return exitCheck
	default:
		fmt.Fprintf(stderr, "bti: %v\n", err)
		return exitUsage
	}
}

// newFlags returns a FlagSet for a subcommand whose usage text is head
// followed by the flag defaults.
func newFlags(name, head string) *flag.FlagSet {
	fs := flag.NewFlagSet("bti "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { writeUsage(fs, head) }
	return fs
}

func writeUsage(fs *flag.FlagSet, head string) {
	w := fs.Output()
	fmt.Fprint(w, strings.TrimLeft(head, "\n"))
	fmt.Fprintln(w, "\nflags:")
	fs.PrintDefaults()
}

// parseFlags parses args, allowing flags and positional arguments to be
// interleaved ("bti get KEY --index f"). "-h" prints the usage to stdout
// and returns errHelp; any other flag error is a usage error.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				fs.Usage()
				return nil, errHelp
			}
			return nil, &usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// noArgs rejects positional arguments for commands that take none.
func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// parseCommand parses the flags of a command that takes no positional
// arguments and checks that the named string flags were given: the
// preamble of nearly every subcommand.
func parseCommand(fs *flag.FlagSet, args []string, stdout io.Writer, requiredFlags ...string) error {
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	return required(fs, requiredFlags...)
}

// required checks that string flags were given.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f == nil || f.Value.String() == "" {
			return usagef("--%s is required", n)
		}
	}
	return nil
}

// oneOf checks a flag value against its allowed values.
func oneOf(flagName, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return usagef("--%s %q: want %s", flagName, v, strings.Join(allowed, ", "))
}

func parsePartitioner(name string) (partitioner.Partitioner, error) {
	p, err := partitioner.Parse(name)
	if err != nil {
		return 0, usagef("--partitioner %q: want murmur3, random or byteordered", name)
	}
	return p, nil
}

// Common flags. Every subcommand takes --partitioner, defined here so that
// all of them spell, default and check it alike. A Partitions.db file does
// not name its partitioner; commands that read an existing index default to
// "auto", the one partitioner under which the footer's first and last keys
// resolve to the trie's first and last entries (audit.DetectPartitioner).
// Commands that write an index must be told.

// partitionerAuto is the --partitioner value that detects it.
const partitionerAuto = "auto"

// addPartitionerFlag defines --partitioner on fs. reading: the command
// reads an existing index and accepts (and defaults to) auto.
func addPartitionerFlag(fs *flag.FlagSet, reading bool) *string {
	if reading {
		return fs.String("partitioner", partitionerAuto, "partitioner: auto (detect it from the index), murmur3, random or byteordered")
	}
	return fs.String("partitioner", "murmur3", "partitioner: murmur3, random or byteordered")
}

// checkPartitionerFlag rejects an unknown --partitioner value before any
// file is read.
func checkPartitionerFlag(name string) error {
	if name == partitionerAuto {
		return nil
	}
	_, err := parsePartitioner(name)
	return err
}

// openIndex opens (maps) the index at path under --partitioner name. note
// says how an auto partitioner was chosen.
func openIndex(path, name string) (ix *partitionindex.Index, note string, err error) {
	if name != partitionerAuto {
		p, err := parsePartitioner(name)
		if err != nil {
			return nil, "", err
		}
		ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: p})
		return ix, "given", hintMismatch(err)
	}
	ix, err = audit.OpenDetected(path, partitionindex.OpenOptions{})
	if err == nil {
		return ix, "detected", nil
	}
	if note, ok := assumeDefault(err); ok {
		ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
		return ix, note, err
	}
	return nil, "", err
}

// choosePartitioner is openIndex's choice for index bytes already read.
// Where no partitioner fits, it returns ok == false with the reason as
// note; the caller decides whether it can go on without one.
func choosePartitioner(name string, data []byte) (p partitioner.Partitioner, note string, ok bool, err error) {
	if name != partitionerAuto {
		p, err := parsePartitioner(name)
		return p, "given", err == nil, err
	}
	p, err = audit.DetectPartitioner(data)
	switch {
	case err == nil:
		return p, "detected", true, nil
	case errors.Is(err, audit.ErrNoPartitioner):
		return 0, err.Error(), false, nil
	}
	if note, ok := assumeDefault(err); ok {
		return partitioner.Murmur3, note, true, nil
	}
	return 0, "", false, err
}

// assumeDefault handles an index too small to tell its partitioner (zero
// or one key fit every partitioner): murmur3, Cassandra's default, is
// assumed if it fits, and the note says so.
func assumeDefault(err error) (note string, ok bool) {
	var de *audit.DetectError
	if !errors.As(err, &de) || !errors.Is(err, audit.ErrAmbiguousPartitioner) || !slices.Contains(de.Matches, partitioner.Murmur3) {
		return "", false
	}
	names := make([]string, len(de.Matches))
	for i, p := range de.Matches {
		names[i] = p.String()
	}
	return fmt.Sprintf("assumed, Cassandra's default: an index of %d keys fits %s alike (pass --partitioner to choose)", de.Count, strings.Join(names, ", ")), true
}

// hintMismatch adds what to do to a wrong-partitioner error.
func hintMismatch(err error) error {
	if errors.Is(err, partitionindex.ErrPartitionerMismatch) {
		return fmt.Errorf("%w (--partitioner auto detects the index's partitioner)", err)
	}
	return err
}

// shortHex is the hex of key, cut to 32 bytes for messages.
func shortHex(key []byte) string {
	const max = 32
	if len(key) <= max {
		return hex.EncodeToString(key)
	}
	return fmt.Sprintf("%s...(%d bytes)", hex.EncodeToString(key[:max]), len(key))
}

// isTerminal reports whether w is a character device (a terminal), without
// a dependency on golang.org/x/term.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress prints a self-overwriting status line to a terminal, at most a
// few times a second. It does nothing when stderr is not a terminal.
type progress struct {
	w    io.Writer // nil: disabled
	last time.Time
	used bool
}

func newProgress(stderr io.Writer) *progress {
	if !isTerminal(stderr) {
		return &progress{}
	}
	return &progress{w: stderr}
}

func (p *progress) enabled() bool { return p.w != nil }

func (p *progress) update(format string, a ...any) {
	if p.w == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 200*time.Millisecond {
		p.last = now
		p.used = true
		fmt.Fprintf(p.w, "\r\x1b[K"+format, a...)
	}
}

// done clears the status line.
func (p *progress) done() {
	if p.w != nil && p.used {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.used = false
	}
}

// One flag name per file kind, the same in every command: --partitions
// names a Partitions.db and --rows a Rows.db (keys.tsv and rows.tsv are
// --in, what a command writes --out). --index, the first commands' name
// for Partitions.db, stays accepted as its alias there.

// addPartitionsFlag registers --partitions (and its alias --index).
func addPartitionsFlag(fs *flag.FlagSet, usage string) *string {
	p := new(string)
	partitionsFlagVar(fs, p, usage)
	return p
}

// partitionsFlagVar is addPartitionsFlag into an existing variable.
func partitionsFlagVar(fs *flag.FlagSet, p *string, usage string) {
	fs.StringVar(p, "partitions", "", usage)
	fs.StringVar(p, "index", "", "the same as --partitions")
}

// renamedIndexFlag refuses --index in the rows commands, where it once
// named the Rows.db: read as the Partitions.db alias it would mean another
// file, so it is an error that names both flags.
func renamedIndexFlag(fs *flag.FlagSet) {
	fs.Func("index", "renamed: --rows names the Rows.db, --partitions the Partitions.db", func(string) error {
		return errors.New("--index is renamed here: --rows names the Rows.db, --partitions the Partitions.db")
	})
}

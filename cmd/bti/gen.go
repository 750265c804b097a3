package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keystsv"
)

const genUsage = `usage: bti gen --kind K --count N --seed S [--partitioner P] [--prefix-bytes P] [--key-len-min A --key-len-max B]
               [--positions any|increasing] [--out keys.tsv]

Writes a keys.tsv (to standard output by default): N distinct keys of kind K
(int32, int64, uuid, text, blob) sorted in the partitioner's decorated-key
order, with positions that exercise every payload size (1..8 bytes;
row-index positions >= 0 and ^data positions < 0, magnitudes growing to 2^40
with a few outliers up to 2^62). The same flags always give the same output
(package keygen, PCG). With --positions increasing there are no outliers:
row-index positions and data positions each strictly increase, as an sstable
writer records them (what "bti check --positions increasing" checks).

N is refused (exit status 2) when the kind cannot supply N distinct keys
(int32 has 2^32; text and blob have 68^n and 256^n of each length n, plus
the lengths allowed).

Memory and disk: a set of up to about 256 MiB in memory (about two million
UUID keys) is drawn and sorted in memory. A larger one is spilled: each key
drawn goes to one of up to 1024 files by its place in the key order, each
file is sorted alone (about 256 MiB at a time, in chunks if it is larger),
and the files are written out in order. gen then holds about 512 MiB
whatever N, and on disk the keys once more besides the output (their bytes
plus one: 9 bytes per int64 key, 17 per UUID), each file removed as soon as
it is written out. The files go in a directory beside --out, or in $TMPDIR
for standard output, named .NAME.bti-gen-spill-PID-RANDOM, removed on every
exit (an error, SIGINT or SIGTERM; only SIGKILL leaves it). Either way the
same flags give the same bytes.

` + outputHelp

func runGen(args []string, stdout, _ io.Writer) error {
	fs := newFlags("gen", genUsage)
	part := addPartitionerFlag(fs, false)
	kind := fs.String("kind", "", "key kind: int32, int64, uuid, text or blob (required)")
	count := fs.Int("count", -1, "number of keys (required)")
	seed := fs.Uint64("seed", 1, "random seed")
	prefix := fs.Int("prefix-bytes", 0, "shared random prefix of this many bytes on every key")
	lmin := fs.Int("key-len-min", 0, "text/blob: minimum length after the prefix (default 1 with --key-len-max 32)")
	lmax := fs.Int("key-len-max", 0, "text/blob: maximum length after the prefix")
	out := fs.String("out", "-", "output keys.tsv, or - for standard output")
	positions := fs.String("positions", "any", "any (with outliers) or increasing")
	if err := parseCommand(fs, args, stdout, "kind"); err != nil {
		return err
	}
	if *count < 0 {
		return usagef("--count is required and must be >= 0")
	}
	p, err := parsePartitioner(*part)
	if err != nil {
		return err
	}
	if err := oneOf("positions", *positions, "any", "increasing"); err != nil {
		return err
	}
	k, err := keygen.ParseKind(*kind)
	if err != nil {
		return usagef("--kind %q: want int32, int64, uuid, text or blob", *kind)
	}
	cfg := keygen.Config{
		Partitioner: p, Kind: k, Count: *count, Seed: *seed,
		PrefixBytes: *prefix, KeyLenMin: *lmin, KeyLenMax: *lmax,
		PositionsIncreasing: *positions == "increasing",
	}
	if (*lmin != 0 || *lmax != 0) && *lmax == 0 {
		cfg.KeyLenMax = max(*lmin, 32)
	}
	if *lmax != 0 && *lmin == 0 {
		cfg.KeyLenMin = 1
	}
	// Opened first, so a refused output fails before the work; the
	// temporary file is removed if generating fails.
	o, err := createOutput(*out, stdout)
	if err != nil {
		return err
	}
	defer o.abort()
	spillDir, err := createSpillDir(o)
	if err != nil {
		return err
	}
	defer os.RemoveAll(spillDir)

	ctx, stop := interruptible()
	defer stop()
	// Lines are formatted one at a time as the keys come: the text is
	// never held in memory whole.
	w := bufio.NewWriterSize(o, streamWriteBuffer)
	var line []byte
	var writeErr error
	err = cfg.Stream(ctx, keygen.StreamOptions{Dir: spillDir}, func(key []byte, pos int64) error {
		line = keystsv.AppendLine(line[:0], key, pos)
		_, writeErr = w.Write(line)
		return writeErr
	})
	var spillErr *keygen.SpillError
	switch {
	case err == nil:
	case writeErr != nil:
		return writeErr
	case ctx.Err() != nil:
		return fmt.Errorf("generating %s: %w", o.name, errInterrupted)
	case errors.As(err, &spillErr):
		return err
	default: // what the flags ask for cannot be generated
		return usagef("--count %d: %v", *count, err)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return o.commit()
}

// createSpillDir creates the directory of gen's spill files beside the
// output's target, so they share its file system's space, or in $TMPDIR
// for an output written in place (standard output, a device). Its name
// says what a leftover (after SIGKILL) is:
// ".keys.tsv.bti-gen-spill-<pid>-<random>".
func createSpillDir(o *output) (string, error) {
	dir, base := os.TempDir(), "stdout"
	if o.tmp != "" {
		dir, base = filepath.Split(o.target)
		if dir == "" {
			dir = "."
		}
	}
	path, err := os.MkdirTemp(dir, fmt.Sprintf(".%s.bti-gen-spill-%d-*", base, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("cannot create a spill directory for %s in %s: %w", o.name, dir, plainErr(err))
	}
	return path, nil
}

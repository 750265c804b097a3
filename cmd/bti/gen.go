package main

import (
	"bufio"
	"io"

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
the lengths allowed), and when the set would need more than 4 GiB of memory:
the keys are drawn at random and sorted, so all of them are held at once,
120 bytes per UUID key at the peak (so at most about 35 million UUID keys).

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
	keys, err := cfg.Keys()
	if err != nil {
		return usagef("--count %d: %v", *count, err)
	}
	pos := cfg.Positions(len(keys))
	// Lines are formatted one at a time from the keys: the text is never
	// held in memory whole.
	w := bufio.NewWriterSize(o, 1<<16)
	var line []byte
	for i, k := range keys {
		line = keystsv.AppendLine(line[:0], k.Raw, pos[i])
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return o.commit()
}

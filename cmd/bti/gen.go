package main

import (
	"bufio"
	"io"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keystsv"
)

const genUsage = `usage: bti gen --kind K --count N --seed S [--partitioner P] [--prefix-bytes P] [--key-len-min A --key-len-max B] [--positions any|increasing]

Writes a keys.tsv to stdout: N distinct keys of kind K (int32, int64, uuid,
text, blob) sorted in the partitioner's decorated-key order, with positions
that exercise every payload size (1..8 bytes; row-index positions >= 0 and
^data positions < 0, magnitudes growing to 2^40 with a few outliers up to
2^62). The same flags always give the same output (package keygen, PCG).
With --positions increasing there are no outliers: row-index positions and
data positions each strictly increase, as an sstable writer records them
(what "bti check --positions increasing" checks).
`

func runGen(args []string, stdout, _ io.Writer) error {
	fs := newFlags("gen", genUsage)
	part := fs.String("partitioner", "murmur3", "partitioner: murmur3, random or byteordered")
	kind := fs.String("kind", "", "key kind: int32, int64, uuid, text or blob (required)")
	count := fs.Int("count", -1, "number of keys (required)")
	seed := fs.Uint64("seed", 1, "random seed")
	prefix := fs.Int("prefix-bytes", 0, "shared random prefix of this many bytes on every key")
	lmin := fs.Int("key-len-min", 0, "text/blob: minimum length after the prefix (default 1 with --key-len-max 32)")
	lmax := fs.Int("key-len-max", 0, "text/blob: maximum length after the prefix")
	positions := fs.String("positions", "any", "any (with outliers) or increasing")
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if err := required(fs, "kind"); err != nil {
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
	entries, err := cfg.Generate()
	if err != nil {
		return usagef("%v", err)
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	var line []byte
	for _, e := range entries {
		line = keystsv.AppendLine(line[:0], e.Key, e.Pos)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return w.Flush()
}

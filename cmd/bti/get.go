package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/bti-go/bti/partitionindex"
)

const getUsage = `usage: bti get --partitions Partitions.db [--op exact|ceiling|floor] [--partitioner auto|P] KEYHEX...

Looks up each key (raw partition key bytes in hex) and prints
"KEYHEX<TAB>POSITION" or "KEYHEX<TAB>not found". A position is a candidate:
the index stores only the shortest distinguishing prefix of each key plus a
one-byte hash, so Cassandra confirms a hit against the key stored in Rows.db
or Data.db. Exit status 1 if any key was not found.

--op ceiling (floor) prints the two candidates for the smallest key >= KEY
(largest <= KEY): "KEYHEX<TAB>on-path POS|-<TAB>beyond POS|-". The on-path
entry's key may lie on either side of KEY; the beyond entry's key is
certainly greater (smaller). Which one is the answer takes the key stored at
the on-path position, in Rows.db or Data.db, which this tool does not read.
Exit status 1 if a key has neither candidate.

The partitioner defaults to auto: the one under which the footer's first and
last keys resolve to the index's first and last entries. An index of zero or
one key fits every partitioner; murmur3 is then assumed, with a note on
stderr. A partitioner that does not fit the index is an error (exit 2).
`

func runGet(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("get", getUsage)
	index := addPartitionsFlag(fs, "Partitions.db to read (required)")
	part := addPartitionerFlag(fs, true)
	op := fs.String("op", "exact", "lookup: exact (Get), ceiling or floor (their unconfirmed candidates)")
	keys, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := required(fs, "partitions"); err != nil {
		return err
	}
	if len(keys) == 0 {
		return usagef("no keys to look up")
	}
	if err := checkPartitionerFlag(*part); err != nil {
		return err
	}
	if err := oneOf("op", *op, "exact", "ceiling", "floor"); err != nil {
		return err
	}
	raws := make([][]byte, len(keys))
	for i, k := range keys {
		raw, err := hex.DecodeString(k)
		if err != nil {
			return usagef("key argument %d %q is not hex: %v", i+1, k, err)
		}
		raws[i] = raw
	}

	ix, note, err := openIndex(*index, *part)
	if err != nil {
		return err
	}
	defer ix.Close()
	p := ix.Partitioner()
	if note != "given" && note != "detected" {
		fmt.Fprintf(stderr, "bti get: partitioner %v (%s)\n", p, note)
	}
	rd, err := ix.OpenReader()
	if err != nil {
		return err
	}
	defer rd.Close()

	w := bufio.NewWriter(stdout)
	missing := 0
	for i, raw := range raws {
		key := strings.ToLower(keys[i])
		decorated := p.Decorate(raw)
		if *op != "exact" {
			var c partitionindex.Candidates
			if *op == "ceiling" {
				c, err = rd.CeilingCandidates(&decorated)
			} else {
				c, err = rd.FloorCandidates(&decorated)
			}
			if err != nil {
				_ = w.Flush()
				return fmt.Errorf("%s: looking up %s: %w", *index, shortHex(raw), err)
			}
			fmt.Fprintf(w, "%s\ton-path %s\tbeyond %s\n", key, candidate(c.OnPath, c.HasOnPath), candidate(c.Beyond, c.HasBeyond))
			if !c.HasOnPath && !c.HasBeyond {
				missing++
			}
			continue
		}
		pos, ok, err := rd.Get(&decorated)
		if err != nil {
			_ = w.Flush()
			return fmt.Errorf("%s: looking up %s: %w", *index, shortHex(raw), err)
		}
		if ok {
			fmt.Fprintf(w, "%s\t%d\n", key, pos)
		} else {
			fmt.Fprintf(w, "%s\tnot found\n", key)
			missing++
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if missing > 0 && *op != "exact" {
		return &checkFailed{fmt.Sprintf("%d of %d keys have no %s candidate", missing, len(raws), *op)}
	}
	if missing > 0 {
		return &checkFailed{fmt.Sprintf("%d of %d keys not found", missing, len(raws))}
	}
	return nil
}

// candidate prints a candidate position, "-" for none.
func candidate(pos int64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprint(pos)
}

package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/bti-go/bti/partitionindex"
)

const getUsage = `usage: bti get --index Partitions.db [--partitioner P] KEYHEX...

Looks up each key (raw partition key bytes in hex) and prints
"KEYHEX<TAB>POSITION" or "KEYHEX<TAB>not found". A position is a candidate:
the index stores only the shortest distinguishing prefix of each key plus a
one-byte hash, so Cassandra confirms a hit against the key stored in Rows.db
or Data.db. Exit status 1 if any key was not found.
`

func runGet(args []string, stdout, _ io.Writer) error {
	fs := newFlags("get", getUsage)
	index := fs.String("index", "", "Partitions.db to read (required)")
	part := fs.String("partitioner", "murmur3", "partitioner: murmur3, random or byteordered")
	keys, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := required(fs, "index"); err != nil {
		return err
	}
	if len(keys) == 0 {
		return usagef("no keys to look up")
	}
	p, err := parsePartitioner(*part)
	if err != nil {
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

	ix, err := partitionindex.Open(*index, p)
	if err != nil {
		return err
	}
	defer ix.Close()
	rd, err := ix.OpenReader()
	if err != nil {
		return err
	}
	defer rd.Close()

	w := bufio.NewWriter(stdout)
	missing := 0
	for i, raw := range raws {
		pos, ok, err := rd.Get(p.Decorate(raw))
		if err != nil {
			_ = w.Flush()
			return fmt.Errorf("%s: looking up %s: %w", *index, shortHex(raw), err)
		}
		key := strings.ToLower(keys[i])
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
	if missing > 0 {
		return &checkFailed{fmt.Sprintf("%d of %d keys not found", missing, len(raws))}
	}
	return nil
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// dumpFormats are the formats FuzzDump runs on every input: each reads the
// file along its own path (the summary and trie.Dump, the JSON summary,
// the dot walk with audit.Payload, the annotated hex of audit.WriteAnnotated).
var dumpFormats = []string{"text", "json", "dot", "hex"}

// FuzzDump runs "bti dump" in every format over arbitrary bytes, through
// run as the binary does: the exit status is 0 or 2, never a panic turned
// into "internal error" (run's recover), whatever the file holds. part
// chooses the partitioner flag: auto (detection over damaged footers), or
// one given by hand (the checked open and its mismatch error).
func FuzzDump(f *testing.F) {
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		for _, n := range []int{0, 1, 2, 5, 40} {
			var buf bytes.Buffer
			b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: p, PageSize: 64})
			var raws [][]byte
			for i := range n {
				raws = append(raws, fmt.Appendf(nil, "k%03d", i*7%41))
			}
			keys := keyset.Decorate(p, raws)
			for i, k := range keys {
				if err := b.Add(&k, int64(i*100)-int64(n/2*100)); err != nil {
					f.Fatal(err)
				}
			}
			if _, err := b.Complete(); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes(), uint8(0))
			f.Add(buf.Bytes(), uint8(1+p))
			if n == 1 && p == partitioner.Murmur3 {
				// The case: a valid one-key Murmur3 file whose leaf
				// header 08 (payload with hash) became 01 made the hex dump
				// panic with a slice bound error.
				damaged := bytes.Clone(buf.Bytes())
				damaged[0] = 0x01
				f.Add(damaged, uint8(0))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, part uint8) {
		path := filepath.Join(t.TempDir(), "Partitions.db")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		flag := []string{"auto", "murmur3", "byteordered", "random"}[part%4]
		for _, format := range dumpFormats {
			args := []string{"dump", "--index", path, "--format", format, "--partitioner", flag, "--nodes"}
			r := bti(args...)
			if r.code != exitOK && r.code != exitUsage {
				t.Fatalf("%s: exit status %d, want 0 or 2\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "internal error") {
				t.Fatalf("%s: %s", strings.Join(args, " "), r.stderr)
			}
			if r.code == exitUsage && !strings.HasPrefix(r.stderr, "bti") {
				t.Fatalf("%s: exit status 2 without a message: %q", strings.Join(args, " "), r.stderr)
			}
		}
	})
}

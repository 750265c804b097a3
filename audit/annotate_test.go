package audit

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

var update = flag.Bool("update", false, "rewrite the annotated golden dumps in ../testdata/annotated from the current writer")

// The project's own goldens: annotated hex dumps of small indexes our writer
// builds, reviewed by eye and kept in ../testdata/annotated. A change in the
// layout shows up as a readable diff; -update rewrites them, and a mismatch
// leaves a .got file beside the golden. (Cassandra-written files are checked
// byte for byte in partitionindex's golden_test.go; these cover layouts
// those do not spell out: the worked files of docs/format.md §10, tiny
// pages, all payload sizes.)
func TestAnnotatedGoldens(t *testing.T) {
	cases := []struct {
		name      string
		part      partitioner.Partitioner
		keys      []string
		positions []int64
		pageSize  int
	}{
		{"empty", partitioner.ByteOrdered, nil, nil, 0},
		{"one-key", partitioner.ByteOrdered, []string{"ab"}, []int64{-1}, 0},
		{"a-ab-b", partitioner.ByteOrdered, []string{"a", "ab", "b"}, []int64{-1, 100, -51}, 0},
		{"murmur3-int-1-to-5", partitioner.Murmur3,
			[]string{"\x00\x00\x00\x05", "\x00\x00\x00\x01", "\x00\x00\x00\x02", "\x00\x00\x00\x04", "\x00\x00\x00\x03"},
			[]int64{-91, -1, -31, 4096, -61}, 0},
		{"payload-sizes", partitioner.ByteOrdered,
			[]string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"},
			[]int64{-1, 1 << 8, -(1 << 16), 1 << 24, -(1 << 32), 1 << 40, -(1 << 48), 1 << 62}, 0},
		{"tiny-pages", partitioner.ByteOrdered,
			[]string{"apple", "apricot", "banana", "blueberry", "cherry", "date", "elderberry", "fig", "grape", "kiwi"},
			[]int64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}, 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var file bytes.Buffer
			b := partitionindex.NewBuilder(&file, partitionindex.Options{Partitioner: c.part, PageSize: c.pageSize})
			for i, k := range c.keys {
				require.NoError(t, addRaw(b, c.part, []byte(k), c.positions[i]))
			}
			_, err := b.Complete()
			require.NoError(t, err)
			_, err = partitionindex.NewIndex(file.Bytes(), partitionindex.OpenOptions{Partitioner: c.part})
			require.NoError(t, err, "the file opens under its partitioner")
			var got bytes.Buffer
			require.NoError(t, WriteAnnotated(&got, file.Bytes()))

			path := filepath.Join("..", "testdata", "annotated", c.name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./audit -run AnnotatedGoldens -update to create it")
			if !bytes.Equal(want, got.Bytes()) {
				require.NoError(t, os.WriteFile(path+".got", got.Bytes(), 0o644))
				t.Fatalf("%s differs from the annotated golden; see %s.got", path, path)
			}
		})
	}
}

// Every golden file's annotated dump accounts for every byte exactly once:
// nodes with their payloads, zero padding, the footer, in file order, with
// nothing between them.
func TestAnnotatedCoversGoldenFiles(t *testing.T) {
	for _, c := range goldenindex.Cases(t) {
		if len(c.Want) > 200_000 {
			continue // keep the test quick; the smaller files cover every layout case
		}
		t.Run(c.Name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, WriteAnnotated(&out, c.Want))
			require.NotContains(t, out.String(), "bytes no node covers")
			next := int64(0)
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if strings.HasPrefix(line, " ") {
					continue // continuation of a long item
				}
				var from, to int64
				_, err := fmt.Sscanf(line[:13], "%x-%x", &from, &to)
				require.NoError(t, err, line)
				require.Equal(t, next, from, "gap or overlap before %q", line)
				next = to + 1
			}
			require.Equal(t, int64(len(c.Want)), next, "the dump reaches the end of the file")
		})
	}
}

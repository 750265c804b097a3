package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
)

func TestGen(t *testing.T) {
	for _, tc := range []struct {
		part string
		args []string
	}{
		{"murmur3", []string{"--kind", "uuid"}},
		{"murmur3", []string{"--kind", "int32"}},
		{"random", []string{"--kind", "int64"}},
		{"byteordered", []string{"--kind", "blob", "--prefix-bytes", "64", "--key-len-min", "8", "--key-len-max", "24"}},
		{"byteordered", []string{"--kind", "text", "--key-len-max", "3"}},
	} {
		t.Run(tc.part+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"gen", "--partitioner", tc.part, "--count", "3000", "--seed", "9"}, tc.args...)
			r := bti(args...)
			requireCode(t, 0, r)
			assert.Empty(t, r.stderr)

			entries, err := keystsv.ReadAll(strings.NewReader(r.stdout))
			require.NoError(t, err)
			require.Len(t, entries, 3000)
			p, err := partitioner.Parse(tc.part)
			require.NoError(t, err)
			var sizes [9]int
			for i, e := range entries {
				if i > 0 {
					require.Negative(t, partitioner.Compare(p.Decorate(entries[i-1].Key), p.Decorate(e.Key)),
						"lines %d and %d are not strictly increasing", i, i+1)
				}
				sizes[payloadSize(e.Pos)]++
			}
			for n := 1; n <= 8; n++ {
				assert.Positive(t, sizes[n], "no %d-byte position", n)
			}

			// Deterministic for a seed, different for another.
			again := bti(args...)
			require.Equal(t, r.stdout, again.stdout)
			other := bti(append(args, "--seed", "10")...)
			require.NotEqual(t, r.stdout, other.stdout)

			// The output builds and verifies.
			dir := t.TempDir()
			keys := filepath.Join(dir, "keys.tsv")
			writeFile(t, keys, r.stdout)
			out := filepath.Join(dir, "Partitions.db")
			requireCode(t, 0, bti("build", "--in", keys, "--out", out, "--partitioner", tc.part))
			requireCode(t, 0, bti("verify", "--in", keys, "--index", out, "--partitioner", tc.part))
			// Both paths give the same bytes, with early-open views too.
			var files [2][]byte
			for i, path := range []string{"scratch", "reference"} {
				f := filepath.Join(dir, path+".db")
				requireCode(t, 0, bti("build", "--in", keys, "--out", f, "--partitioner", tc.part, "--path", path, "--partial-at", "100,1000,2999"))
				var err error
				files[i], err = os.ReadFile(f)
				require.NoError(t, err)
			}
			require.NotEmpty(t, files[0])
			require.True(t, bytes.Equal(files[0], files[1]), "scratch and reference differ")
		})
	}
}

// payloadSize is the minimal signed big-endian length of a position.
func payloadSize(v int64) int {
	for n := 1; n < 8; n++ {
		lim := int64(1) << (8*n - 1)
		if v >= -lim && v < lim {
			return n
		}
	}
	return 8
}

func TestGenKeyLengths(t *testing.T) {
	r := bti("gen", "--partitioner", "byteordered", "--kind", "text", "--count", "200", "--seed", "1",
		"--prefix-bytes", "2", "--key-len-min", "5", "--key-len-max", "7")
	requireCode(t, 0, r)
	entries, err := keystsv.ReadAll(strings.NewReader(r.stdout))
	require.NoError(t, err)
	for _, e := range entries {
		require.GreaterOrEqual(t, len(e.Key), 7)
		require.LessOrEqual(t, len(e.Key), 9)
		require.Equal(t, entries[0].Key[:2], e.Key[:2], "shared prefix")
	}
	r = bti("gen", "--kind", "uuid", "--count", "0")
	requireCode(t, 0, r)
	assert.Empty(t, r.stdout)
}

func TestDemo(t *testing.T) {
	r := bti("demo", "--count", "2000")
	requireCode(t, 0, r)
	for _, want := range []string{"2000 Murmur3 UUID keys", "scratch", "reference", "index bytes", "build ns/key",
		"alloc B/key", "allocs/key", "byte-identical", "verify: all 2000 keys resolve", "lookup-hit:"} {
		assert.Contains(t, r.stdout, want)
	}
}

package main

import (
	"crypto/sha256"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/internal/partitionpayload"
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
				sizes[partitionpayload.PositionSize(e.Pos)]++
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
			var files [2]string
			for i, path := range []string{"scratch", "reference"} {
				f := filepath.Join(dir, path+".db")
				requireCode(t, 0, bti("build", "--in", keys, "--out", f, "--partitioner", tc.part, "--path", path, "--partial-at", "100,1000,2999"))
				files[i] = readFile(t, f)
			}
			require.NotEmpty(t, files[0])
			require.True(t, files[0] == files[1], "scratch and reference differ")
		})
	}
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

// TestGenOutputPinned pins gen's output to what the tool wrote before
// keygen learned to sort in place (hashes from that build): "the same flags
// always give the same output" holds across versions. The text and blob
// sets draw many duplicates, so they take several merge rounds.
func TestGenOutputPinned(t *testing.T) {
	for _, tc := range []struct {
		args   string
		sha256 string
	}{
		{"--kind uuid --count 200000", "ea8f5a1eb4f26c8994d64dde7409ffce253e341e378da7f70a74bc1ee41b2a52"},
		{"--kind text --count 3000 --key-len-min 2 --key-len-max 2 --partitioner byteordered", "3a38ab7cbb23e0cf1b79f49e7eb3fc2599b0280fba54c231cb98627d841b1b19"},
		{"--kind int32 --count 100000 --partitioner random", "aa3dc9a3ac6e2de3eb2d15c33a07861037e6a2725fa7ae0bee7beefea8d078b3"},
		{"--kind blob --count 50000 --prefix-bytes 3 --key-len-min 0 --key-len-max 3 --partitioner byteordered", "e4b2a89d98f5e42b717288395bdd5588ab739680c62154a9938335debdd4f9cc"},
	} {
		r := bti(append([]string{"gen"}, strings.Fields(tc.args)...)...)
		requireCode(t, 0, r)
		assert.Equal(t, tc.sha256, fmt.Sprintf("%x", sha256.Sum256([]byte(r.stdout))), tc.args)
	}
}

// TestGenImpossibleCount: a count the kind cannot supply is refused with
// exit status 2 and a message saying why, before any memory is taken.
// ("--count 5000000000 --kind int32" died of "fatal error: runtime: out of
// memory".) gen spills a large set to disk, so only demo, which holds its
// keys, still has a memory limit.
func TestGenImpossibleCount(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "keys.tsv")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"gen", "--count", "5000000000", "--kind", "int32"},
			"bti gen: --count 5000000000: keygen: cannot generate that many distinct keys: 5000000000 requested, but int32 offers only 4294967296 distinct keys"},
		{[]string{"gen", "--count", "4294967297", "--kind", "int32", "--out", out},
			"but int32 offers only 4294967296 distinct keys"},
		{[]string{"gen", "--count", "5000", "--kind", "text", "--key-len-min", "1", "--key-len-max", "2"},
			"but text of 1..2 bytes offers only 4692 distinct keys"},
		{[]string{"gen", "--count", "300", "--kind", "blob", "--key-len-max", "1", "--prefix-bytes", "4"},
			"but blob of 1..1 bytes after a 4-byte prefix offers only 256 distinct keys"},
		{[]string{"demo", "--count", "5000000000"},
			"keygen: key set too large to generate in memory: 5000000000 uuid keys need about 558.8 GiB (120 bytes per key), the limit is 4 GiB"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if n, _ := strconv.ParseInt(tc.args[2], 10, 64); n > math.MaxInt {
				// A 32-bit platform: the flag itself refuses the count,
				// as clearly and with the same status.
				tc.msg = fmt.Sprintf("invalid value %q for flag -count: value out of range", tc.args[2])
			}
			r := bti(tc.args...)
			requireCode(t, 2, r)
			assert.Contains(t, r.stderr, tc.msg)
			assert.Empty(t, r.stdout)
			assert.Empty(t, listDir(t, dir), "no output or temporary file left")
		})
	}
	r := bti("gen", "-h")
	assert.Contains(t, r.stdout, "int32 has 2^32")
	assert.Contains(t, r.stdout, "holds about 512 MiB")
	assert.NotContains(t, r.stdout, "35 million", "the old in-memory limit is gone")
}

// TestGenLeavesOnlyItsOutput: the spill directory gen makes beside --out
// (or in $TMPDIR for standard output) is gone when it returns, and the
// output is the same wherever it goes.
func TestGenLeavesOnlyItsOutput(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(dir, "keys.tsv")
	args := []string{"gen", "--kind", "int64", "--count", "5000", "--seed", "3"}
	requireCode(t, 0, bti(append(args, "--out", out)...))
	assert.Equal(t, []string{"keys.tsv"}, listDir(t, dir))
	r := bti(args...)
	requireCode(t, 0, r)
	assert.Empty(t, listDir(t, tmp), "nothing left in $TMPDIR")
	assert.Equal(t, readFile(t, out), r.stdout)
}

// gen --positions increasing makes key sets whose index passes the
// position rule.
func TestGenPositionsIncreasing(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	db := filepath.Join(dir, "Partitions.db")
	r := bti("gen", "--kind", "blob", "--count", "3000", "--seed", "4", "--partitioner", "byteordered", "--positions", "increasing")
	requireCode(t, 0, r)
	writeFile(t, keys, r.stdout)
	requireCode(t, 0, bti("build", "--in", keys, "--out", db, "--partitioner", "byteordered"))
	r = bti("check", "--index", db, "--positions", "increasing")
	requireCode(t, 0, r)
	require.Contains(t, r.stdout, "byteordered (detected)")
}

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/partitionindex"
)

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, "00\t1\n01\t2\n")
	out := filepath.Join(dir, "Partitions.db")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{nil, "usage: bti <command>"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"build"}, "--in is required"},
		{[]string{"build", "--in", keys}, "--out is required"},
		{[]string{"build", "--in", keys, "--out", out, "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"build", "--in", keys, "--out", out, "--partitioner", "md5"}, `--partitioner "md5"`},
		{[]string{"build", "--in", keys, "--out", out, "--path", "fast"}, `--path "fast"`},
		{[]string{"build", "--in", keys, "--out", out, "--stats", "xml"}, `--stats "xml"`},
		{[]string{"build", "--in", keys, "--out", out, "--partial-at", "1,x"}, `--partial-at: "x"`},
		{[]string{"build", "--in", keys, "--out", out, "--partial-at", "0"}, `--partial-at: "0"`},
		{[]string{"build", "--in", keys, "--out", out, "--partial-at", "3"}, "has only 2 keys"},
		{[]string{"build", "--in", keys, "--out", out, "extra"}, `unexpected argument "extra"`},
		{[]string{"get", "--index", out}, "no keys to look up"},
		{[]string{"get", "00"}, "--partitions is required"},
		{[]string{"get", "--index", out, "xyz"}, `key argument 1 "xyz" is not hex`},
		{[]string{"verify", "--index", out}, "--in is required"},
		{[]string{"dump"}, "--partitions is required"},
		{[]string{"dump", "--index", out, "--format", "svg"}, `--format "svg"`},
		{[]string{"gen", "--count", "3"}, "--kind is required"},
		{[]string{"gen", "--kind", "uuid"}, "--count is required"},
		{[]string{"gen", "--kind", "float", "--count", "3"}, `--kind "float"`},
		{[]string{"gen", "--kind", "text", "--count", "1000", "--key-len-min", "1", "--key-len-max", "1"}, "cannot generate"},
		{[]string{"gen", "--kind", "uuid", "--count", "3", "--partitioner", "nope"}, `--partitioner "nope"`},
		{[]string{"bench", "--benchmark", "sort"}, `--benchmark "sort"`},
		{[]string{"bench", "--format", "xml"}, `--format "xml"`},
		{[]string{"bench", "--iterations", "0"}, "--iterations 0"},
		{[]string{"bench", "--warmup", "-1"}, "--warmup -1"},
		{[]string{"bench", "--size", "enormous"}, `--size "enormous"`},
		{[]string{"demo", "--count", "0"}, "--count 0"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			r := bti(tc.args...)
			requireCode(t, 2, r)
			assert.Contains(t, r.stderr, tc.msg)
			assert.Empty(t, r.stdout)
		})
	}
	assert.Equal(t, []string{"keys.tsv"}, listDir(t, dir), "no output file left behind")
}

func TestHelp(t *testing.T) {
	r := bti("help")
	requireCode(t, 0, r)
	for _, c := range commands() {
		assert.Contains(t, r.stdout, c.name)
	}
	for _, c := range commands() {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {"help", c.name}} {
			r := bti(args...)
			requireCode(t, 0, r, args)
			assert.Contains(t, r.stdout, "usage: bti "+c.name, args)
			assert.Contains(t, r.stdout, "flags:", args)
		}
	}
	r = bti("bench", "-h")
	assert.Contains(t, r.stdout, "one op is ONE KEY")
	assert.Contains(t, r.stdout, "--size")
}

// TestBadKeysFile checks that every malformed or misordered keys.tsv is
// refused with exit status 2, a message naming the line, and no output.
func TestBadKeysFile(t *testing.T) {
	for _, tc := range []struct {
		name, content, part, msg string
	}{
		{"bad hex", "00\t1\nzz\t2\n", "byteordered", "line 2: key is not hex"},
		{"odd hex", "00\t1\n012\t2\n", "byteordered", "line 2: key has an odd number (3) of hex digits"},
		{"no tab", "00\t1\n01 2\n", "byteordered", "line 2: no tab between key and position"},
		{"bad position", "00\t1\n01\t2\n02\tx\n", "byteordered", `line 3: position "x" is not a signed 64-bit integer`},
		{"position overflow", "00\t99999999999999999999\n", "byteordered", "line 1: position"},
		{"not-found position", "00\t-9223372036854775808\n", "byteordered", `line 1: position -9223372036854775808 is Cassandra's "not found" marker`},
		{"unsorted", "00\t1\n02\t2\n01\t3\n", "byteordered", "line 3: key 01 does not sort after previous key 02"},
		{"duplicate", "00\t1\n01\t2\n01\t3\n", "byteordered", "line 3: key 01 duplicates the previous key (line 2)"},
		{"unsorted murmur3", "01\t1\n02\t2\n", "murmur3", "line 2: key 02 does not sort after previous key 01 in murmur3 order"},
		{"too long", "00\t1\n" + strings.Repeat("ab", 65536) + "\t2\n", "byteordered", "line 2: key of 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			keys := filepath.Join(dir, "keys.tsv")
			writeFile(t, keys, tc.content)
			out := filepath.Join(dir, "Partitions.db")
			requireFails(t, "bti: "+keys+" "+tc.msg, "build", "--in", keys, "--out", out, "--partitioner", tc.part)
			assert.Equal(t, []string{"keys.tsv"}, listDir(t, dir), "no output or temporary file left behind")

			// verify reads keys.tsv the same way, streaming it against an
			// index (of a good first line).
			good := filepath.Join(dir, "good.tsv")
			writeFile(t, good, "0f\t1\n")
			requireCode(t, 0, bti("build", "--in", good, "--out", out, "--partitioner", tc.part))
			requireFails(t, tc.msg, "verify", "--in", keys, "--index", out, "--partitioner", tc.part)
		})
	}
}

func TestFailedBuildKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, "01\t1\n00\t2\n")
	out := filepath.Join(dir, "Partitions.db")
	writeFile(t, out, "old")
	requireCode(t, 2, bti("build", "--in", keys, "--out", out, "--partitioner", "byteordered"))
	requireOldOutput(t, dir, out)
}

func TestBuildIOErrors(t *testing.T) {
	dir := t.TempDir()
	requireFails(t, "missing.tsv", "build", "--in", filepath.Join(dir, "missing.tsv"), "--out", filepath.Join(dir, "x.db"))

	keys := filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, "00\t1\n")
	requireFails(t, "no such file or directory", "build", "--in", keys, "--out", filepath.Join(dir, "no", "such", "dir", "x.db"), "--partitioner", "byteordered")
	assert.Equal(t, []string{"keys.tsv"}, listDir(t, dir))

	// A corrupt .bz2 is bad input too.
	bz := filepath.Join(dir, "keys.tsv.bz2")
	writeFile(t, bz, "BZh9 this is not bzip2")
	requireFails(t, "keys.tsv.bz2", "build", "--in", bz, "--out", filepath.Join(dir, "y.db"))
}

// TestEmptyKeys: an empty keys.tsv is a valid, empty index.
func TestEmptyKeys(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, "")
	out := filepath.Join(dir, "Partitions.db")
	r := bti("build", "--in", keys, "--out", out, "--stats", "json")
	requireCode(t, 0, r)
	assert.Contains(t, r.stdout, `"keys":0`)
	requireCode(t, 0, bti("verify", "--in", keys, "--index", out))
	requireCode(t, 0, bti("dump", "--index", out))
	requireCode(t, 0, bti("dump", "--index", out, "--format", "dot"))
	requireCode(t, 1, bti("get", "--index", out, "00"))
}

// TestCorruptIndex truncates and damages a golden index: get, verify and
// dump must fail with exit status 1 or 2 and a message, never panic.
func TestCorruptIndex(t *testing.T) {
	c := smallGolden(t, "murmur3-10-int32")
	key, _ := firstLine(t, c.keys)
	data := []byte(readFile(t, c.db))
	dir := t.TempDir()
	bad := filepath.Join(dir, "Partitions.db")

	// Truncated: the footer is gone or points outside the file.
	for _, n := range []int{0, 10, len(data) - 24, len(data) - 1} {
		writeFile(t, bad, string(data[:n]))
		for _, args := range [][]string{
			{"get", "--index", bad, key},
			{"verify", "--index", bad, "--in", c.keys},
			{"dump", "--index", bad},
		} {
			r := bti(args...)
			requireCode(t, 2, r, args, n)
			assert.Contains(t, r.stderr, "corrupt index at offset", "%v (truncated to %d)", args, n)
		}
	}

	// A root pointing into the middle of a node or beyond.
	root := append([]byte(nil), data...)
	root[len(root)-1] = 0x70
	writeFile(t, bad, string(root))
	requireFails(t, "offset", "dump", "--index", bad)

	// Every single byte set to 0xff in turn: any status but a panic, and a
	// failure always explains itself.
	for i := range data {
		mut := append([]byte(nil), data...)
		mut[i] ^= 0xff
		writeFile(t, bad, string(mut))
		for _, args := range [][]string{
			{"get", "--index", bad, key},
			{"verify", "--index", bad, "--in", c.keys},
			{"dump", "--index", bad},
			{"dump", "--index", bad, "--format", "dot"},
			{"dump", "--index", bad, "--format", "json"},
			{"dump", "--index", bad, "--format", "hex"},
		} {
			r := bti(args...)
			require.NotContains(t, r.stderr, "internal error", "byte %d flipped: %v", i, args)
			require.Contains(t, []int{0, 1, 2}, r.code)
			if r.code != 0 {
				require.NotEmpty(t, r.stderr, "byte %d flipped: %v", i, args)
			}
		}
	}
}

func TestVerifyMismatch(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	dir := t.TempDir()
	lines := strings.SplitAfter(readFile(t, c.keys), "\n")

	// A changed position on line 17.
	key, _, _ := strings.Cut(lines[16], "\t")
	changed := append(append(append([]string(nil), lines[:16]...), key+"\t12345\n"), lines[17:]...)
	keys := filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, strings.Join(changed, ""))
	r := bti("verify", "--index", c.db, "--in", keys)
	requireCode(t, 1, r)
	assert.Contains(t, r.stderr, keys+" line 17: key "+key+": found at ")
	assert.Contains(t, r.stderr, "want position 12345")
	assert.Contains(t, r.stderr, "scan entry 16 (line 17)")
	assert.Contains(t, r.stdout+r.stderr, "FAILED")

	// A missing last line: count and last key disagree.
	writeFile(t, keys, strings.Join(lines[:len(lines)-2], ""))
	r = bti("verify", "--index", c.db, "--in", keys)
	requireCode(t, 1, r)
	assert.Contains(t, r.stderr, "footer count is 1000")
	assert.Contains(t, r.stderr, "footer last key is")
	assert.Contains(t, r.stderr, "scan yields more than the 999 expected positions")

	// Wrong partitioner: the footer refuses it, and the one that fits is
	// named.
	requireFails(t, "fits the murmur3 partitioner, not byteordered: try --partitioner auto", "verify", "--index", c.db, "--in", c.keys, "--partitioner", "byteordered")
}

// TestPartialCheckFails makes an early-open view disagree with the keys:
// building from keys whose positions the view cannot hold is impossible,
// so the check is driven directly with a view taken over other keys.
func TestPartialCheckFails(t *testing.T) {
	c := smallGolden(t, "murmur3-1000-int64")
	p, err := parsePartitioner("murmur3")
	require.NoError(t, err)
	ks, err := loadKeys(c.keys, p, &progress{})
	require.NoError(t, err)
	res, err := buildIndex(ks, partitionindex.Options{Partitioner: p}, buildpath.Scratch, []int{500}, &progress{})
	require.NoError(t, err)
	require.True(t, res.partials[0].accepted)
	var stderr strings.Builder
	require.NoError(t, checkPartials(ks, res, &stderr))

	ks.pos[10]++ // the view now disagrees with line 11
	err = checkPartials(ks, res, &stderr)
	require.Error(t, err)
	assert.Contains(t, stderr.String(), "view after key 500: key ")
	assert.Contains(t, stderr.String(), "(line 11)")
	assert.Equal(t, 1, exitCode(&strings.Builder{}, "build", err))
}

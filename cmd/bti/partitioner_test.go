package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// byteOrderedIndex builds a small ByteOrdered index with bti build and
// returns its keys.tsv and Partitions.db.
func byteOrderedIndex(t *testing.T, lines string) (keys, out string) {
	t.Helper()
	dir := t.TempDir()
	keys = filepath.Join(dir, "keys.tsv")
	writeFile(t, keys, lines)
	out = filepath.Join(dir, "Partitions.db")
	requireCode(t, 0, bti("build", "--in", keys, "--out", out, "--partitioner", "byteordered"))
	return keys, out
}

// TestPartitionerAuto: get, verify and dump read a ByteOrdered index
// without being told (the default is auto), dump says which partitioner it
// picked, and a wrong partitioner given by hand is an error naming it
// instead of "not found".
func TestPartitionerAuto(t *testing.T) {
	keys, out := byteOrderedIndex(t, "10\t1\n20\t2\n30\t3\n40\t4\n")

	r := bti("get", "--index", out, "30")
	requireCode(t, 0, r)
	assert.Equal(t, "30\t3\n", r.stdout)
	assert.Empty(t, r.stderr)

	r = bti("get", "--index", out, "--partitioner", "murmur3", "30")
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "wrong partitioner")
	assert.Contains(t, r.stderr, "murmur3")
	assert.Contains(t, r.stderr, "--partitioner auto")
	assert.NotContains(t, r.stdout, "not found")

	requireCode(t, 0, bti("verify", "--index", out, "--in", keys))
	requireFails(t, "fits the byteordered partitioner, not murmur3", "verify", "--index", out, "--in", keys, "--partitioner", "murmur3")

	for _, args := range [][]string{
		{"dump", "--index", out},
		{"dump", "--index", out, "--partitioner", "auto"},
	} {
		r = bti(args...)
		requireCode(t, 0, r, args)
		assert.Regexp(t, `partitioner +byteordered +\(detected\)`, r.stdout, args)
	}
	r = bti("dump", "--index", out, "--partitioner", "byteordered")
	requireCode(t, 0, r)
	assert.Regexp(t, `partitioner +byteordered +\(given\)`, r.stdout)
	r = bti("dump", "--index", out, "--format", "json")
	requireCode(t, 0, r)
	assert.Contains(t, r.stdout, `"partitioner": "byteordered"`)
	requireFails(t, "not written with the random partitioner", "dump", "--index", out, "--partitioner", "random")
}

// TestPartitionerAutoTooSmall: an index of zero or one key fits every
// partitioner; the tools assume murmur3 and say so.
func TestPartitionerAutoTooSmall(t *testing.T) {
	for _, lines := range []string{"", "30\t3\n"} {
		_, out := byteOrderedIndex(t, lines)
		r := bti("get", "--index", out, "30")
		if lines == "" {
			requireCode(t, 1, r)
		} else {
			requireCode(t, 0, r)
		}
		assert.Contains(t, r.stderr, "partitioner murmur3 (assumed")
		r = bti("dump", "--index", out)
		requireCode(t, 0, r)
		assert.Regexp(t, `partitioner +murmur3 +\(assumed, Cassandra's default: an index of [01] keys fits murmur3, byteordered, random alike`, r.stdout)
	}
}

// TestCommonFlags: every subcommand takes --partitioner; those that read
// an index take the same values, auto included.
func TestCommonFlags(t *testing.T) {
	for _, c := range commands() {
		// rows is a group: its subcommands that touch a partition index
		// take the flag (rows bench builds its own row indexes only).
		invocations := [][]string{{c.name}}
		if c.name == "rows" {
			invocations = [][]string{{"rows", "build"}, {"rows", "get"}, {"rows", "dump"}}
		}
		for _, inv := range invocations {
			r := bti(append(inv, "-h")...)
			requireCode(t, 0, r, inv)
			assert.Contains(t, r.stdout, "-partitioner", "bti %s -h", strings.Join(inv, " "))
		}
	}
	keys, out := byteOrderedIndex(t, "10\t1\n20\t2\n")
	for _, args := range [][]string{
		{"get", "--index", out, "10"},
		{"verify", "--index", out, "--in", keys},
		{"dump", "--index", out},
	} {
		for _, p := range []string{"auto", "byteordered"} {
			requireCode(t, 0, bti(append(args, "--partitioner", p)...), args, p)
		}
		r := bti(append(args, "--partitioner", "md5")...)
		requireCode(t, 2, r, args)
		assert.Contains(t, r.stderr, `--partitioner "md5"`)
		r = bti(args[0], "-h")
		require.Contains(t, r.stdout, "auto (detect it from the index)", args[0])
	}
}

// TestGetCandidates: --op ceiling and floor print both unconfirmed
// candidates, never a single answer the tool cannot confirm.
func TestGetCandidates(t *testing.T) {
	_, out := byteOrderedIndex(t, "10\t1\n20\t2\n30\t3\n40\t4\n")
	// Each key is stored as its first byte. 25's path reaches no entry and
	// 30 (position 3) is the next; 40 reaches its own entry, with nothing
	// beyond; 50 has neither (exit status 1).
	r := bti("get", "--index", out, "--op", "ceiling", "25", "40", "50")
	requireCode(t, 1, r)
	assert.Equal(t, "25\ton-path -\tbeyond 3\n40\ton-path 4\tbeyond -\n50\ton-path -\tbeyond -\n", r.stdout)
	assert.Contains(t, r.stderr, "1 of 3 keys have no ceiling candidate")
	r = bti("get", "--index", out, "--op", "floor", "25", "05")
	requireCode(t, 1, r)
	assert.Equal(t, "25\ton-path -\tbeyond 2\n05\ton-path -\tbeyond -\n", r.stdout)
	requireFails(t, `--op "nearest"`, "get", "--index", out, "--op", "nearest", "25")
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// bti check: exit 0 on every golden file with the partitioner detected,
// 1 with the problem's offset on damage the readers miss, 2 when the footer
// cannot be read; verify --deep runs both checks.
func TestCheckCommand(t *testing.T) {
	for _, c := range goldenCases(t) {
		r := bti("check", "--index", c.db)
		requireCode(t, 0, r, c.name)
		require.Contains(t, r.stdout, "ok: no rule broken")
		if c.name != "murmur3-1" {
			require.Contains(t, r.stdout, "partitioner:  "+c.part+" (detected)", c.name)
		}
	}

	c := smallGolden(t, "murmur3-1000-int64")
	data, err := os.ReadFile(c.db)
	require.NoError(t, err)
	dir := t.TempDir()

	// A SPARSE_8 pointer (node 0x48, first child) moved one byte into a leaf.
	damaged := append([]byte(nil), data...)
	damaged[0x53] ^= 0x01
	bad := filepath.Join(dir, "damaged.db")
	require.NoError(t, os.WriteFile(bad, damaged, 0o644))
	r := bti("check", "--index", bad)
	requireCode(t, 1, r)
	require.Contains(t, r.stdout, "problem: offset ")
	require.Contains(t, r.stderr, "FAILED")

	r = bti("check", "--index", bad, "--format", "json")
	requireCode(t, 1, r)
	var out struct {
		OK       bool `json:"ok"`
		Problems []struct {
			Offset int64  `json:"offset"`
			Rule   string `json:"rule"`
		} `json:"problems"`
		ProblemCount int64 `json:"problem_count"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.False(t, out.OK)
	require.NotEmpty(t, out.Problems)
	require.Positive(t, out.ProblemCount)

	short := filepath.Join(dir, "short.db")
	require.NoError(t, os.WriteFile(short, data[:10], 0o644))
	requireCode(t, 2, bti("check", "--index", short))

	r = bti("verify", "--deep", "--index", c.db, "--in", c.keys, "--partitioner", "auto")
	requireCode(t, 0, r)
	require.Contains(t, r.stdout, "ok: no rule broken")
	require.Contains(t, r.stdout, "1000 keys found")
	requireCode(t, 0, bti("verify", "--deep", "--index", c.db))
	requireCode(t, 1, bti("verify", "--deep", "--index", bad, "--in", c.keys))
	// The golden positions are random: the opt-in rule fails them.
	requireCode(t, 1, bti("check", "--index", c.db, "--positions", "increasing"))

	for _, args := range [][]string{
		{"check"},
		{"check", "--index", c.db, "--format", "xml"},
		{"check", "--index", c.db, "--positions", "sorted"},
		{"check", "--index", c.db, "--partitioner", "md5"},
		{"verify", "--deep"},
		{"gen", "--kind", "uuid", "--count", "3", "--positions", "up"},
	} {
		requireCode(t, 2, bti(args...), args)
	}
}

// gen --positions increasing makes key sets whose index passes the
// position rule.
func TestGenPositionsIncreasing(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.tsv")
	db := filepath.Join(dir, "Partitions.db")
	r := bti("gen", "--kind", "blob", "--count", "3000", "--seed", "4", "--partitioner", "byteordered", "--positions", "increasing")
	requireCode(t, 0, r)
	require.NoError(t, os.WriteFile(keys, []byte(r.stdout), 0o644))
	requireCode(t, 0, bti("build", "--in", keys, "--out", db, "--partitioner", "byteordered"))
	r = bti("check", "--index", db, "--positions", "increasing")
	requireCode(t, 0, r)
	require.Contains(t, r.stdout, "byteordered (detected)")
}

package audit

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// TestVerifyEntries: each kind of disagreement is reported, in the order an
// EntryVerifier finds them (entry by entry, then the footer and the scan's
// end), and an index that matches reports nothing.
func TestVerifyEntries(t *testing.T) {
	keys := earlyKeys(6)
	pos := []int64{0, 10, 20, 30, 40, 50}
	var buf bytes.Buffer
	b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: partitioner.ByteOrdered})
	for i, k := range keys {
		require.NoError(t, b.Add(&k, pos[i]))
	}
	_, err := b.Complete()
	require.NoError(t, err)
	ix, err := partitionindex.NewIndex(buf.Bytes(), partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
	require.NoError(t, err)

	collect := func(keys []partitioner.Key, pos []int64, stopAfter int) []Mismatch {
		var got []Mismatch
		require.NoError(t, VerifyEntries(ix, keys, pos, func(m Mismatch) bool {
			got = append(got, m)
			return len(got) < stopAfter
		}))
		return got
	}
	require.Empty(t, collect(keys, pos, 100))

	wrong := []int64{0, 10, 21, 30, 40, 50}
	require.Equal(t, []Mismatch{
		{Kind: MismatchGet, Entry: 2, Got: 20, Found: true, Want: 21},
		{Kind: MismatchScan, Entry: 2, Got: 20, Want: 21},
	}, collect(keys, wrong, 100))

	require.Equal(t, []Mismatch{
		{Kind: MismatchCount, Got: 6, Want: 5},
		{Kind: MismatchLastKey, GotKey: keys[5].Raw, WantKey: keys[4].Raw},
		{Kind: MismatchScanLong, Entry: 5, Got: 50, Want: 5},
	}, collect(keys[:5], pos[:5], 100))

	// A key the index lacks, and a scan that ends early.
	extra := append(append([]partitioner.Key{}, keys...), partitioner.ByteOrdered.Decorate([]byte("zzz")))
	got := collect(extra, append(pos, 60), 100)
	require.Equal(t, []Mismatch{
		{Kind: MismatchGet, Entry: 6, Want: 60},
		{Kind: MismatchCount, Got: 6, Want: 7},
		{Kind: MismatchLastKey, GotKey: keys[5].Raw, WantKey: []byte("zzz")},
		{Kind: MismatchScanShort, Entry: 6, Got: 6, Want: 7},
	}, got)

	// report returning false stops at once.
	require.Len(t, collect(keys[:5], pos[:5], 1), 1)
}

// TestEntryVerifierConstantMemory: feeding an entry allocates nothing once
// the verifier is warm, so verifying a file of any size holds what one
// entry does; and a streamed verification reports what VerifyEntries does.
func TestEntryVerifierConstantMemory(t *testing.T) {
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 20000, Seed: 3}
	entries, err := cfg.Generate()
	require.NoError(t, err)
	ix, err := partitionindex.NewIndex(buildIndex(t, cfg), partitionindex.OpenOptions{})
	require.NoError(t, err)
	keys := make([]partitioner.Key, len(entries))
	for i, e := range entries {
		keys[i] = partitioner.Murmur3.Decorate(e.Key)
	}
	var mismatches int
	v, err := NewEntryVerifier(ix, func(Mismatch) bool { mismatches++; return true })
	require.NoError(t, err)
	next := 0
	add := func() {
		if err := v.Add(&keys[next], entries[next].Pos); err != nil {
			t.Fatal(err)
		}
		next++
	}
	for range 100 {
		add() // warm: the last-key buffer reaches its size
	}
	if !raceEnabled && testing.CoverMode() == "" { // both allocate
		require.Zero(t, testing.AllocsPerRun(len(keys)-200, add))
	}
	for next < len(keys) {
		add()
	}
	require.NoError(t, v.Finish())
	require.Zero(t, mismatches)
}

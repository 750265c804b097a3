package keygen_test

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
)

var allPartitioners = []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random}

var allKinds = []keygen.Kind{keygen.Int32, keygen.Int64, keygen.UUID, keygen.Text, keygen.Blob}

// mustKeys returns cfg's keys, failing the test if cfg.Keys refuses cfg.
func mustKeys(t *testing.T, cfg keygen.Config) []partitioner.Key {
	t.Helper()
	keys, err := cfg.Keys()
	require.NoError(t, err, "%+v", cfg)
	return keys
}

// mustGenerate returns cfg's entries (keys with positions), failing the
// test if cfg.Generate refuses cfg.
func mustGenerate(t *testing.T, cfg keygen.Config) []keystsv.Entry {
	t.Helper()
	entries, err := cfg.Generate()
	require.NoError(t, err, "%+v", cfg)
	return entries
}

func TestKeysSortedUniqueAndShaped(t *testing.T) {
	for _, p := range allPartitioners {
		for _, k := range allKinds {
			t.Run(p.String()+"/"+k.String(), func(t *testing.T) {
				cfg := keygen.Config{Partitioner: p, Kind: k, Count: 3000, Seed: 42, PrefixBytes: 3, KeyLenMin: 2, KeyLenMax: 9}
				keys := mustKeys(t, cfg)
				require.Len(t, keys, cfg.Count)
				prefix := keys[0].Raw[:3]
				for i, key := range keys {
					require.Equal(t, p, key.Partitioner)
					require.Equal(t, p.Decorate(key.Raw), key, "key %d is not decorated by Decorate", i)
					require.True(t, bytes.HasPrefix(key.Raw, prefix), "key %d lacks the shared prefix", i)
					n := len(key.Raw) - 3
					switch k {
					case keygen.Int32:
						require.Equal(t, 4, n)
					case keygen.Int64:
						require.Equal(t, 8, n)
					case keygen.UUID:
						require.Equal(t, 16, n)
						u := key.Raw[3:]
						require.Equal(t, byte(0x40), u[6]&0xF0, "version nibble")
						require.Equal(t, byte(0x80), u[8]&0xC0, "variant bits")
					default:
						require.GreaterOrEqual(t, n, 2)
						require.LessOrEqual(t, n, 9)
					}
					if i > 0 {
						require.Negative(t, partitioner.Compare(keys[i-1], key), "keys %d and %d are not strictly increasing", i-1, i)
					}
				}
			})
		}
	}
}

func TestKeysDropDuplicatesAndKeepCount(t *testing.T) {
	// 62 two-character alphanumeric... the text alphabet has 68 symbols, so
	// 68*68 = 4624 two-byte keys: 3000 of them need many duplicate draws.
	cfg := keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Text, Count: 3000, Seed: 1, KeyLenMin: 2, KeyLenMax: 2}
	keys := mustKeys(t, cfg)
	require.Len(t, keys, 3000)
	for i := 1; i < len(keys); i++ {
		require.Negative(t, bytes.Compare(keys[i-1].Raw, keys[i].Raw))
	}
}

func TestDeterministic(t *testing.T) {
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.Blob, Count: 2000, Seed: 7}
	a := mustGenerate(t, cfg)
	require.Equal(t, a, mustGenerate(t, cfg))

	cfg.Seed = 8
	require.NotEqual(t, a, mustGenerate(t, cfg), "another seed must give other keys")
}

func TestGenerateMatchesKeysAndPositions(t *testing.T) {
	cfg := keygen.Config{Partitioner: partitioner.Random, Kind: keygen.Int64, Count: 500, Seed: 3}
	entries := mustGenerate(t, cfg)
	keys := mustKeys(t, cfg)
	pos := keygen.Positions(len(keys), cfg.Seed)
	require.Len(t, entries, len(keys))
	for i := range entries {
		assert.Equal(t, keys[i].Raw, entries[i].Key)
		assert.Equal(t, pos[i], entries[i].Pos)
	}
}

func TestPositionsCoverEveryPayloadSize(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		pos := keygen.Positions(3000, seed)
		var sizes [9]int
		neg, nonNeg := 0, 0
		for _, p := range pos {
			require.NotEqual(t, int64(math.MinInt64), p)
			sizes[partitionpayload.PositionSize(p)]++
			if p < 0 {
				neg++
			} else {
				nonNeg++
			}
		}
		for n := 1; n <= 8; n++ {
			assert.Positive(t, sizes[n], "seed %d: no %d-byte position among 3000", seed, n)
		}
		assert.Positive(t, neg, "seed %d: no ^data positions", seed)
		assert.Positive(t, nonNeg, "seed %d: no row-index positions", seed)
	}
}

func TestPositionsMostlyIncreasing(t *testing.T) {
	pos := keygen.Positions(10000, 1)
	// Magnitudes of each stream grow; each ~3% outlier breaks the order
	// at most twice (into it and out of it).
	last := map[bool]int64{true: -1, false: -1}
	backwards := 0
	for _, p := range pos {
		rowIndex := p >= 0
		mag := p
		if !rowIndex {
			mag = ^p
		}
		if mag <= last[rowIndex] {
			backwards++
		}
		last[rowIndex] = mag
	}
	assert.Less(t, backwards, len(pos)/10)
	assert.Greater(t, max(pos[len(pos)-1], ^pos[len(pos)-1]), int64(1)<<39)
}

func TestErrors(t *testing.T) {
	_, err := keygen.Config{Kind: keygen.Text, Count: 1000, KeyLenMin: 1, KeyLenMax: 1}.Keys()
	require.ErrorIs(t, err, keygen.ErrTooFew)

	for _, cfg := range []keygen.Config{
		{Count: -1},
		{Kind: keygen.Kind(99), Count: 1},
		{Kind: keygen.Text, Count: 1, KeyLenMin: 5, KeyLenMax: 4},
		{Kind: keygen.Blob, Count: 1, PrefixBytes: 65535, KeyLenMin: 1, KeyLenMax: 1},
		{Kind: keygen.UUID, Count: 1, PrefixBytes: 65530},
		{Partitioner: partitioner.Partitioner(9), Count: 1},
	} {
		_, err := cfg.Keys()
		require.Error(t, err, "%+v", cfg)
	}

	require.Empty(t, mustKeys(t, keygen.Config{Count: 0}))
}

func TestParseKind(t *testing.T) {
	for _, k := range allKinds {
		got, err := keygen.ParseKind(k.String())
		require.NoError(t, err)
		require.Equal(t, k, got)
	}
	got, err := keygen.ParseKind("UUID")
	require.NoError(t, err)
	require.Equal(t, keygen.UUID, got)
	_, err = keygen.ParseKind("float")
	require.True(t, errors.Is(err, keygen.ErrKind))
}

// TestCapacity: counts a kind cannot supply are refused up front, before
// anything is allocated (an int32 count above 2^32 used to die of an
// out-of-memory fatal error allocating the key slice).
func TestCapacity(t *testing.T) {
	for _, tc := range []struct {
		cfg  keygen.Config
		want uint64
	}{
		{keygen.Config{Kind: keygen.Int32}, 1 << 32},
		{keygen.Config{Kind: keygen.Int64}, math.MaxUint64},
		{keygen.Config{Kind: keygen.UUID}, math.MaxUint64},
		{keygen.Config{Kind: keygen.Text, KeyLenMin: 1, KeyLenMax: 1}, 68},
		{keygen.Config{Kind: keygen.Text, KeyLenMin: 1, KeyLenMax: 2}, 68 + 68*68},
		{keygen.Config{Kind: keygen.Blob, KeyLenMin: 0, KeyLenMax: 1}, 256},                 // no empty key
		{keygen.Config{Kind: keygen.Blob, KeyLenMin: 0, KeyLenMax: 1, PrefixBytes: 2}, 257}, // the prefix alone is a key
		{keygen.Config{Kind: keygen.Blob, KeyLenMin: 2, KeyLenMax: 3}, 256*256 + 256*256*256},
		{keygen.Config{Kind: keygen.Blob, KeyLenMin: 1, KeyLenMax: 9}, math.MaxUint64},
		{keygen.Config{Kind: keygen.Text}, math.MaxUint64}, // 1..32
	} {
		assert.Equal(t, tc.want, tc.cfg.Capacity(), "%+v", tc.cfg)
	}

	refused := []keygen.Config{
		{Kind: keygen.Text, Count: 69, KeyLenMin: 1, KeyLenMax: 1},
		{Kind: keygen.Blob, Count: 257, KeyLenMin: 0, KeyLenMax: 1},
	}
	// An int holds a count above Int32's 2^32 only where it has 64 bits.
	if strconv.IntSize == 64 {
		for _, n := range []uint64{5_000_000_000, 1<<32 + 1} {
			refused = append(refused, keygen.Config{Kind: keygen.Int32, Count: int(n)})
		}
	}
	for _, cfg := range refused {
		_, err := cfg.Keys()
		require.ErrorIs(t, err, keygen.ErrTooFew, "%+v", cfg)
		assert.Contains(t, err.Error(), "offers only")
	}
	// Exactly the capacity is possible.
	keys := mustKeys(t, keygen.Config{Kind: keygen.Blob, Count: 257, KeyLenMin: 0, KeyLenMax: 1, PrefixBytes: 2, Partitioner: partitioner.ByteOrdered})
	require.Len(t, keys, 257)
}

// TestMaxMemory: a set that would not fit MaxMemory is refused with
// ErrTooLarge before anything is allocated.
func TestMaxMemory(t *testing.T) {
	tooLarge := []keygen.Config{
		{Kind: keygen.UUID, Count: 50_000_000},
		{Kind: keygen.Text, Count: 100_000, PrefixBytes: 60_000, KeyLenMin: 1, KeyLenMax: 10},
	}
	// An int holds 2^40 only where it has 64 bits (a variable: the
	// constant would not compile for 32-bit int).
	if n := uint64(1) << 40; strconv.IntSize == 64 {
		tooLarge = append(tooLarge, keygen.Config{Kind: keygen.Int64, Count: int(n)})
	}
	for _, cfg := range tooLarge {
		require.Greater(t, cfg.MemoryEstimate(), int64(keygen.MaxMemory))
		_, err := cfg.Keys()
		require.ErrorIs(t, err, keygen.ErrTooLarge, "%+v", cfg)
	}
	ok := keygen.Config{Kind: keygen.UUID, Count: 35_000_000}
	require.LessOrEqual(t, ok.MemoryEstimate(), int64(keygen.MaxMemory), "the documented 35M UUID keys fit")
}

// TestMemoryEstimate: what Keys and Positions allocate in all stays close
// to MemoryEstimate, so MaxMemory bounds the real peak. (Keys once held a
// second Count-sized slice while sorting, twice the estimate.)
func TestMemoryEstimate(t *testing.T) {
	for _, cfg := range []keygen.Config{
		{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 200_000, Seed: 1},
		{Partitioner: partitioner.ByteOrdered, Kind: keygen.Text, Count: 100_000, Seed: 1, KeyLenMin: 8, KeyLenMax: 40},
	} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		keys := mustKeys(t, cfg)
		pos := keygen.Positions(len(keys), cfg.Seed)
		runtime.ReadMemStats(&m1)
		total := int64(m1.TotalAlloc - m0.TotalAlloc)
		est := cfg.MemoryEstimate()
		t.Logf("%v: allocated %d bytes, estimate %d (%.2fx)", cfg.Kind, total, est, float64(total)/float64(est))
		assert.Less(t, total, est*13/10, "%v: allocated %d bytes, estimate %d", cfg.Kind, total, est)
		runtime.KeepAlive(pos)
	}
}

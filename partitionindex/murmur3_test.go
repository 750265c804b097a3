package partitionindex

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/partitioner"
)

// collidingKeys returns n Murmur3 keys sorted by partitioner.Compare whose
// tokens come from a few values only, so runs of equal tokens (the case the
// token-first scratch path completes encodings for) are common: raw keys
// with zero bytes, keys that are prefixes of others, the empty key.
func collidingKeys(r *rand.Rand, n int) []partitioner.Key {
	tokens := []int64{-1 << 62, -5, 0, 1, 1 << 40, 1<<40 + 1, 1<<62 + 7}
	seen := map[string]bool{}
	var keys []partitioner.Key
	for len(keys) < n {
		raw := randomBytes(r, 0, 12, []byte{0, 1, 0xFE, 0xFF, 'a'})
		k := partitioner.Murmur3.Decorate(raw)
		if r.IntN(4) > 0 {
			k.Token = tokens[r.IntN(len(tokens))]
		}
		id := fmt.Sprintf("%d/%x", k.Token, raw)
		if seen[id] {
			continue
		}
		seen[id] = true
		keys = append(keys, k)
	}
	slices.SortFunc(keys, partitioner.Compare)
	return keys
}

// TestMurmur3TokenCollisions: the token-first scratch path writes the
// reference path's bytes when neighbours share tokens, including the early
// open views taken along the way (whose LastKey the scratch path reads back
// from a slot that may still hold raw bytes), at both page sizes.
func TestMurmur3TokenCollisions(t *testing.T) {
	for _, n := range []int{1, 2, 3, 10, 200, 5000} {
		for _, pageSize := range []int{0, 64} {
			t.Run(fmt.Sprintf("n=%d/page=%d", n, pageSize), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), uint64(pageSize)))
				keys := collidingKeys(r, n)
				var files [2][]byte
				var views [2][]*PartialIndex
				for i, path := range buildpath.All {
					var buf bytes.Buffer
					b := newPathBuilder(&buf, Options{PageSize: pageSize}, path)
					for j, k := range keys {
						require.NoError(t, b.Add(&k, int64(j)))
						if j%7 == 3 {
							if view, ok := takeView(t, b); ok {
								views[i] = append(views[i], view)
							}
						}
					}
					_, err := b.Complete()
					require.NoError(t, err)
					files[i] = buf.Bytes()
				}
				require.Equal(t, files[1], files[0], "scratch and reference paths must write identical files")
				require.Equal(t, views[1], views[0], "and take identical early-open views")
				// Forced tokens are not the keys' own, so the footer check that
				// detects a wrong partitioner would refuse the file.
				ix, err := NewIndex(files[0], OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
				require.NoError(t, err)
				rd, err := ix.OpenReader()
				require.NoError(t, err)
				defer rd.Close()
				for j, k := range keys {
					pos, ok, err := rd.Get(&k)
					require.NoError(t, err)
					require.True(t, ok, "key %d", j)
					require.Equal(t, int64(j), pos, "key %d", j)
				}
			})
		}
	}
}

// TestMurmur3PathIsScratchPath ties Add's Murmur3 path, which holds a
// manually inlined copy of addTokenFirst's and addPending's work with the
// trie call moved last, to addTokenFirst alone and to the general path
// (addOther, given a Murmur3 key): all three must write the same bytes
// for keys with colliding tokens and for random ones of 0 to 40 bytes
// (each size of Add's fixed-size moves, and past them), some without
// their hash computed, with positions of every payload size, across full
// output buffers (the 30,000-key sets), and refuse the same keys with the
// same error.
func TestMurmur3PathIsScratchPath(t *testing.T) {
	for _, n := range []int{1, 2, 3, 50, 3000, 30000} {
		r := rand.New(rand.NewPCG(uint64(n), 22))
		keys := collidingKeys(r, min(n, 3000))
		for range n {
			keys = append(keys, partitioner.Murmur3.Decorate(randomBytes(r, 0, 40, nil)))
		}
		slices.SortFunc(keys, partitioner.Compare)
		keys = slices.CompactFunc(keys, func(a, b partitioner.Key) bool { return partitioner.Compare(a, b) == 0 })
		for j := range keys {
			if r.IntN(8) == 0 {
				keys[j].Hashed, keys[j].Hash2 = false, 0 // HashByte computes it
			}
		}
		pos := make([]int64, len(keys))
		for j := range pos {
			pos[j] = r.Int64N(1<<62) >> r.IntN(63)
			if r.IntN(2) == 0 {
				pos[j] = ^pos[j]
			}
		}
		for _, pageSize := range []int{0, 64} {
			var files [3][]byte
			var metas [3]Metadata
			for i, add := range []func(*Builder, *partitioner.Key, int64) error{(*Builder).addOther, (*Builder).Add, (*Builder).addTokenFirst} {
				var buf bytes.Buffer
				b := NewBuilder(&buf, Options{PageSize: pageSize})
				for j := range keys {
					require.NoError(t, add(b, &keys[j], pos[j]), "n=%d key %d", n, j)
					if j > 0 && j%5 == 0 {
						err := add(b, &keys[j-1], 0)
						require.ErrorIs(t, err, ErrKeyOrder, "n=%d key %d again", n, j-1)
						require.Equal(t, fmt.Sprintf("%x", keys[j].Raw), fmt.Sprintf("%x", err.(*KeyError).Prev))
					}
				}
				var err error
				metas[i], err = b.Complete()
				require.NoError(t, err)
				files[i] = buf.Bytes()
			}
			for i := 1; i < 3; i++ {
				require.Equal(t, metas[0], metas[i], "n=%d page=%d path %d", n, pageSize, i)
				require.Equal(t, files[0], files[i], "n=%d page=%d: the Murmur3 paths (%d) and the scratch path must write identical files", n, pageSize, i)
			}
		}
	}
}

// TestMurmur3OrderErrorNamesPrevious: an out-of-order or duplicate key is
// refused on both paths with the same error, naming the pending key's raw
// bytes whether its slot holds them raw (different tokens) or completed
// (equal tokens), and the builder goes on as before.
func TestMurmur3OrderErrorNamesPrevious(t *testing.T) {
	k := func(token int64, raw string) partitioner.Key {
		key := partitioner.Murmur3.Decorate([]byte(raw))
		key.Token = token
		return key
	}
	for _, tc := range []struct {
		name              string
		first, prev, next partitioner.Key
	}{
		{"raw pending, smaller token", k(5, "q"), k(10, "b\x00c"), k(9, "z")},
		{"completed pending, smaller token", k(10, "a"), k(10, "b\x00c"), k(9, "z")},
		{"equal token, smaller key", k(5, "q"), k(10, "b\x00c"), k(10, "b\x00")},
		{"duplicate", k(5, "q"), k(10, "b\x00c"), k(10, "b\x00c")},
		{"duplicate of a completed key", k(10, "a"), k(10, "b"), k(10, "b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs [2]error
			var files [2][]byte
			for i, path := range buildpath.All {
				var buf bytes.Buffer
				b := newPathBuilder(&buf, Options{}, path)
				require.NoError(t, b.Add(&tc.first, 1))
				require.NoError(t, b.Add(&tc.prev, 2))
				errs[i] = b.Add(&tc.next, 3)
				require.ErrorIs(t, errs[i], ErrKeyOrder)
				var ke *KeyError
				require.ErrorAs(t, errs[i], &ke)
				require.Equal(t, tc.prev.Raw, ke.Prev)
				require.Equal(t, tc.next.Raw, ke.Key)
				dk := k(11, "x")
				require.NoError(t, b.Add(&dk, 4), "the refused key left no trace")
				_, err := b.Complete()
				require.NoError(t, err)
				files[i] = buf.Bytes()
			}
			require.Equal(t, errs[1].Error(), errs[0].Error())
			require.Equal(t, files[1], files[0])
		})
	}
}

// TestTokenFirstSlot: Add writes a Murmur3 key's slot, 40 <token> <raw
// key bytes>, with room for the whole encoding, by a fixed-size copy for 8
// to 16 raw bytes into a slot with room for it and by append otherwise;
// for every length, over fresh slots and slots that held longer and
// shorter keys before, the slot must hold exactly what appending gives,
// and completing it must not reallocate.
func TestTokenFirstSlot(t *testing.T) {
	b := NewBuilder(io.Discard, Options{})
	token := int64(math.MinInt64 + 1)
	// The first three go into fresh slots; the rest over slots of 37 bytes
	// or more, which take 8 to 16 raw bytes in the fixed write.
	for _, n := range []int{8, 16, 12, 40, 0, 7, 8, 9, 15, 16, 17, 3, 16, 8, 24, 12, 1, 16} {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(0xA0 + i)
		}
		key := partitioner.Murmur3.Decorate(raw)
		key.Token = token
		token += 1 << 56 // a new first token byte: the keys stay raw
		require.NoError(t, b.Add(&key, 1))
		got := b.keys.Current()
		want := append(bytecomparable.AppendLongTokenPrefix(nil, key.Token), raw...)
		require.Equal(t, want, got, "n=%d", n)
		require.True(t, b.pendingRaw, "n=%d", n)
		require.GreaterOrEqual(t, cap(got), bytecomparable.MaxLongTokenKeyLen(n), "n=%d: no room to complete in place", n)
	}
}

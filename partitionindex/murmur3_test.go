package partitionindex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

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

// appendRaw copies a short key in words instead of append's memmove call:
// it must append exactly what append does, after a non-empty prefix, for
// every length and whether or not dst has room (then it must not write
// past its length into memory someone else may see).
func TestAppendRawIsAppend(t *testing.T) {
	for n := 0; n <= 40; n++ {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(0xA0 + i)
		}
		for _, room := range []int{0, n - 1, n, n + 8} {
			if room < 0 {
				continue
			}
			prefix := []byte{0x40, 1, 2, 3}
			dst := append(make([]byte, 0, len(prefix)+room), prefix...)
			spare := dst[len(dst):cap(dst)]
			for i := range spare {
				spare[i] = 0xEE
			}
			got := appendRaw(dst, raw)
			want := append(slices.Clone(prefix), raw...)
			require.Equal(t, want, got, "n=%d room=%d", n, room)
			if n <= room {
				require.Equal(t, cap(dst), cap(got), "n=%d room=%d: reallocated though it fit", n, room)
				for i, c := range got[len(got):cap(got)] {
					require.Equal(t, byte(0xEE), c, "n=%d room=%d: wrote past the key at %d", n, room, len(got)+i)
				}
			}
		}
	}
}

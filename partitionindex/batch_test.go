package partitionindex

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
)

// GetBatch must answer every key exactly as Get does, and both must agree
// with the B-tree model: members found at their positions, whatever the
// batch size (empty, one lane, a round, more than a round) and key order.

// batchSizes cover an empty batch, one key, counts around the walker's lane
// count (16, trie's batchLanes: a lane refills from the chunk), around one
// chunk and several chunks with a ragged end.
var batchSizes = []int{0, 1, 2, 15, 16, 17, batchChunk - 1, batchChunk, batchChunk + 1, 3*batchChunk + 5, 1000}

// checkBatchAgainstGet runs GetBatch over probes cut into batches of every
// size in batchSizes and compares each answer with Get's.
func checkBatchAgainstGet(t *testing.T, rd *Reader, probes []partitioner.Key) {
	t.Helper()
	want := make([]Result, len(probes))
	for i, k := range probes {
		want[i].Pos, want[i].OK, want[i].Err = rd.Get(&k)
	}
	for _, size := range batchSizes {
		// A non-empty dst: results are appended after what is there.
		got := []Result{{Pos: -42}}
		if size == 0 {
			require.Equal(t, got, rd.GetBatch(got, nil), "empty batch")
			require.Equal(t, got, rd.GetBatch(got, probes[:0]), "empty batch")
			continue
		}
		for i := 0; i < len(probes); i += size {
			got = rd.GetBatch(got, probes[i:min(i+size, len(probes))])
		}
		require.Equal(t, Result{Pos: -42}, got[0], "batch size %d: dst prefix overwritten", size)
		if size == 1000 {
			// GetBatchCold walks as GetBatch, only advising instead of
			// prefetching: the same answers.
			cold := rd.GetBatchCold(nil, probes)
			for i := range probes {
				if !sameResult(cold[i], want[i]) {
					t.Fatalf("GetBatchCold, key %d (%x): %+v, Get %+v", i, probes[i].Raw, cold[i], want[i])
				}
			}
		}
		got = got[1:]
		require.Len(t, got, len(probes), "batch size %d", size)
		for i := range probes {
			if !sameResult(got[i], want[i]) {
				t.Fatalf("batch size %d, key %d (%x): GetBatch %+v, Get %+v", size, i, probes[i].Raw, got[i], want[i])
			}
		}
	}
}

func sameResult(a, b Result) bool {
	if a.Pos != b.Pos || a.OK != b.OK || (a.Err == nil) != (b.Err == nil) {
		return false
	}
	return a.Err == nil || a.Err.Error() == b.Err.Error()
}

func TestGetBatchMatchesGetAndModel(t *testing.T) {
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		for _, ks := range keyset.Shapes {
			t.Run(p.String()+"/"+ks.Name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(11, uint64(len(ks.Name))))
				raws := ks.Gen(r, 3000)
				members, absent := raws[:2000], raws[2000:]
				m, rd := openModel(t, p, members, r, 0)
				var probes []partitioner.Key
				for _, e := range m.sorted() {
					probes = append(probes, e.key)
				}
				nMembers := len(probes)
				for _, raw := range absent {
					probes = append(probes, p.Decorate(raw))
				}
				order := r.Perm(len(probes))
				shuffled := make([]partitioner.Key, len(probes))
				for i, j := range order {
					shuffled[i] = probes[j]
				}
				got := rd.GetBatch(nil, shuffled)
				for i, j := range order {
					k := probes[j]
					e, isMember := m.tree.Get(modelEntry{key: k})
					switch {
					case got[i].Err != nil:
						t.Fatalf("key %x: %v", k.Raw, got[i].Err)
					case isMember && (!got[i].OK || got[i].Pos != e.pos):
						t.Fatalf("member %x: GetBatch %+v, model position %d", k.Raw, got[i], e.pos)
					case !isMember && j < nMembers:
						t.Fatalf("model lost member %x", k.Raw)
					}
				}
				checkBatchAgainstGet(t, rd, shuffled)
			})
		}
	}
}

// Two Murmur3 keys whose tokens are equal make the walk run past the token
// prefix into the key bytes: the batch must then finish those lanes as Get
// does.
func TestGetBatchEqualTokens(t *testing.T) {
	var keys []partitioner.Key
	for tok := int64(-3); tok <= 3; tok++ {
		for _, raw := range []string{"a", "ab", "b", "zz"} {
			k := partitioner.Murmur3.Decorate([]byte(raw))
			k.Token = tok * 1000 // forced collisions: same token, different keys
			keys = append(keys, k)
		}
	}
	file := buildKeys(t, keys, Options{Partitioner: partitioner.Murmur3})
	// The forced tokens are not the keys' hashes, so the footer check that
	// NewIndex makes (its first key must walk to the first entry) refuses
	// the file: open it unchecked.
	ix, err := NewIndex(file, OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
	require.NoError(t, err)
	rd, err := ix.OpenReader()
	require.NoError(t, err)
	defer rd.Close()
	probes := append([]partitioner.Key(nil), keys...)
	for _, raw := range []string{"a", "c", "abc", ""} {
		k := partitioner.Murmur3.Decorate([]byte(raw))
		k.Token = 1000
		probes = append(probes, k) // equal token, absent or present key
	}
	got := rd.GetBatch(nil, probes)
	for i := range keys {
		require.Equal(t, Result{Pos: int64(i), OK: true}, got[i], "key %d", i)
	}
	checkBatchAgainstGet(t, rd, probes)

	// A Murmur3 ceiling also walks with the token prefix first and runs
	// past it here: its candidates must be the whole encoding's. (A
	// confirmed Ceiling cannot run on these keys: KeyAt's raw key decorates
	// to its real token, not the forced one.)
	for _, k := range probes {
		c, err := rd.CeilingCandidates(&k)
		require.NoError(t, err)
		want, err := rd.CeilingCandidatesEncoded(k.AppendComparable(nil))
		require.NoError(t, err)
		require.Equal(t, want, c, "key %x token %d", k.Raw, k.Token)
	}
}

// Keys of another partitioner, and a closed handle, give Get's errors, lane
// by lane, without disturbing the other lanes.
func TestGetBatchErrors(t *testing.T) {
	keys, file := murmur3Index(t, 500, 5)
	_, rd := openIndexReader(t, file, partitioner.Murmur3)
	probes := append([]partitioner.Key(nil), keys[:40]...)
	probes[7] = partitioner.ByteOrdered.Decorate([]byte("other partitioner"))
	probes[23] = partitioner.Random.Decorate([]byte("another"))
	got := rd.GetBatch(nil, probes)
	require.ErrorIs(t, got[7].Err, ErrPartitioner)
	require.ErrorIs(t, got[23].Err, ErrPartitioner)
	require.Equal(t, Result{Pos: 8, OK: true}, got[8])
	checkBatchAgainstGet(t, rd, probes)
	require.NoError(t, rd.Close())
	for _, res := range rd.GetBatch(nil, keys[:20]) {
		require.ErrorIs(t, res.Err, ErrClosed)
	}
	checkBatchAgainstGet(t, rd, keys[:20])
}

// Early-open views read part of the trie from the file and part from the
// in-memory tail; the batch must read both as Get does.
func TestGetBatchPartialIndex(t *testing.T) {
	keys := randomMurmur3Keys(rand.New(rand.NewPCG(3, 3)), 6000)
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{PageSize: 256})
	views := 0
	for i, k := range keys {
		require.NoError(t, b.Add(&k, int64(i)))
		if (i+1)%1000 != 0 {
			continue
		}
		view, accepted := takeView(t, b)
		require.True(t, accepted)
		require.NotEmpty(t, view.Tail)
		_, rd := openViewReader(t, view, buf.Bytes())
		got := rd.GetBatch(nil, keys[:i])
		for j := range got {
			require.Equal(t, Result{Pos: int64(j), OK: true}, got[j], "view after %d keys, key %d", i+1, j)
		}
		probes := append([]partitioner.Key(nil), keys...) // the latest keys are not in the view
		rand.New(rand.NewPCG(uint64(i), 1)).Shuffle(len(probes), func(a, b int) { probes[a], probes[b] = probes[b], probes[a] })
		checkBatchAgainstGet(t, rd, probes[:700])
		require.NoError(t, rd.Close())
		views++
	}
	require.Equal(t, 6, views)
}

// GetBatch allocates nothing once dst has room, for Murmur3 keys (token
// prefixes only) and, after the first batch has grown the handle's scratch,
// for keys encoded whole.
func TestGetBatchAllocatesNothing(t *testing.T) {
	skipIfAllocsInstrumented(t)
	for _, cfg := range []keygen.Config{
		{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 5_000, Seed: 3},
		{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 5_000, Seed: 4, KeyLenMin: 1, KeyLenMax: 40},
	} {
		t.Run(cfg.Partitioner.String(), func(t *testing.T) {
			keys, err := cfg.Keys()
			require.NoError(t, err)
			_, rd := openIndexReader(t, buildKeys(t, keys, Options{Partitioner: cfg.Partitioner}), cfg.Partitioner)
			probes := append([]partitioner.Key(nil), keys...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(probes), func(a, b int) { probes[a], probes[b] = probes[b], probes[a] })
			probes = append(probes, cfg.Partitioner.Decorate([]byte("absent key")))
			dst := make([]Result, 0, 100)
			dst = rd.GetBatch(dst, probes[:100]) // warm the handle's scratch
			i := 0
			allocs := testing.AllocsPerRun(200, func() {
				j := i % (len(probes) - 100)
				dst = rd.GetBatch(dst[:0], probes[j:j+100])
				i += 37
			})
			require.Zero(t, allocs, "allocations per GetBatch of 100 keys")
			allocs = testing.AllocsPerRun(50, func() {
				j := i % (len(probes) - 100)
				dst = rd.GetBatchCold(dst[:0], probes[j:j+100])
				i += 37
			})
			require.Zero(t, allocs, "allocations per GetBatchCold of 100 keys")
			require.Equal(t, Result{Pos: 0, OK: false}, rd.GetBatch(dst[:0], probes[len(probes)-1:])[0], "absent key")
		})
	}
}

// Lanes refill as their walks end, and walks of hits, misses and errors end
// at different depths: every result must still land at its key's index. A
// long batch that mixes present keys, absent keys and keys of the wrong
// partitioner, cut at every size of batchSizes.
func TestGetBatchRefillMixed(t *testing.T) {
	keys, file := murmur3Index(t, 3000, 9)
	_, rd := openIndexReader(t, file, partitioner.Murmur3)
	r := rand.New(rand.NewPCG(9, 9))
	probes := make([]partitioner.Key, 1200)
	for i := range probes {
		switch {
		case i%7 == 3:
			probes[i] = partitioner.ByteOrdered.Decorate([]byte{byte(i)})
		case i%3 == 1:
			probes[i] = partitioner.Murmur3.Decorate(randomBytes(r, 1, 20, nil))
		default:
			probes[i] = keys[r.IntN(len(keys))]
		}
	}
	got := rd.GetBatch(nil, probes)
	for i := range probes {
		if i%7 == 3 {
			require.ErrorIs(t, got[i].Err, ErrPartitioner, "key %d", i)
		}
	}
	checkBatchAgainstGet(t, rd, probes)
}

// murmur3Index builds the index of count generated Murmur3 UUID keys, key
// i at position i, and returns the keys and the file.
func murmur3Index(t *testing.T, count int, seed uint64) ([]partitioner.Key, []byte) {
	t.Helper()
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: count, Seed: seed}
	keys, err := cfg.Keys()
	require.NoError(t, err)
	return keys, buildKeys(t, keys, Options{Partitioner: partitioner.Murmur3})
}

// The walk checks a hashed key's hash byte at the leaf (trie.Probe.Check):
// a stored prefix whose hash byte differs is a miss, a key decorated
// without its hash (Hashed false) is checked after the walk, and on
// corrupted bytes (payloads cut short, flags changed, pointers bent) every
// answer and error is still Get's.
func TestGetBatchHashCheck(t *testing.T) {
	keys, file := murmur3Index(t, 2000, 13)
	var probes []partitioner.Key
	for i, k := range keys[:600] {
		switch i % 4 {
		case 1:
			k.Hash2 ^= 1 // the same path, another hash byte: a miss
		case 2:
			k.Hashed, k.Hash2 = false, 0 // Get and GetBatch hash Raw themselves
		case 3:
			k.Hashed, k.Hash2 = false, 0
			k.Raw = append([]byte{0xEE}, k.Raw...) // the same token, another key
		}
		probes = append(probes, k)
	}
	ix, err := NewIndex(file, OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
	require.NoError(t, err)
	rd, err := ix.OpenReader()
	require.NoError(t, err)
	got := rd.GetBatch(nil, probes)
	for i := range probes {
		want := Result{Pos: int64(i), OK: true}
		if i%4 == 1 || i%4 == 3 {
			want = Result{}
		}
		require.Equal(t, want, got[i], "key %d", i)
	}
	checkBatchAgainstGet(t, rd, probes)
	require.NoError(t, rd.Close())

	r := rand.New(rand.NewPCG(13, 13))
	trieEnd := len(file) - 24 // the footer's 24 bytes follow the trie
	corrupted := 0
	for range 40 {
		buf := bytes.Clone(file)
		for range 1 + r.IntN(3) {
			p := trieEnd - 1 - r.IntN(min(trieEnd, 4000)) // the top of the trie and the last leaves
			if r.IntN(3) == 0 {
				p = r.IntN(trieEnd)
			}
			buf[p] = byte(r.IntN(256))
		}
		ix, err := NewIndex(buf, OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
		if err != nil {
			continue
		}
		rd, err := ix.OpenReader()
		require.NoError(t, err)
		checkBatchAgainstGet(t, rd, probes[:200])
		require.NoError(t, rd.Close())
		corrupted++
	}
	require.Greater(t, corrupted, 20, "corrupted files that open")
}

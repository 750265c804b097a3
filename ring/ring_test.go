package ring

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func commit(r *Ring, s string) []byte {
	b := append(r.Scratch(), s...)
	r.Commit(b)
	return b
}

func TestRotation(t *testing.T) {
	var r Ring
	assert.Nil(t, r.Current())
	assert.Nil(t, r.Previous())
	assert.Nil(t, r.Retained())
	assert.Equal(t, 0, r.Len())

	commit(&r, "k0")
	assert.Equal(t, "k0", string(r.Current()))
	assert.Nil(t, r.Previous())
	commit(&r, "k1")
	assert.Equal(t, "k1", string(r.Current()))
	assert.Equal(t, "k0", string(r.Previous()))
	assert.Nil(t, r.Retained())
	for i := 2; i < 50; i++ {
		commit(&r, "k"+strconv.Itoa(i))
		require.Equal(t, "k"+strconv.Itoa(i), string(r.Current()))
		require.Equal(t, "k"+strconv.Itoa(i-1), string(r.Previous()))
		require.Equal(t, "k"+strconv.Itoa(i-2), string(r.Retained()))
		require.Equal(t, 3, r.Len())
	}
}

// TestBuilderPattern replays how the partition index builder uses the ring
// and checks that every key it reads is intact when it reads it: the pending
// key and the trie writer's last key survive the encoding of the next key.
func TestBuilderPattern(t *testing.T) {
	var r Ring
	key := func(i int) string { return fmt.Sprintf("key-%04d-%s", i, string(make([]byte, i%7))) }
	var trieLast []byte // what the trie writer holds: a view into a ring slot
	for i := range 200 {
		enc := append(r.Scratch(), key(i)...)
		// While encoding key i, key i-1 (pending) and key i-2 (trie's last)
		// must be untouched.
		if i >= 1 {
			require.Equal(t, key(i-1), string(r.Current()))
		}
		if i >= 2 {
			require.Equal(t, key(i-2), string(r.Previous()))
			require.Equal(t, key(i-2), string(trieLast))
		}
		r.Commit(enc)
		if i >= 1 {
			// Hand the pending key i-1 to the trie writer, which reads its
			// previous key (i-2, now Retained) during the call.
			if i >= 2 {
				require.Equal(t, key(i-2), string(r.Retained()))
				require.Equal(t, key(i-2), string(trieLast))
			}
			trieLast = r.Previous()
		}
	}
}

func TestScratchWithoutCommit(t *testing.T) {
	var r Ring
	for _, s := range []string{"a", "b", "c"} {
		commit(&r, s)
	}
	s1 := append(r.Scratch(), "failed"...)
	// No Commit: Current and Previous are unchanged, Retained is gone.
	assert.Equal(t, "c", string(r.Current()))
	assert.Equal(t, "b", string(r.Previous()))
	assert.Nil(t, r.Retained())
	// The next Scratch is the same slot again.
	s2 := r.Scratch()
	assert.Same(t, unsafe.SliceData(s1), unsafe.SliceData(s2[:1]))
	r.Commit(append(s2, 'd'))
	assert.Equal(t, "d", string(r.Current()))
	assert.Equal(t, "c", string(r.Previous()))
	assert.Equal(t, "b", string(r.Retained()))
}

func TestCommitReallocated(t *testing.T) {
	var r Ring
	commit(&r, "x")
	big := append(r.Scratch(), make([]byte, 10000)...) // forces a new array
	r.Commit(big)
	assert.Len(t, r.Current(), 10000)
	assert.Equal(t, "x", string(r.Previous()))
	// The grown buffer comes back as scratch two commits later.
	commit(&r, "y")
	commit(&r, "z")
	s := r.Scratch()
	assert.GreaterOrEqual(t, cap(s), 10000)
	assert.Empty(t, s)
}

func TestReset(t *testing.T) {
	var r Ring
	for i := range 3 {
		commit(&r, string(make([]byte, 100+i)))
	}
	r.Reset()
	assert.Nil(t, r.Current())
	assert.Nil(t, r.Previous())
	assert.Nil(t, r.Retained())
	assert.Equal(t, 0, r.Len())
	// Capacity is kept: three more commits of the same sizes reuse it.
	if !raceEnabled {
		allocs := testing.AllocsPerRun(10, func() {
			r.Reset()
			for i := range 3 {
				r.Commit(append(r.Scratch(), make([]byte, 100)...))
				_ = i
			}
		})
		assert.Zero(t, allocs)
	}
}

func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	var r Ring
	payload := make([]byte, 512)
	for range 3 { // warm-up: every slot grows once
		r.Commit(append(r.Scratch(), payload...))
	}
	allocs := testing.AllocsPerRun(100, func() {
		r.Commit(append(r.Scratch(), payload...))
		_, _, _ = r.Current(), r.Previous(), r.Retained()
	})
	assert.Zero(t, allocs)
}

// TestSlotsNeverShared checks that Current, Previous and Retained always sit
// in different arrays, so rotation never makes two roles alias.
func TestSlotsNeverShared(t *testing.T) {
	var r Ring
	for i := range 20 {
		commit(&r, strconv.Itoa(i)+"-payload")
		if i < 2 {
			continue
		}
		c, p, o := unsafe.SliceData(r.Current()), unsafe.SliceData(r.Previous()), unsafe.SliceData(r.Retained())
		require.NotSame(t, c, p)
		require.NotSame(t, c, o)
		require.NotSame(t, p, o)
	}
}

// TestAmend: amending Current (in place or reallocated) changes only
// Current; Previous and the rotation are untouched, and the amended slot
// comes back as scratch with its capacity.
func TestAmend(t *testing.T) {
	var r Ring
	r.Amend([]byte("ignored")) // an empty ring has no Current
	assert.Nil(t, r.Current())
	commit(&r, "p")
	cur := commit(&r, "tok")
	r.Amend(append(cur, "-rest"...)) // may reuse cur's array
	assert.Equal(t, "tok-rest", string(r.Current()))
	assert.Equal(t, "p", string(r.Previous()))
	r.Amend(append(make([]byte, 0, 4096), "tok-rest-grown"...))
	assert.Equal(t, "tok-rest-grown", string(r.Current()))
	commit(&r, "next")
	assert.Equal(t, "tok-rest-grown", string(r.Previous()))
	commit(&r, "n2")
	assert.GreaterOrEqual(t, cap(r.Scratch()), 4096, "the amended buffer is the slot's from then on")
}

// TestReuseKnowsSharedBytes replays keys under long shared prefixes the way
// the ByteOrdered builder writes them: each key goes over the slot Reuse
// hands out, keeping the bytes Reuse says equal Current's and writing the
// rest; some keys are refused after they were written (no commit). Every
// count Reuse reports must hold: the slot's first same bytes are Current's.
// And under one long prefix nearly all of each key is kept, not written.
func TestReuseKnowsSharedBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var ring Ring
	prefix := make([]byte, 300)
	for i := range prefix {
		prefix[i] = byte(r.Uint32())
	}
	var cur []byte // what Current holds, as the model sees it
	written, kept := 0, 0
	for i := range 3000 {
		// A key: most of the shared prefix (or less, or none), then two
		// random bytes.
		cut := len(prefix) - r.IntN(20)
		switch i % 50 {
		case 49:
			cut = 0 // a short key now and then
		case 17, 18, 19:
			cut = r.IntN(len(prefix) + 1) // and keys that share less
		}
		key := append(bytes.Clone(prefix[:cut]), byte(r.Uint32()), byte(r.Uint32()))
		slot, same := ring.Reuse()
		require.LessOrEqual(t, same, len(slot))
		require.LessOrEqual(t, same, len(cur))
		require.True(t, bytes.Equal(cur[:same], slot[:same]), "key %d: Reuse claims %d bytes equal to Current's", i, same)
		keep := min(same, commonPrefix(cur, key))
		slot = append(slot[:keep], key[keep:]...)
		written += len(key) - keep
		kept += keep
		if bytes.Equal(key, cur) || r.IntN(10) == 0 {
			continue // refused: not committed
		}
		ring.CommitShared(slot, commonPrefix(cur, key))
		require.Equal(t, key, ring.Current())
		cur = key
	}
	// (Each short or less-sharing key costs the next keys a rewrite of the
	// prefix; -v logs the totals.)
	t.Logf("bytes kept %d, written %d", kept, written)
	assert.Greater(t, kept, 3*written, "bytes kept %d, written %d", kept, written)
	// Commit (without a shared count) forgets what the slots share.
	commit(&ring, "x")
	_, same := ring.Reuse()
	assert.Zero(t, same)
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}

// TestCommitLen: a ring whose keys are written in place into the Scratch
// slot and committed with CommitLen holds, at every step, what a ring fed
// the same keys through Commit holds (Current, Previous, Retained, Len),
// in the very arrays Scratch handed out; keys grow and shrink, and a slot
// that must grow is committed with Commit in between, as the builder does.
func TestCommitLen(t *testing.T) {
	var a, b Ring
	for i := range 300 {
		key := []byte(fmt.Sprintf("key-%04d-%s", i, make([]byte, i*7%40)))
		a.Commit(append(a.Scratch(), key...))
		s := b.Scratch()
		if cap(s) < len(key) || i%50 == 0 {
			b.Commit(append(s, key...)) // no room (or now and then): the general commit
		} else {
			copy(s[:len(key)], key)
			b.CommitLen(len(key))
			require.Same(t, &s[:1][0], &b.Current()[0], "key %d: the slot's own array", i)
		}
		require.Equal(t, a.Current(), b.Current(), "key %d", i)
		require.Equal(t, a.Previous(), b.Previous(), "key %d", i)
		require.Equal(t, a.Retained(), b.Retained(), "key %d", i)
		require.Equal(t, a.Len(), b.Len(), "key %d", i)
	}
}

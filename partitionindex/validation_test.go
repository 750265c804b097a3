package partitionindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// Input validation: every refused key is a *KeyError naming the call, the
// key and the reason (a sentinel matched with errors.Is), and the builder is
// left exactly as before, so going on gives the clean file. Every malformed
// file is a *CorruptError with the offset of the bad bytes, never a panic.

// murmurTokenInversion returns two keys whose raw bytes increase while their
// Murmur3 tokens decrease: in Cassandra's order the second sorts first.
func murmurTokenInversion() (a, b []byte) {
	for i := 0; ; i++ {
		a, b = fmt.Appendf(nil, "key-%04d", i), fmt.Appendf(nil, "key-%04d", i+1)
		if partitioner.Murmur3.Decorate(a).Token > partitioner.Murmur3.Decorate(b).Token {
			return a, b
		}
	}
}

// refusalCase is a key the builder must refuse after the keys before it.
type refusalCase struct {
	name string
	key  partitioner.Key
	pos  int64
	want error
}

// refusalCases returns keys to offer after prev (the last accepted raw key,
// nil if none) on a builder for p.
func refusalCases(p partitioner.Partitioner, prev []byte) []refusalCase {
	other := partitioner.ByteOrdered
	if p == partitioner.ByteOrdered {
		other = partitioner.Murmur3
	}
	long := bytes.Repeat([]byte{'z'}, partitioner.MaxKeyLength+1)
	out := []refusalCase{
		{"too-long", p.Decorate(long), 1, ErrKeyTooLong},
		{"min-position", p.Decorate([]byte("any")), math.MinInt64, ErrPosition},
		{"other-partitioner", other.Decorate([]byte("any")), 1, ErrPartitioner},
	}
	if prev != nil {
		out = append(out, refusalCase{"repeat", p.Decorate(bytes.Clone(prev)), 1, ErrKeyOrder})
		// A smaller key in the partitioner's order: for ByteOrdered a
		// proper prefix or the empty key, for Murmur3 the empty key (the
		// minimum token).
		smaller := []byte{}
		if p == partitioner.ByteOrdered && len(prev) > 1 {
			smaller = prev[:len(prev)-1]
		}
		out = append(out, refusalCase{"smaller", p.Decorate(smaller), 1, ErrKeyOrder})
		if p == partitioner.ByteOrdered && len(prev) > 2 {
			// Smaller from its middle on: the builder encodes it over
			// the free ring slot (and the encoder's marks) from the
			// strides it shares before it compares, so under a long
			// shared prefix the next key must not take what lies past
			// them as the prefix it shares.
			mid := bytes.Clone(prev)
			if j := len(mid) / 2; mid[j] > 0 {
				mid[j]--
			} else {
				mid = mid[:j]
			}
			out = append(out, refusalCase{"smaller-midway", p.Decorate(mid), 1, ErrKeyOrder})
		}
	}
	return out
}

func checkKeyError(t *testing.T, err error, want error, index int64, key []byte, prev []byte, pos int64) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, want)
	var ke *KeyError
	require.True(t, errors.As(err, &ke), "%T is a *KeyError", err)
	require.Equal(t, want, ke.Err)
	require.Equal(t, index, ke.Index)
	require.Equal(t, key, ke.Key)
	require.Equal(t, pos, ke.Pos)
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, want.Error()), msg)
	require.Contains(t, msg, fmt.Sprintf("#%d", index))
	if want == ErrKeyOrder {
		require.Equal(t, prev, ke.Prev)
		require.Contains(t, msg, fmt.Sprintf("%x", key))
		require.Contains(t, msg, fmt.Sprintf("%x", prev))
	}
	for _, other := range []error{ErrKeyOrder, ErrKeyTooLong, ErrPosition, ErrPartitioner, ErrFinished} {
		if other != want {
			require.NotErrorIs(t, err, other)
		}
	}
}

func TestValidateMurmur3Order(t *testing.T) {
	a, b := murmurTokenInversion()
	require.Negative(t, bytes.Compare(a, b), "raw bytes increase")
	for _, path := range buildpath.All {
		var buf bytes.Buffer
		bl := newPathBuilder(&buf, Options{Partitioner: partitioner.Murmur3}, path)
		require.NoError(t, addRaw(bl, a, 10))
		checkKeyError(t, addRaw(bl, b, 20), ErrKeyOrder, 1, b, a, 20)
		// The other way round is Cassandra's order.
		var want bytes.Buffer
		wb := NewBuilder(&want, Options{Partitioner: partitioner.Murmur3})
		require.NoError(t, addRaw(wb, b, 20))
		require.NoError(t, addRaw(wb, a, 10))
		_, err := wb.Complete()
		require.NoError(t, err)
		// And the builder that refused b still builds {a} cleanly.
		_, err = bl.Complete()
		require.NoError(t, err)
		s := &orderedInput{part: partitioner.Murmur3, keys: [][]byte{a}, pos: []int64{10}}
		require.Equal(t, s.cleanBuild(t, 1), buf.Bytes())
	}
}

// TestValidateRefusedKeysChangeNothing offers every kind of bad key before
// and between the keys of random sets: each is refused with its KeyError,
// Count and Position do not move, and the file equals the clean build.
func TestValidateRefusedKeysChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		var raws [][]byte
		for range 300 {
			raws = append(raws, randomBytesN(r, 1+r.IntN(20), []byte{0, 1, 'a', 0xff}))
		}
		// A run of keys under a 300-byte shared prefix, where a refused
		// ByteOrdered key was first encoded over the free ring slot.
		long := randomBytesN(r, 300, []byte{0, 1, 'a', 0xff})
		for range 40 {
			raws = append(raws, append(slices.Clip(long), randomBytesN(r, 1+r.IntN(20), []byte{0, 1, 'a', 0xff})...))
		}
		// A 65535-byte key is the longest allowed.
		raws = append(raws, bytes.Repeat([]byte{'m'}, partitioner.MaxKeyLength))
		s := newOrderedInput("refused", p, 0, r, raws)
		s.pos[len(s.pos)/2] = math.MaxInt64
		s.pos[len(s.pos)/3] = math.MinInt64 + 1
		want := s.cleanBuild(t, len(s.keys))
		for _, path := range buildpath.All {
			t.Run(fmt.Sprintf("%v/%v", p, path), func(t *testing.T) {
				var buf bytes.Buffer
				b := newPathBuilder(&buf, s.opts(), path)
				var prev []byte
				for i := range s.keys {
					for _, bad := range refusalCases(p, prev) {
						count, pos := b.Count(), b.Position()
						err := b.Add(&bad.key, bad.pos)
						checkKeyError(t, err, bad.want, int64(i), bad.key.Raw, prev, bad.pos)
						require.Equal(t, count, b.Count(), bad.name)
						require.Equal(t, pos, b.Position(), bad.name)
					}
					require.NoError(t, addRaw(b, s.keys[i], s.pos[i]))
					prev = s.keys[i]
				}
				m, err := b.Complete()
				require.NoError(t, err)
				require.Equal(t, want, buf.Bytes())
				checkIndexFile(t, s, buf.Bytes(), len(s.keys), m.Root)
			})
		}
	}
}

// TestValidateKeyErrorCopies checks that a KeyError owns its keys: the
// caller may reuse its buffer after the call.
func TestValidateKeyErrorCopies(t *testing.T) {
	b := NewBuilder(&bytes.Buffer{}, Options{Partitioner: partitioner.ByteOrdered})
	buf := []byte("bbb")
	require.NoError(t, addRaw(b, buf, 1))
	copy(buf, "aaa")
	err := addRaw(b, buf, 2)
	copy(buf, "zzz")
	var ke *KeyError
	require.ErrorAs(t, err, &ke)
	require.Equal(t, []byte("aaa"), ke.Key)
	require.Equal(t, []byte("bbb"), ke.Prev)
}

// requireKeyLookupsFail checks that every lookup by key on rd (Get,
// Ceiling, Floor and their candidates) fails with want.
func requireKeyLookupsFail(t *testing.T, rd *Reader, k partitioner.Key, want error) {
	t.Helper()
	_, _, err := rd.Get(&k)
	require.ErrorIs(t, err, want, "Get")
	noKey := func(int64) ([]byte, error) { return nil, nil }
	_, _, err = rd.Ceiling(&k, noKey)
	require.ErrorIs(t, err, want, "Ceiling")
	_, _, err = rd.Floor(&k, noKey)
	require.ErrorIs(t, err, want, "Floor")
	_, err = rd.CeilingCandidates(&k)
	require.ErrorIs(t, err, want, "CeilingCandidates")
	_, err = rd.FloorCandidates(&k)
	require.ErrorIs(t, err, want, "FloorCandidates")
}

func TestValidateLookupWrongPartitioner(t *testing.T) {
	s := &orderedInput{part: partitioner.Murmur3, keys: [][]byte{[]byte("a")}, pos: []int64{1}}
	ix, err := NewIndex(s.cleanBuild(t, 1), OpenOptions{Partitioner: partitioner.Murmur3})
	require.NoError(t, err)
	r, err := ix.OpenReader()
	require.NoError(t, err)
	defer r.Close()
	k := partitioner.ByteOrdered.Decorate([]byte("a"))
	requireKeyLookupsFail(t, r, k, ErrPartitioner)
	it := r.Scan(&k, nil)
	require.False(t, it.Next())
	require.ErrorIs(t, it.Err(), ErrPartitioner)
	rit := r.ScanReverse(nil, &k)
	require.False(t, rit.Next())
	require.ErrorIs(t, rit.Err(), ErrPartitioner)
}

// withFooter rewrites the footer fields of a copy of file.
func withFooter(file []byte, firstKeyPos, count, root int64) []byte {
	f := bytes.Clone(file)
	end := len(f) - footerLength
	binary.BigEndian.PutUint64(f[end:], uint64(firstKeyPos))
	binary.BigEndian.PutUint64(f[end+8:], uint64(count))
	binary.BigEndian.PutUint64(f[end+16:], uint64(root))
	return f
}

func checkCorrupt(t *testing.T, err error, offset int64, why string) {
	t.Helper()
	require.Error(t, err, why)
	require.ErrorIs(t, err, ErrCorrupt, why)
	var ce *CorruptError
	require.True(t, errors.As(err, &ce), "%s: %T is a *CorruptError", why, err)
	require.Equal(t, offset, ce.Offset, "%s: %v", why, err)
}

func TestValidateCorruptFooter(t *testing.T) {
	s := &orderedInput{part: partitioner.ByteOrdered, keys: [][]byte{[]byte("apple"), []byte("banana"), []byte("cherry")}, pos: []int64{1, 2, 3}}
	file := s.cleanBuild(t, 3)
	ix, err := NewIndex(file, OpenOptions{Partitioner: s.part})
	require.NoError(t, err)
	size := int64(len(file))
	footer := size - footerLength
	kp := footer - int64(2+5+2+6) // firstKeyPos of this file
	root := ix.Root()
	require.Equal(t, kp, int64(binary.BigEndian.Uint64(file[footer:])))

	for n := range footerLength {
		_, err := NewIndex(file[:n], OpenOptions{Partitioner: s.part})
		checkCorrupt(t, err, 0, fmt.Sprintf("%d-byte file", n))
	}
	cases := []struct {
		name   string
		data   []byte
		offset int64
	}{
		{"first-key-pos-negative", withFooter(file, -1, 3, root), footer},
		{"first-key-pos-zero", withFooter(file, 0, 3, root), footer},
		{"first-key-pos-min", withFooter(file, math.MinInt64, 3, root), footer},
		{"first-key-pos-past-footer", withFooter(file, footer+1, 3, root), footer},
		{"first-key-pos-huge", withFooter(file, math.MaxInt64, 3, root), footer},
		{"count-negative", withFooter(file, kp, -1, root), footer + 8},
		{"root-negative", withFooter(file, kp, 3, -1), footer + 16},
		{"root-in-keys", withFooter(file, kp, 3, kp), footer + 16},
		{"root-past-file", withFooter(file, kp, 3, size+100), footer + 16},
		{"root-min", withFooter(file, kp, 3, math.MinInt64), footer + 16},
		// Moving firstKeyPos one byte on makes the keys area misparse.
		{"keys-overrun-footer", withFooter(file, kp+1, 3, root), kp + 1},
	}
	// One byte too many between the last key and the footer.
	trailing := append(append(bytes.Clone(file[:footer]), 0), file[footer:]...)
	cases = append(cases, struct {
		name   string
		data   []byte
		offset int64
	}{"trailing-bytes", trailing, footer})
	// A first-key length that runs into the footer.
	overrun := bytes.Clone(file)
	binary.BigEndian.PutUint16(overrun[kp:], 0xffff)
	cases = append(cases, struct {
		name   string
		data   []byte
		offset int64
	}{"first-key-length-overrun", overrun, kp})
	overrun = bytes.Clone(file)
	binary.BigEndian.PutUint16(overrun[kp+2+5:], 100)
	cases = append(cases, struct {
		name   string
		data   []byte
		offset int64
	}{"last-key-length-overrun", overrun, kp + 2 + 5})
	for _, c := range cases {
		_, err := NewIndex(c.data, OpenOptions{Partitioner: s.part})
		checkCorrupt(t, err, c.offset, c.name)
	}
	// An empty index that stores keys.
	empty := (&orderedInput{part: s.part}).cleanBuild(t, 0)
	withKey := append(bytes.Clone(empty[:len(empty)-footerLength-4]), 0, 1, 'x', 0, 0)
	ekp := int64(len(empty) - footerLength - 4)
	withKey = binary.BigEndian.AppendUint64(withKey, uint64(ekp))
	withKey = binary.BigEndian.AppendUint64(withKey, 0)
	withKey = binary.BigEndian.AppendUint64(withKey, uint64(ekp-1))
	_, err = NewIndex(withKey, OpenOptions{Partitioner: s.part})
	checkCorrupt(t, err, ekp, "empty index with keys")
}

// TestValidateGarbageRoot points the root at every byte of the trie area
// of a real file, and also fills the trie area with garbage: opening either
// fails with a *CorruptError, or every lookup returns a result or a
// *CorruptError (matching both ErrCorrupt and trie.ErrCorrupt), and
// iterations end.
func TestValidateGarbageRoot(t *testing.T) {
	var files [][]byte
	for _, c := range awkwardInputs(true)[:3] {
		files = append(files, c.cleanBuild(t, len(c.keys)))
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, file := range files[:2] {
		ix, err := NewIndex(file, OpenOptions{Partitioner: partitioner.Murmur3})
		require.NoError(t, err)
		kp := int64(binary.BigEndian.Uint64(file[len(file)-footerLength:]))
		step := max(int64(1), kp/300)
		for root := int64(0); root < kp; root += step {
			probeNoPanic(t, withFooter(file, kp, ix.Count(), root), partitioner.Murmur3, r)
		}
		garbage := bytes.Clone(file)
		for i := range kp {
			garbage[i] = byte(r.Uint32())
		}
		probeNoPanic(t, garbage, partitioner.Murmur3, r)
		for i := range kp {
			garbage[i] = 0xff
		}
		probeNoPanic(t, garbage, partitioner.Murmur3, r)
	}
	// A root whose pointer leads past the start of the file.
	bad := withFooter(files[0], 2, 1, 0)
	bad[0], bad[1] = 0x40|0x8, 0xff // single8 with payload, byte 0xff
	ix, err := NewIndex(bad[:len(bad)-footerLength+0], OpenOptions{Partitioner: partitioner.Murmur3, SkipPartitionerCheck: true})
	if err == nil {
		rd, err := ix.OpenReader()
		require.NoError(t, err)
		_, _, err = rd.Last()
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorIs(t, err, trie.ErrCorrupt)
		}
	}
}

// probeNoPanic opens data and runs every kind of lookup, requiring that errors
// are corruption errors and that nothing panics or loops. Opening may also
// find that the footer's keys do not resolve (ErrPartitionerMismatch); the
// lookups then run on the unchecked index, since readers must not panic on
// any bytes.
func probeNoPanic(t *testing.T, data []byte, p partitioner.Partitioner, r *rand.Rand) {
	t.Helper()
	_, err := NewIndex(data, OpenOptions{Partitioner: p})
	if err != nil && !errors.Is(err, ErrPartitionerMismatch) {
		require.ErrorIs(t, err, ErrCorrupt)
		var ce *CorruptError
		require.ErrorAs(t, err, &ce)
		return
	}
	ix, err := NewIndex(data, OpenOptions{Partitioner: p, SkipPartitionerCheck: true})
	if err != nil {
		require.ErrorIs(t, err, ErrCorrupt)
		var ce *CorruptError
		require.ErrorAs(t, err, &ce)
		return
	}
	rd, err := ix.OpenReader()
	require.NoError(t, err)
	defer rd.Close()
	var keys [][]byte
	keys = append(keys, nil, []byte{0}, []byte{0xff, 0xff})
	for range 4 {
		keys = append(keys, randomBytesN(r, r.IntN(10), nil))
	}
	require.NoError(t, exerciseReader(rd, p, keys, len(data)+1))
}

// exerciseReader runs every lookup of a Reader on keys: Get, GetBatch,
// Ceiling, Floor and their candidates, each also in its Encoded form (on the
// key's encoding and on the raw bytes taken as an arbitrary byte-comparable
// position), First, Last, and the four scans between keys and between raw
// positions. It returns the first error that is not corruption, or an error
// if an iteration yields more than limit entries.
func exerciseReader(rd *Reader, p partitioner.Partitioner, keys [][]byte, limit int) error {
	check := func(what string, err error) error {
		if err == nil || errors.Is(err, ErrCorrupt) && errors.As(err, new(*CorruptError)) {
			return nil
		}
		return fmt.Errorf("%s: unexpected error %T %v", what, err, err)
	}
	decorated := make([]partitioner.Key, len(keys))
	for i, raw := range keys {
		k := p.Decorate(raw)
		decorated[i] = k
		_, _, err := rd.Get(&k)
		if err := check("Get", err); err != nil {
			return err
		}
		_, err = rd.CeilingCandidates(&k)
		if err := check("CeilingCandidates", err); err != nil {
			return err
		}
		_, err = rd.FloorCandidates(&k)
		if err := check("FloorCandidates", err); err != nil {
			return err
		}
		// A KeyAt over damaged bytes: any key, here the probe itself.
		keyAt := func(int64) ([]byte, error) { return raw, nil }
		_, _, err = rd.Ceiling(&k, keyAt)
		if err := check("Ceiling", err); err != nil {
			return err
		}
		_, _, err = rd.Floor(&k, keyAt)
		if err := check("Floor", err); err != nil {
			return err
		}
		for _, pos := range [][]byte{k.AppendComparable(nil), raw} {
			_, _, err = rd.CeilingEncoded(pos, keyAt)
			if err := check("CeilingEncoded", err); err != nil {
				return err
			}
			_, _, err = rd.FloorEncoded(pos, keyAt)
			if err := check("FloorEncoded", err); err != nil {
				return err
			}
			_, err = rd.CeilingCandidatesEncoded(pos)
			if err := check("CeilingCandidatesEncoded", err); err != nil {
				return err
			}
			_, err = rd.FloorCandidatesEncoded(pos)
			if err := check("FloorCandidatesEncoded", err); err != nil {
				return err
			}
		}
	}
	for i, res := range rd.GetBatch(nil, decorated) {
		if err := check(fmt.Sprintf("GetBatch key %d", i), res.Err); err != nil {
			return err
		}
	}
	_, _, err := rd.First()
	if err := check("First", err); err != nil {
		return err
	}
	_, _, err = rd.Last()
	if err := check("Last", err); err != nil {
		return err
	}
	drain := func(what string, it *Iterator) error {
		for n := 0; it.Next(); n++ {
			if n > limit {
				return fmt.Errorf("%s yields more than %d entries", what, limit)
			}
		}
		return check(what, it.Err())
	}
	var start, end *partitioner.Key
	var startRaw, endRaw []byte
	for i := range 3 {
		if i == 1 && len(keys) > 3 {
			a, b := p.Decorate(keys[3]), p.Decorate(keys[len(keys)-1])
			if partitioner.Compare(a, b) > 0 {
				a, b = b, a
			}
			start, end = &a, &b
			// Raw bytes as positions, in whatever order they come:
			// inverted bounds are an empty range.
			startRaw, endRaw = keys[3], keys[len(keys)-1]
		}
		if i == 2 {
			start, end = end, nil
			startRaw, endRaw = endRaw, nil
		}
		if err := drain("Scan", rd.Scan(start, end)); err != nil {
			return err
		}
		if err := drain("ScanReverse", rd.ScanReverse(start, end)); err != nil {
			return err
		}
		if i == 0 {
			continue // unbounded: the Encoded forms walk what Scan did
		}
		if err := drain("ScanEncoded", rd.ScanEncoded(startRaw, endRaw)); err != nil {
			return err
		}
		if err := drain("ScanReverseEncoded", rd.ScanReverseEncoded(startRaw, endRaw)); err != nil {
			return err
		}
	}
	return nil
}

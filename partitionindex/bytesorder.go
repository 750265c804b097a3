package partitionindex

import (
	"encoding/binary"
	"math/bits"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
)

// addBytes is Add for a ByteOrdered key: addOther's checks and
// bookkeeping, and addScratch's work for such a key. It keeps only the head,
// 40 <escaped key> 40: the key component that repeats the token never
// decides a comparison or a cut (BytesKeyEncoder.AppendHead). The head goes
// over the free slot, which held the key before last: under a long shared
// prefix the slot already holds the prefix's encoding (the ring knows how
// much of it equals the pending key's, ring.Ring.Reuse), so the encoder
// copies nothing there and escapes only the strides that differ.
//
// It runs once per key of a ByteOrdered build, so it is one function with
// addPending's work written out (see below), and Add calls it directly:
// through addOther (checks, then a call of addBytes) a warm build of the
// 16,384-key blob set without a shared prefix ran 867.4 instructions per
// key, 831.8 this way (callgrind as in Add, at 3395797 and the commit
// that made this change).
func (b *Builder) addBytes(key *partitioner.Key, position int64) error {
	if b.finishing {
		return ErrFinished
	}
	if !partitionfile.EntryOK(b.opts.Partitioner, key, position) {
		return partitionfile.CheckEntry(b.opts.Partitioner, b.count, key, position)
	}
	slot, same := b.keys.Reuse()
	enc := b.bytesKeys.ReuseHead(slot, same, key.Raw)
	diff := 1
	if b.hasLast {
		prev := b.keys.Current()
		// The first equal bytes of enc are the pending key's (kept or
		// copied from it, at least its leading 40): compare only the
		// rest. DiffPoint's first-word test is manually inlined here,
		// because most neighbours differ in the first word of the rest
		// (the first of the key in a set without a long shared prefix,
		// the first past the shared strides in one with) and the call
		// and DiffPoint's set-up cost more than the test
		// (TestAddBytesFirstWordIsDiffPoint ties the two).
		// (e <= e+8 is always true, as equal is at most a head's length,
		// but the compiler does not know it: said, it drops the bounds
		// checks of the two loads.)
		equal := b.bytesKeys.Reused()
		if e := uint(equal); e+8 <= uint(len(prev)) && e+8 <= uint(len(enc)) && e <= e+8 {
			if x := binary.LittleEndian.Uint64(prev[e:e+8]) ^ binary.LittleEndian.Uint64(enc[e:e+8]); x != 0 {
				diff = equal + bits.TrailingZeros64(x)/8 + 1
			} else {
				diff = equal + 8 + bytecomparable.DiffPoint(prev[e+8:], enc[e+8:])
			}
		} else {
			diff = equal + bytecomparable.DiffPoint(prev[equal:], enc[equal:])
		}
		// enc sorts after prev when it differs from it by a greater byte
		// (prev cannot end before it: a head never is a prefix of
		// another). The tests are unsigned so that they bound the reads.
		if d := uint(diff - 1); d >= uint(len(enc)) || d < uint(len(prev)) && enc[d] < prev[d] {
			return b.orderError(b.slotRaw(prev, false), key, position)
		}
		// addPending, written out: the pending key goes into the trie
		// cut one byte past both its diff points, sharing lastDiff-1
		// bytes with the trie's previous key (-1 before the trie's first
		// key, when lastDiff is 0 and AddShared does not read it). The
		// payload goes into the fixed array with Put, as in Add's
		// Murmur3 path.
		cut := min(max(diff, b.lastDiff), len(prev))
		n, flags := partitionpayload.Put(&b.payload, b.lastHash, b.lastPos)
		if err := b.trie.AddShared(prev[:cut], b.lastDiff-1, flags, b.payload[:n]); err != nil {
			return err
		}
		b.lastDiff = diff
	}
	b.keys.CommitShared(enc, diff-1)
	b.bytesKeys.Commit()
	b.accepted(key, position)
	return nil
}

package partitionindex

import (
	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
)

// addBytes is addScratch for a ByteOrdered key. It keeps only the head,
// 40 <escaped key> 40: the key component that repeats the token never
// decides a comparison or a cut (BytesKeyEncoder.AppendHead). The head goes
// over the free slot, which held the key before last: under a long shared
// prefix the slot already holds the prefix's encoding (the ring knows how
// much of it equals the pending key's, ring.Ring.Reuse), so the encoder
// copies nothing there and escapes only the strides that differ.
//
// It runs once per key of a ByteOrdered build, so it is one function with
// addPending's work written out (see below).
func (b *Builder) addBytes(key *partitioner.Key, position int64) error {
	slot, same := b.keys.Reuse()
	enc := b.bytesKeys.ReuseHead(slot, same, key.Raw)
	diff := 1
	if b.hasLast {
		prev := b.keys.Current()
		// The first equal bytes of enc are the pending key's (kept or
		// copied from it): compare only the rest, unless they are fewer
		// than DiffPoint's first word (a key shorter than a stride, or
		// one that shares none with the pending key), whose test then
		// answers without the two slices.
		if equal := b.bytesKeys.Reused(); equal < 8 {
			diff = bytecomparable.DiffPoint(prev, enc)
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
		// bytes with the trie's previous key. The trie's count need not
		// be asked: lastDiff is 0 until the trie's first key (Reset).
		cut := min(max(diff, b.lastDiff), len(prev))
		p, flags := partitionpayload.Append(b.payload[:0], b.lastHash, b.lastPos)
		if err := b.trie.AddShared(prev[:cut], max(b.lastDiff-1, 0), flags, p); err != nil {
			return err
		}
		b.lastDiff = diff
	}
	b.keys.CommitShared(enc, diff-1)
	b.bytesKeys.Commit()
	return nil
}

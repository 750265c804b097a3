package partitionindex

import (
	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
)

// The scratch path for Murmur3 keys, token first (Builder.Add, and
// addTokenFirst off its common path).
//
// A Murmur3 key encodes as
//
//	40 <token: 8 bytes, sign bit flipped> 40 <escaped key bytes> 38
//
// and two keys with different tokens differ within the first 9 bytes, so
// their diff point and the stored prefix of each (at most one byte past the
// larger diff point with its neighbours) lie there too: the key bytes past
// the token matter only next to a key with the same token, one pair in
// about 2^64/n² for random tokens. So a key's ring slot first holds
//
//	40 <token: 8 bytes> <raw key bytes>          ("raw": pendingRaw, previousRaw)
//
// (the raw bytes are kept: the caller's memory lives only for the call) and
// is completed to the full encoding, in place (ring.Amend), only when a
// neighbour has the same token or a cut reaches past the token. The diff
// point of two different tokens is read off their XOR; equal tokens compare
// the full encodings as arrays. Each key is still encoded at most once, and
// the trie gets exactly the bytes the general path hands it.

// addSameToken is Add for a Murmur3 key whose token is not above the
// pending key's: refused if below, else both keys fully encoded and
// compared past the token. The key's own slot is not read before Commit,
// so writing it before a refusal changes nothing.
func (b *Builder) addSameToken(key *partitioner.Key, position int64) error {
	const prefix = bytecomparable.LongTokenPrefixLen
	if key.Token < b.lastToken {
		return b.orderError(b.slotRaw(b.keys.Current(), b.pendingRaw), key, position)
	}
	prev := b.completePending()
	enc := bytecomparable.AppendLongTokenKey(b.keys.Scratch(), key.Token, key.Raw)
	diff := prefix + bytecomparable.DiffPoint(prev[prefix:], enc[prefix:])
	if diff > len(enc) || enc[diff-1] < prev[diff-1] {
		return b.orderError(b.decodeRaw(prev), key, position)
	}
	if err := b.addPending(prev, diff); err != nil {
		return err
	}
	b.keys.Commit(enc)
	b.previousRaw, b.pendingRaw = b.pendingRaw, false
	b.accepted(key, position)
	return nil
}

// completePending turns the pending key's slot into its full encoding if it
// holds the raw key bytes, and returns it. The pending key is not in the
// trie yet, so nothing reads the slot meanwhile. Failure atomicity holds:
// the completed slot encodes the same key.
func (b *Builder) completePending() []byte {
	cur := b.keys.Current()
	if !b.pendingRaw {
		return cur
	}
	b.rawTmp = append(b.rawTmp[:0], cur[bytecomparable.LongTokenPrefixLen:]...)
	full := bytecomparable.AppendLongTokenKey(cur[:0], b.lastToken, b.rawTmp)
	b.keys.Amend(full)
	b.pendingRaw = false
	return full
}

package partitionindex

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/invariants"
	"github.com/bti-go/bti/partitioner"
)

// The scratch path for Murmur3 keys, token first.
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

// addMurmur3 is addScratch for a Murmur3 key.
func (b *Builder) addMurmur3(key *partitioner.Key, position int64) error {
	const prefix = bytecomparable.LongTokenPrefixLen
	// Room for the whole encoding, so that completing it stays in place.
	enc := slices.Grow(b.keys.Scratch(), bytecomparable.MaxLongTokenKeyLen(len(key.Raw)))
	enc = bytecomparable.AppendLongTokenPrefix(enc, key.Token)
	enc = appendRaw(enc, key.Raw)
	encRaw := true
	if b.hasLast {
		var diff int
		if x := uint64(key.Token ^ b.lastToken); x != 0 {
			if key.Token < b.lastToken {
				return b.orderError(b.slotRaw(b.keys.Current(), b.pendingRaw), key, position)
			}
			// Byte 0 is the separator; token byte j is byte 1+j, the
			// 1-based diff point 2+j.
			diff = 2 + bits.LeadingZeros64(x)/8
		} else {
			prev := b.completePending()
			enc = bytecomparable.AppendLongTokenKey(enc[:0], key.Token, key.Raw)
			encRaw = false
			diff = prefix + bytecomparable.DiffPoint(prev[prefix:], enc[prefix:])
			if diff > len(enc) || enc[diff-1] < prev[diff-1] {
				return b.orderError(b.decodeRaw(prev), key, position)
			}
		}
		// A cut reaches past the token only where a diff point does, next
		// to an equal token, and the pending key was completed then.
		if invariants.Enabled && b.pendingRaw && max(diff, b.lastDiff) > prefix {
			panic(fmt.Sprintf("partitionindex: cutting %d bytes of a key whose slot holds only its token encoded", max(diff, b.lastDiff)))
		}
		if err := b.addPending(b.keys.Current(), diff); err != nil {
			return err
		}
	}
	b.keys.Commit(enc)
	b.previousRaw, b.pendingRaw = b.pendingRaw, encRaw
	b.lastToken = key.Token
	return nil
}

// appendRaw is append(dst, raw...). A key of 8 to 16 bytes (a UUID is 16)
// that fits dst's capacity is copied in two overlapping words, without
// memmove's call: building 1M Murmur3 UUID keys took 679.6 instructions
// per warm Add with append, 672.1 with this (callgrind, as in
// trie/childlists.go, at c93a605 and the commit that added this).
func appendRaw(dst, raw []byte) []byte {
	n, l := len(raw), len(dst)
	if n < 8 || n > 16 || cap(dst)-l < n {
		return append(dst, raw...)
	}
	dst = dst[:l+n]
	binary.LittleEndian.PutUint64(dst[l:], binary.LittleEndian.Uint64(raw))
	binary.LittleEndian.PutUint64(dst[l+n-8:], binary.LittleEndian.Uint64(raw[n-8:]))
	return dst
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

// Package ring holds the three encoded keys the partition index builder
// needs, in three reusable byte buffers, without copying or allocating once
// the buffers have grown to the longest key.
//
// # Why three slots are enough
//
// While the builder encodes key n it still needs exactly two older keys:
//
//	slot     holds      why it is live
//	scratch  key n      being encoded (Scratch, then Commit)
//	Current  key n-1    pending: its stored prefix length is
//	                    max(diffPoint(n-2, n-1), diffPoint(n-1, n)), so it
//	                    cannot go to the trie before key n is known
//	Previous key n-2    last key handed to the trie writer; the writer
//	                    compares the next key it is given against these bytes
//
// Key n-3 is referenced by nobody while key n is encoded, so its slot is the
// scratch slot. The builder encodes key n there, compares it with Current
// (key n-1) and hands the trie key n-1's prefix, a sub-slice of Current; the
// trie compares that with the key it was given last, key n-2 in Previous.
// Only when all of that succeeded does Commit(key n) rotate, by index, never
// by copying:
//
//	before:  scratch=A (n)   Current=B (n-1)   Previous=C (n-2)
//	after:   Current=A (n)   Previous=B (n-1)  Retained=C (n-2)
//
// The trie now holds key n-1 (Previous) until its next Add returns, and the
// next Scratch hands out C: the 4th-oldest key is never referenced again, so
// its bytes may be overwritten. Retained is therefore valid only until the
// next Scratch. If the caller encodes into Scratch but never commits (the new
// key is out of order, or a write failed), Current and Previous are unchanged
// and the next Scratch returns the same slot again.
//
// A slot holds as much of a key's encoding as comparisons and cuts can
// reach: the builder keeps a ByteOrdered key's head only and a Murmur3
// key's token with its raw bytes, completing the latter in place (Amend)
// when a neighbour has the same token (partitionindex/murmur3.go).
package ring

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
//
// # Keys under a long shared prefix
//
// The scratch slot still holds key n-3, and under a long shared prefix
// (4 KiB blobs behind a tenant id) most of its bytes are those key n
// starts with. Writing key n over it (Reuse, CommitShared) keeps them: the
// builder tells CommitShared how many leading bytes each new key shares
// with Current (its diff point, less one), and the ring derives how many
// bytes of every slot equal Current's,
//
//	old Current  -> Previous:  shared
//	old Previous -> Retained:  min(what it shared with the old Current, shared)
//
// since a key shares with a later one at least the least of what the keys
// between them share with their neighbours. Reuse hands that count out with
// the slot; the encoder keeps that many bytes and copies from Current only
// the part of the shared prefix the slot lacks, so a run of keys under one
// prefix copies nothing, and any run copies at most twice the nodes the
// trie writer adds (a slot lacks bytes only where the diff points of the
// last two keys rose, and the trie adds a node for each byte they rose by). A
// slot written over by a key that is then refused counts as sharing
// nothing.
package ring

// Package partitioner turns raw partition keys into Cassandra decorated keys:
// it computes tokens (Murmur3, ByteOrdered, Random), the hash byte that the
// BTI partition index stores with every key, Cassandra's decorated-key order,
// and the OSS50 byte-comparable encoding (through package bytecomparable).
//
// # Tokens
//
//	Murmur3      h1 of Hash3x64_128(key, seed 0) as int64; the empty key gets
//	             MinInt64 and a hashed MinInt64 becomes MaxInt64
//	ByteOrdered  the key bytes
//	Random       |MD5(key)| as a signed 128-bit integer, in [0, 2^127];
//	             the empty key gets -1
//
// Hash3x64_128 is Cassandra's variant of MurmurHash3_x64_128: tail bytes
// (the last len%16) are sign-extended (docs/format.md §3.1, Q2).
//
// # Hash byte
//
// The index stores one byte of the key's filter hash: the low byte of h2 of
// Hash3x64_128(raw key, 0), for every partitioner (not from the token; docs/format.md §3.2).
//
// # Order and encoding
//
// Keys sort by token (signed for Murmur3, unsigned bytes for ByteOrdered,
// numeric for Random), then by unsigned raw key bytes. The encoding
//
//	40 <token bytes> 40 <escaped key> 38
//
// sorts the same way under bytes.Compare, and no key's encoding is a prefix
// of another's, even for keys with equal tokens.
//
// Decorate, HashByte and AppendComparable (into a buffer with capacity) do
// not allocate; a Key references the caller's raw bytes.
package partitioner

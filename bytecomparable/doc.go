// Package bytecomparable implements Cassandra's byte-comparable encoding,
// version OSS50, for the values that make up a decorated partition key.
//
// The encoding maps a value to a byte string whose unsigned lexicographic
// order (bytes.Compare) equals Cassandra's order of the values. The BTI
// partition index is a trie over these strings, so every byte here must be
// exactly what Cassandra's ByteSource produces: a single differing byte moves
// a key to another branch and changes the file. See docs/format.md §2 and
// Cassandra's ByteComparable.md.
//
// Everything is a pure function over []byte. Encoders have the append shape
//
//	slot = bytecomparable.AppendLongTokenKey(slot[:0], token, key)
//
// and never allocate when dst has enough capacity. Decoders exist for tests,
// dumps and tools; they return *DecodeError (errors.Is(err, ErrMalformed))
// on bad input and never panic.
//
// # Fixed-length signed numbers (Murmur3 token)
//
// An int64 is written as its 8 big-endian bytes with the sign bit flipped, so
// that negative numbers sort first:
//
//	MinInt64 -> 00 00 00 00 00 00 00 00
//	-1       -> 7F FF FF FF FF FF FF FF
//	0        -> 80 00 00 00 00 00 00 00
//	1        -> 80 00 00 00 00 00 00 01
//
// # Variable-length byte strings (keys, ByteOrdered token)
//
// A byte string is escaped so that it contains 0x00 only as an escape and so
// that the separator that follows it in a sequence (0x10..0xEF) sorts a
// shorter string before every longer string it prefixes:
//
//	non-zero byte b               -> b
//	run of n zeros, data follows  -> 00 FE×(n-1) FF
//	run of n zeros at the end     -> 00 FE×n          (OSS50: no trailing 00)
//	end of a string not ending 00 -> 00
//
// Examples: "" -> 00; 61 62 -> 61 62 00; 00 -> 00 FE; 00 01 -> 00 FF 01 00;
// 01 00 00 00 -> 01 00 FE FE FE. After a 00 the next byte is always FE, FF or
// the separator, which is what makes the encoding weakly prefix-free.
//
// # Decorated keys
//
// A decorated key is a two-component sequence: a NextComponent (0x40) byte
// before each component and Terminator (0x38) at the end:
//
//	+----+-------------+----+---------------+----+
//	| 40 | token bytes | 40 | escaped key   | 38 |
//	+----+-------------+----+---------------+----+
//
//	Murmur3:     40 <8 bytes, sign flipped> 40 <escaped key> 38
//	ByteOrdered: 40 <escaped key>           40 <escaped key> 38  (token = key)
//	Random:      40 <IntegerType varint>    40 <escaped key> 38
//
// For example the Murmur3 key 00 01 with token 1 is
//
//	40 80 00 00 00 00 00 00 01 40 00 FF 01 00 38
//
// and the ByteOrdered key "ab" is 40 61 62 00 40 61 62 00 38.
//
// No encoded decorated key is a prefix of another: tokens are fixed length or
// escaped, and where one escaped key is a prefix of another the longer one
// continues with FE or FF while the shorter one has 40 or 38.
//
// A token bound (Cassandra's Token.KeyBound) replaces the key component and
// the terminator by one byte that sorts before (LtNextComponent, 0x20) or
// after (GtNextComponent, 0x60) every key with that token:
//
//	40 <token bytes> 20    min bound
//	40 <token bytes> 60    max bound
//
// # Variable-length integers (RandomPartitioner token)
//
// RandomPartitioner tokens are Java BigIntegers encoded like CQL varint
// (IntegerType, OSS50). Given the two's-complement big-endian bytes with the
// leading sign-only bytes stripped (s significant bytes):
//
//	s < 7:  a signed variable-length integer: the first byte holds the
//	        inverted sign bit, then one bit per extra byte equal to the sign
//	        bit, then a 0 (for positives; all bits inverted for negatives),
//	        like UTF-8:  0 -> 80, 1 -> 81, -1 -> 7F, 64 -> C0 40,
//	        -65 -> 3F BF, 2^20 -> F0 10 00 00
//	s >= 7: FF (positive) or 00 (negative), then s-7 as an unsigned
//	        variable-length integer (bytes inverted if negative), then the
//	        s significant bytes unchanged.
//
// An MD5 token (0..2^127) of 16 significant bytes is thus FF 09 <16 bytes>.
//
// # diffPoint and cut
//
// The partition index stores each key cut to a prefix. DiffPoint returns
// Cassandra's ByteComparable.diffPoint, which is 1-based: one plus the length
// of the common prefix (L+1 for two equal strings of length L). A cut is
// simply a re-slice, enc[:n]; Cut clamps n to the length.
//
// # Clusterings
//
// The row index (Rows.db) keys on clustering prefixes; AppendClustering
// documents their encoding and DecodeClustering undoes it.
package bytecomparable

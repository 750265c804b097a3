package partitioner

import "github.com/bti-go/bti/bytecomparable"

// Token bounds. A bound is a byte-comparable position that sorts before (the
// min bound) or after (the max bound) every key of one token, and after
// (before) every key of a smaller (greater) token. Reads by token range start
// and end at bounds, as Cassandra's PartitionPosition does: with
// partitionindex, pass them to Reader.ScanEncoded or CeilingEncoded. The
// index never stores a bound.
//
// Cassandra's token range (a, b], the keys whose token t has a < t <= b,
// runs from the max bound of a to the max bound of b; the inclusive range
// [a, b] runs from the min bound of a to the max bound of b.
//
// Key.AppendBound gives the bound of a decorated key's token; the functions
// here start from a token value, which is what a range read holds.

// AppendMurmur3Bound appends the min (max == false) or max bound of the
// Murmur3 token t. It does not allocate when dst has 10 bytes of capacity.
func AppendMurmur3Bound(dst []byte, t int64, max bool) []byte {
	return bytecomparable.AppendLongTokenBound(dst, t, max)
}

// AppendBound appends the min (max == false) or max bound of the Random
// token t.
func (t RandomToken) AppendBound(dst []byte, max bool) []byte {
	var buf [17]byte
	return bytecomparable.AppendBigIntTokenBound(dst, t.twosComplement(&buf), max)
}

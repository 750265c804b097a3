package rowfile

import "encoding/binary"

// AppendEntry appends an entry starting at file position pos:
//
//	+-------------+-----+---------------------+------------------------+
//	| key len <2> | key | dataPosition <uvint> | root - base <vint>     |
//	+-------------+-----+---------------------+------------------------+
//	| blocks <uvint> | partition deletion <1 or 12, see AppendDeletion> |
//	+----------------+--------------------------------------------------+
//
// base is the position right after the key; vints are Cassandra's
// VIntCoding (vint.go), the root distance zigzag-signed.
func AppendEntry(dst []byte, pos int64, key []byte, dataPos, root int64, blocks int, del Deletion) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(key)))
	dst = append(dst, key...)
	base := pos + 2 + int64(len(key))
	dst = AppendUvarint(dst, uint64(dataPos))
	dst = AppendVarint(dst, root-base)
	dst = AppendUvarint(dst, uint64(blocks))
	return AppendDeletion(dst, del)
}

package rowfile

import (
	"encoding/binary"
	"strconv"
)

// Deletion is rowindex.DeletionTime's layout (the same fields, so each
// converts to the other for free): Cassandra's DeletionTime, LIVE when
// Deleted is false.
type Deletion struct {
	MarkedForDeleteAt int64
	LocalDeletionTime uint32
	Deleted           bool
}

// deletionLive is the one byte of a LIVE DeletionTime (IS_LIVE_DELETION).
const deletionLive = 0x80

// deletionSize is the size of a non-LIVE DeletionTime.
const deletionSize = 12

// Valid reports whether d can be written: the da serializer uses the sign
// bit of markedForDeleteAt to flag LIVE, so a deletion must not be negative.
func (d Deletion) Valid() bool { return !d.Deleted || d.MarkedForDeleteAt >= 0 }

// AppendDeletion appends d as DeletionTime.Serializer writes it for
// versions with unsigned local deletion times (BTI "da"):
//
//	LIVE:     +----+
//	          | 80 |
//	          +----+
//	deleted:  +---------------------------+-----------------------+
//	          | markedForDeleteAt <8, BE>  | localDeletionTime <4> |
//	          +---------------------------+-----------------------+
//	          (the first byte's top bit is 0, which tells it from LIVE)
func AppendDeletion(dst []byte, d Deletion) []byte {
	if !d.Deleted {
		return append(dst, deletionLive)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
	return binary.BigEndian.AppendUint32(dst, d.LocalDeletionTime)
}

// DecodeDeletion reads one AppendDeletion encoding; n is 0 on bad input,
// with the reason.
func DecodeDeletion(b []byte) (d Deletion, n int, reason string) {
	if len(b) == 0 {
		return d, 0, "deletion time past the end"
	}
	if b[0]&deletionLive != 0 {
		if b[0] != deletionLive {
			return d, 0, "invalid deletion time flags " + strconv.FormatUint(uint64(b[0]), 16)
		}
		return Deletion{}, 1, ""
	}
	if len(b) < deletionSize {
		return d, 0, "deletion time past the end"
	}
	return Deletion{MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b)), LocalDeletionTime: binary.BigEndian.Uint32(b[8:]), Deleted: true}, deletionSize, ""
}

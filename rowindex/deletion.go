package rowindex

import (
	"encoding/binary"
	"strconv"
)

// DeletionTime is Cassandra's DeletionTime: a tombstone's timestamp and
// local deletion time, or LIVE (no deletion). The zero value is LIVE.
type DeletionTime struct {
	MarkedForDeleteAt int64  // microseconds; must be >= 0 when Deleted
	LocalDeletionTime uint32 // seconds since the epoch, unsigned (da format)
	Deleted           bool   // false: LIVE, the other fields are ignored
}

// Live is the DeletionTime of something not deleted.
var Live = DeletionTime{}

// Deletion returns a DeletionTime that deletes at markedForDeleteAt.
func Deletion(markedForDeleteAt int64, localDeletionTime uint32) DeletionTime {
	return DeletionTime{MarkedForDeleteAt: markedForDeleteAt, LocalDeletionTime: localDeletionTime, Deleted: true}
}

func (d DeletionTime) String() string {
	if !d.Deleted {
		return "-"
	}
	return strconv.FormatInt(d.MarkedForDeleteAt, 10) + "," + strconv.FormatUint(uint64(d.LocalDeletionTime), 10)
}

// deletionLive is the one byte of a LIVE DeletionTime (IS_LIVE_DELETION).
const deletionLive = 0x80

// deletionSize is the size of a non-LIVE DeletionTime.
const deletionSize = 12

// valid reports whether d can be written: the da serializer uses the sign
// bit of markedForDeleteAt to flag LIVE, so a deletion must not be negative.
func (d DeletionTime) valid() bool { return !d.Deleted || d.MarkedForDeleteAt >= 0 }

// appendDeletion appends d as DeletionTime.Serializer writes it for
// versions with unsigned local deletion times (BTI "da"):
//
//	LIVE:     +----+
//	          | 80 |
//	          +----+
//	deleted:  +---------------------------+-----------------------+
//	          | markedForDeleteAt <8, BE>  | localDeletionTime <4> |
//	          +---------------------------+-----------------------+
//	          (the first byte's top bit is 0, which tells it from LIVE)
func appendDeletion(dst []byte, d DeletionTime) []byte {
	if !d.Deleted {
		return append(dst, deletionLive)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
	return binary.BigEndian.AppendUint32(dst, d.LocalDeletionTime)
}

// decodeDeletion reads one appendDeletion encoding; n is 0 on bad input.
func decodeDeletion(b []byte) (d DeletionTime, n int, reason string) {
	if len(b) == 0 {
		return d, 0, "deletion time past the end"
	}
	if b[0]&deletionLive != 0 {
		if b[0] != deletionLive {
			return d, 0, "invalid deletion time flags " + strconv.FormatUint(uint64(b[0]), 16)
		}
		return Live, 1, ""
	}
	if len(b) < deletionSize {
		return d, 0, "deletion time past the end"
	}
	return Deletion(int64(binary.BigEndian.Uint64(b)), binary.BigEndian.Uint32(b[8:])), deletionSize, ""
}

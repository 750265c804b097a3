package rowindex

import "strconv"

// DeletionTime is Cassandra's DeletionTime: a tombstone's timestamp and
// local deletion time, or LIVE (no deletion). The zero value is LIVE.
//
// On disk (BTI "da", unsigned local deletion times) LIVE is the one byte
// 80; a deletion is markedForDeleteAt <8, BE> then localDeletionTime <4>,
// the first byte's top bit 0 (internal/rowfile.AppendDeletion).
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

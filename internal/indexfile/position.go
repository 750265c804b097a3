package indexfile

import "math"

// Positions. Partitions.db stores one int64 per partition, and Cassandra
// packs two kinds of offset into it by sign:
//
//	position >= 0   the partition has a row index: its entry starts at
//	                Rows.db offset position
//	position <  0   it has none: the partition starts at Data.db offset
//	                ^position (bitwise complement, so Data.db offset 0 is -1)
//
// rowindex makes positions (a finished partition's Result.Value) and
// partitionindex stores and returns them; both use the functions below, and
// partitionindex exports them under the same names. Each is one instruction
// and inlines.

// NotFound is Cassandra's NOT_FOUND marker, math.MinInt64: no partition can
// be stored with it (it is ^math.MaxInt64, a Data.db offset no file has).
const NotFound = math.MinInt64

// RowIndexPosition returns the position of a partition whose row-index
// entry starts at Rows.db offset off (off >= 0): off itself.
func RowIndexPosition(off int64) int64 { return off }

// DataPosition returns the position of a partition without a row index,
// which starts at Data.db offset off (off >= 0): ^off, always negative.
func DataPosition(off int64) int64 { return ^off }

// IsDataPosition reports whether pos points into Data.db rather than
// Rows.db.
func IsDataPosition(pos int64) bool { return pos < 0 }

// PositionOffset returns the file offset pos points to: in Data.db when
// IsDataPosition(pos), otherwise in Rows.db.
func PositionOffset(pos int64) int64 {
	if pos < 0 {
		return ^pos
	}
	return pos
}

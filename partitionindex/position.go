package partitionindex

import "github.com/bti-go/bti/internal/indexfile"

// Positions. The index stores one int64 per partition and Cassandra packs two
// kinds of offset into it by sign (see the payload layout in payload.go):
//
//	position >= 0   the partition has a row index: its entry starts at
//	                Rows.db offset position
//	position <  0   it has none: the partition starts at Data.db offset
//	                ^position (bitwise complement, so Data.db offset 0 is -1)
//
// The functions below name that encoding for this package's callers; the
// rule itself is defined once, in internal/indexfile, which rowindex uses to
// make the positions it hands over. They work on plain int64 rather
// than a named Position type on purpose: Add, Get, Ceiling, Floor,
// Iterator.Pos and KeyAt all carry positions as int64 and a named type
// would change every one of those signatures (and every caller's
// conversions), while adding nothing the compiler could check. Each is one
// instruction and inlines (go build -gcflags=-m ./partitionindex reports
// "can inline" for all four), so spelling a position out costs nothing.

// RowIndexPosition returns the position of a partition whose row-index entry
// starts at Rows.db offset off (off >= 0). It is off itself; the function
// exists so that the two kinds read alike at the call site.
func RowIndexPosition(off int64) int64 { return indexfile.RowIndexPosition(off) }

// DataPosition returns the position of a partition without a row index,
// which starts at Data.db offset off (off >= 0): ^off, always negative.
func DataPosition(off int64) int64 { return indexfile.DataPosition(off) }

// IsDataPosition reports whether pos points into Data.db (it was made by
// DataPosition) rather than Rows.db.
func IsDataPosition(pos int64) bool { return indexfile.IsDataPosition(pos) }

// PositionOffset returns the file offset pos points to: in Data.db when
// IsDataPosition(pos), otherwise in Rows.db.
func PositionOffset(pos int64) int64 { return indexfile.PositionOffset(pos) }

package bytecomparable

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// CQLType is the CQL type of one clustering column.
type CQLType uint8

const (
	Int      CQLType = iota + 1 // Int32Type: 4-byte big-endian two's complement
	BigInt                      // LongType: 8-byte big-endian two's complement
	Text                        // UTF8Type: UTF-8 bytes (not validated)
	Blob                        // BytesType: any bytes
	UUID                        // UUIDType: 16 bytes, any version
	TimeUUID                    // TimeUUIDType: 16 bytes, version 1
)

var cqlTypeNames = [...]string{Int: "int", BigInt: "bigint", Text: "text", Blob: "blob", UUID: "uuid", TimeUUID: "timeuuid"}

func (t CQLType) String() string {
	if int(t) < len(cqlTypeNames) && cqlTypeNames[t] != "" {
		return cqlTypeNames[t]
	}
	return "CQLType(" + strconv.Itoa(int(t)) + ")"
}

// ParseCQLType accepts a CQL type name or Cassandra's class name for it:
// int/int32/Int32Type, bigint/LongType, text/varchar/utf8/UTF8Type,
// blob/BytesType, uuid/UUIDType, timeuuid/TimeUUIDType.
func ParseCQLType(s string) (CQLType, error) {
	switch s {
	case "int", "int32", "Int32Type":
		return Int, nil
	case "bigint", "long", "LongType":
		return BigInt, nil
	case "text", "varchar", "utf8", "UTF8Type":
		return Text, nil
	case "blob", "bytes", "BytesType":
		return Blob, nil
	case "uuid", "UUIDType":
		return UUID, nil
	case "timeuuid", "TimeUUIDType":
		return TimeUUID, nil
	}
	return 0, errors.New("bytecomparable: unknown clustering type " + strconv.Quote(s))
}

// fixedLen is the serialized length of a fixed-length type, 0 for variable.
func (t CQLType) fixedLen() int {
	switch t {
	case Int:
		return 4
	case BigInt:
		return 8
	case UUID, TimeUUID:
		return 16
	}
	return 0
}

// emptyIsNull reports whether an empty value of t is encoded as "no value"
// (Cassandra's asComparableBytes returns null for it).
func (t CQLType) emptyIsNull() bool { return t.fixedLen() != 0 }

// Column is one clustering column: its type and whether it is DESC
// (Cassandra's ReversedType).
type Column struct {
	Type CQLType
	Desc bool
}

// PrefixKind is what a clustering prefix stands for, which decides its last
// byte (ClusteringPrefix.Kind.asByteComparableValue, OSS50).
type PrefixKind uint8

const (
	Clustering     PrefixKind = iota // a row's clustering: 38
	InclusiveStart                   // 20: before every clustering with this prefix
	ExclusiveEnd                     // 20
	ExclusiveStart                   // 60: after every clustering with this prefix
	InclusiveEnd                     // 60
)

// Terminator returns the byte that ends an encoding of kind k.
func (k PrefixKind) Terminator() byte {
	switch k {
	case InclusiveStart, ExclusiveEnd:
		return LtNextComponent
	case ExclusiveStart, InclusiveEnd:
		return GtNextComponent
	}
	return Terminator
}

// ErrValue is the sentinel of every *ValueError.
var ErrValue = errors.New("bytecomparable: clustering value does not match its type")

// ValueError reports a clustering that cannot be encoded under its columns.
type ValueError struct {
	Component int // index of the offending component, -1 for the whole prefix
	Type      CQLType
	Reason    string
}

func (e *ValueError) Error() string {
	if e.Component < 0 {
		return "bytecomparable: bad clustering: " + e.Reason
	}
	return "bytecomparable: clustering component " + strconv.Itoa(e.Component) + " (" + e.Type.String() + "): " + e.Reason
}

// Is makes errors.Is(err, ErrValue) true.
func (e *ValueError) Is(target error) bool { return target == ErrValue }

// CheckValue reports whether v is a valid serialized value of column c.
func CheckValue(c Column, i int, v []byte) error {
	if n := c.Type.fixedLen(); n != 0 {
		if len(v) != 0 && len(v) != n {
			return &ValueError{Component: i, Type: c.Type, Reason: "value has " + strconv.Itoa(len(v)) + " bytes, want " + strconv.Itoa(n) + " (or 0)"}
		}
		if c.Type == TimeUUID && len(v) == 16 && v[6]>>4 != 1 {
			return &ValueError{Component: i, Type: c.Type, Reason: "timeuuid must be version 1, got version " + strconv.Itoa(int(v[6]>>4))}
		}
		return nil
	}
	if c.Type != Text && c.Type != Blob {
		return &ValueError{Component: i, Type: c.Type, Reason: "unknown type"}
	}
	return nil
}

// valueOK is CheckValue's common case without the call (small enough to
// inline): true only where CheckValue returns nil; timeuuid, whose version
// must be read, and unknown types are left to CheckValue.
// TestValueOKAgreesWithCheckValue ties the two.
func valueOK(t CQLType, v []byte) bool {
	switch t {
	case Int:
		return len(v) == 4 || len(v) == 0
	case BigInt:
		return len(v) == 8 || len(v) == 0
	case UUID:
		return len(v) == 16 || len(v) == 0
	case Text, Blob:
		return true
	}
	return false
}

// AppendClustering appends the byte-comparable encoding of the clustering
// prefix values (serialized values, one per column from the first) of kind
// kind under cols. A Clustering must have a value for every column; a bound
// may have fewer. It never allocates when dst has room; on error it returns
// dst unchanged (truncated to its original length).
//
// Cassandra's ClusteringComparator.asByteComparable turns a clustering
// prefix into a sequence: a separator byte before each component, then one
// byte for the prefix kind, which is what makes bounds sort around the
// clusterings they bound:
//
//	+----+-----------+----+-----------+-----+------+
//	| 40 | component | 40 | component | ... | kind |
//	+----+-----------+----+-----------+-----+------+
//
//	kind  38 a clustering (all components)
//	      20 an inclusive start or exclusive end bound (sorts before its prefix's clusterings)
//	      60 an exclusive start or inclusive end bound (sorts after them)
//
// An empty value of a type that treats empty as "no value" (int, bigint,
// uuid, timeuuid) is written as the separator 3F (41 for a DESC column) and
// no bytes. Components (OSS50, from each type's asComparableBytes):
//
//	int       4 bytes big-endian, sign bit flipped     (Int32Type)
//	bigint    variable-length signed integer, 1-9 bytes (LongType; the
//	          RandomPartitioner varint's small form: 0 -> 80, -1 -> 7F)
//	text,blob escaped like a partition key: "ab" -> 61 62 00
//	uuid      version 1: the timestamp reordered (time_hi_and_version,
//	          time_mid, time_low), then the low 8 bytes unchanged;
//	          other versions: the version nibble moved to the front, then
//	          the low 8 bytes unchanged                 (UUIDType)
//	timeuuid  version 1 only: the timestamp reordered, then the low 8
//	          bytes with the top bit of each flipped    (TimeUUIDType)
//	DESC      the ascending encoding with every byte inverted (ReversedType)
//
// Examples from ClusteringComparator's javadoc (OSS50 ends a clustering in
// 38 where the javadoc, written for LEGACY, shows 40; and the javadoc writes
// the int as its serialized bytes, 0005, where Int32Type's encoding has the
// sign bit flipped, 80 00 00 05):
//
//	("A", 0005) text,int, clustering -> 40 41 00 40 80 00 00 05 38
//	("A") exclusive start             -> 40 41 00 60
//	bottom (no components, incl start) -> 20
func AppendClustering(dst []byte, cols []Column, values [][]byte, kind PrefixKind) ([]byte, error) {
	if len(values) > len(cols) {
		return dst, &ValueError{Component: -1, Reason: strconv.Itoa(len(values)) + " components for " + strconv.Itoa(len(cols)) + " clustering columns"}
	}
	if kind == Clustering && len(values) != len(cols) {
		return dst, &ValueError{Component: -1, Reason: "a clustering needs " + strconv.Itoa(len(cols)) + " components, got " + strconv.Itoa(len(values))}
	}
	if kind > InclusiveEnd {
		return dst, &ValueError{Component: -1, Reason: "unknown prefix kind " + strconv.Itoa(int(kind))}
	}
	// One pass: each value is checked, then appended. A refused value
	// leaves the components before it past len(dst), which the caller
	// does not see (dst is returned at its original length).
	start := len(dst)
	cols = cols[:len(values)]
	for i, v := range values {
		c := cols[i]
		if !valueOK(c.Type, v) {
			if err := CheckValue(c, i, v); err != nil {
				return dst[:start], err
			}
		}
		// The component: its separator, then its encoding (inverted for
		// DESC), or for an empty value where empty means "no value" a
		// separator alone.
		if len(v) == 0 && c.Type.emptyIsNull() {
			if c.Desc {
				dst = append(dst, NextComponentEmptyReversed)
			} else {
				dst = append(dst, NextComponentEmpty)
			}
			continue
		}
		dst = append(dst, NextComponent)
		from := len(dst)
		dst = AppendValue(dst, c.Type, v)
		if c.Desc {
			for j := from; j < len(dst); j++ {
				dst[j] = ^dst[j]
			}
		}
	}
	return append(dst, kind.Terminator()), nil
}

// AppendValue appends the ascending encoding of one non-empty serialized
// value of type t (checked by the caller, see CheckValue): the component
// without its separator and without the DESC inversion.
func AppendValue(dst []byte, t CQLType, v []byte) []byte {
	switch t {
	case Int:
		return append(dst, v[0]^0x80, v[1], v[2], v[3])
	case BigInt:
		return appendVarInt(dst, int64(binary.BigEndian.Uint64(v)))
	case UUID:
		msb := binary.BigEndian.Uint64(v)
		if version := msb >> 12 & 0xF; version == 1 {
			msb = reorderTimestamp(msb)
		} else {
			msb = version<<60 | msb>>4&0x0FFFFFFFFFFFF000 | msb&0xFFF
		}
		dst = binary.BigEndian.AppendUint64(dst, msb)
		return append(dst, v[8:16]...)
	case TimeUUID:
		dst = binary.BigEndian.AppendUint64(dst, reorderTimestamp(binary.BigEndian.Uint64(v)))
		return binary.BigEndian.AppendUint64(dst, binary.BigEndian.Uint64(v[8:])^0x8080808080808080)
	}
	return AppendEscaped(dst, v)
}

// reorderTimestamp puts a version-1 UUID's timestamp fields in order:
// time_hi_and_version, time_mid, time_low (TimeUUIDType.reorderTimestampBytes).
func reorderTimestamp(msb uint64) uint64 {
	return msb<<48 | msb<<16&0xFFFF00000000 | msb>>32
}

// reorderTimestampBack undoes reorderTimestamp.
func reorderTimestampBack(hi uint64) uint64 {
	return hi<<32 | hi>>16&0xFFFF0000 | hi>>48
}

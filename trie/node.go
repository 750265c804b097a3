package trie

import "encoding/binary"

// nodeType is the high nibble of a node's header byte. The constants mirror
// Cassandra's TrieNode.Types so the spec maps one to one. Layouts are given
// after the header byte TTTT PPPP (T = type, P = payload flags or, for the
// two NOPAYLOAD singles, pointer bits). Pointers are unsigned big-endian
// distances back from the node's own start; DENSE slots use 0 for "no child".
type nodeType uint8

const (
	payloadOnly       nodeType = 0  // [hdr] [payload]
	singleNoPayload4  nodeType = 1  // [hdr: dist in low nibble, 1..15] [transition]
	single8           nodeType = 2  // [hdr] [transition] [dist:1] [payload]
	singleNoPayload12 nodeType = 3  // [hdr: dist bits 11..8] [dist bits 7..0] [transition]
	single16          nodeType = 4  // [hdr] [transition] [dist:2] [payload]
	sparse8           nodeType = 5  // [hdr] [n] [t0..tn-1] [d0..dn-1 :1 each] [payload]
	sparse12          nodeType = 6  // [hdr] [n] [t0..tn-1] [12-bit packed d0..dn-1] [payload]
	sparse16          nodeType = 7  // [hdr] [n] [t0..tn-1] [d :2 each] [payload]
	sparse24          nodeType = 8  // [hdr] [n] [t0..tn-1] [d :3 each] [payload]
	sparse40          nodeType = 9  // [hdr] [n] [t0..tn-1] [d :5 each] [payload]
	dense12           nodeType = 10 // [hdr] [first] [span-1] [12-bit packed d per slot] [payload]
	dense16           nodeType = 11 // [hdr] [first] [span-1] [d :2 per slot] [payload]
	dense24           nodeType = 12 // [hdr] [first] [span-1] [d :3 per slot] [payload]
	dense32           nodeType = 13 // [hdr] [first] [span-1] [d :4 per slot] [payload]
	dense40           nodeType = 14 // [hdr] [first] [span-1] [d :5 per slot] [payload]
	longDense         nodeType = 15 // [hdr] [first] [span-1] [d :8 per slot] [payload]
)

var nodeTypeNames = [16]string{
	"PAYLOAD_ONLY", "SINGLE_NOPAYLOAD_4", "SINGLE_8", "SINGLE_NOPAYLOAD_12", "SINGLE_16",
	"SPARSE_8", "SPARSE_12", "SPARSE_16", "SPARSE_24", "SPARSE_40",
	"DENSE_12", "DENSE_16", "DENSE_24", "DENSE_32", "DENSE_40", "LONG_DENSE",
}

func (t nodeType) String() string { return nodeTypeNames[t&0xF] }

// pointerBits is the width of one child pointer in bits (0 for PAYLOAD_ONLY).
var pointerBits = [16]uint8{0, 4, 8, 12, 16, 8, 12, 16, 24, 40, 12, 16, 24, 32, 40, 64}

func (t nodeType) isSingle() bool { return t >= singleNoPayload4 && t <= single16 }
func (t nodeType) isSparse() bool { return t >= sparse8 && t <= sparse40 }
func (t nodeType) isDense() bool  { return t >= dense12 }

// canCarryPayload reports whether the low nibble of the header is free for
// payload flags; the two NOPAYLOAD singles use it for pointer bits instead.
func (t nodeType) canCarryPayload() bool {
	return t != singleNoPayload4 && t != singleNoPayload12
}

// Width classes: the smallest class whose pointer can hold the largest child
// distance D of a node. The tables below are indexed by class.
var (
	singlesByClass = [8]nodeType{singleNoPayload4, single8, singleNoPayload12, single16, dense24, dense32, dense40, longDense}
	sparsesByClass = [8]nodeType{sparse8, sparse8, sparse12, sparse16, sparse24, sparse40, sparse40, longDense}
	densesByClass  = [8]nodeType{dense12, dense12, dense12, dense16, dense24, dense32, dense40, longDense}
)

// widthClass returns the smallest class that can address distance d. The
// boundaries are Cassandra's `fits` tests: inclusive for the 4- and 12-bit
// classes, exclusive powers of two for the byte-sized ones.
func widthClass(d int64) int {
	switch {
	case d <= 0xF:
		return 0
	case d < 1<<8:
		return 1
	case d <= 0xFFF:
		return 2
	case d < 1<<16:
		return 3
	case d < 1<<24:
		return 4
	case d < 1<<32:
		return 5
	case d < 1<<40:
		return 6
	default:
		return 7
	}
}

// typeFor chooses the node type exactly as Cassandra's TrieNode.typeFor does:
// by child count, whether a payload is present, the transition span (for the
// sparse/dense trade-off) and maxDist, the distance back to the farthest child.
func typeFor(childCount, span int, hasPayload bool, maxDist int64) nodeType {
	if childCount == 0 {
		return payloadOnly
	}
	k := widthClass(maxDist)
	if childCount == 1 {
		if hasPayload && (k == 0 || k == 2) {
			k++ // the next class has room for payload flags
		}
		return singlesByClass[k]
	}
	sparse, dense := sparsesByClass[k], densesByClass[k]
	if nodeSize(sparse, childCount, span) < nodeSize(dense, childCount, span) {
		return sparse
	}
	return dense // ties go to DENSE
}

// nodeSize is the serialized size of a node of type t without its payload.
func nodeSize(t nodeType, childCount, span int) int {
	switch {
	case t == payloadOnly:
		return 1
	case t == singleNoPayload4:
		return 2
	case t == singleNoPayload12:
		return 3
	case t.isSingle():
		return 2 + int(pointerBits[t])/8
	case t == sparse12:
		return 2 + childCount + (3*childCount+1)/2
	case t.isSparse():
		return 2 + childCount*(1+int(pointerBits[t])/8)
	case t == dense12:
		return 3 + (3*span+1)/2
	default: // other dense types
		return 3 + span*int(pointerBits[t])/8
	}
}

// readUint reads an n-byte big-endian unsigned integer. The caller has
// checked that b holds n bytes.
func readUint(b []byte, n int) uint64 {
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// read12 reads the i-th 12-bit value of a packed area: a big-endian 16-bit
// word at 3i/2, shifted for even i and masked for odd i. The caller has
// checked that the area holds (3*count+1)/2 bytes.
func read12(area []byte, i int) uint64 {
	w := binary.BigEndian.Uint16(area[3*i/2:])
	if i&1 == 0 {
		return uint64(w >> 4)
	}
	return uint64(w & 0xFFF)
}

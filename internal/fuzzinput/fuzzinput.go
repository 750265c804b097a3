// Package fuzzinput reads the Partitions.db fuzz targets' inputs: the
// engine's (package partitionindex) and the tools' (package audit) fuzz the
// same inputs, each through its own functions, so a corpus entry of one
// means the same keys, positions and early-open view in the other. It is
// test infrastructure.
package fuzzinput

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/partitioner"
)

// Keys splits data into keys: each key is a length byte (mod 40) followed
// by that many bytes (fewer at the end of data).
func Keys(data []byte) [][]byte {
	var keys [][]byte
	for len(data) > 0 {
		n := min(int(data[0])%40, len(data)-1)
		keys = append(keys, data[1:1+n])
		data = data[1+n:]
	}
	return keys
}

// Probes returns up to four keys to look up in data read as an index file:
// slices of it at four evenly spaced offsets, each as long as its first
// byte says (mod 24).
func Probes(data []byte) [][]byte {
	var keys [][]byte
	for i := 0; i < len(data) && len(keys) < 4; i += 1 + len(data)/4 {
		keys = append(keys, data[i:min(len(data), i+1+int(data[i])%24)])
	}
	return keys
}

// AddBuildSeeds adds the seeds of the build round-trip targets, whose
// arguments are (data, byteOrdered, pageSel) as Build reads them.
func AddBuildSeeds(f *testing.F) {
	f.Add([]byte("\x03abc\x02ab\x01a\x00\x05zzzzz"), false, uint8(0))
	f.Add([]byte("\x03abc\x02ab\x01a\x00\x05zzzzz"), true, uint8(1))
	f.Add([]byte("\x04\x00\x00\x00\x00\x04\x00\x00\x00\x01\x04\xff\xff\xff\xff\x02\x00\xff"), true, uint8(2))
	long := []byte{39}
	long = append(long, bytes.Repeat([]byte{7}, 39)...)
	f.Add(bytes.Repeat(long, 30), true, uint8(3))
	f.Add(bytes.Repeat([]byte("\x08abcdefgh\x01\x00"), 20), false, uint8(3))
}

// Build reads a build round-trip input: the partitioner (ByteOrdered or
// Murmur3), a page size (0, 64, 128 or 512) and the keys of Keys(data),
// decorated, sorted and deduplicated.
func Build(data []byte, byteOrdered bool, pageSel uint8) (p partitioner.Partitioner, pageSize int, keys []partitioner.Key) {
	p = partitioner.Murmur3
	if byteOrdered {
		p = partitioner.ByteOrdered
	}
	return p, []int{0, 64, 128, 512}[pageSel%4], keyset.Decorate(p, Keys(data))
}

// Position is the position a build round trip stores for key i: every
// payload size (i << 7(i mod 9)) and both signs (odd keys' are complemented).
func Position(i int) int64 {
	pos := int64(i) << (7 * (i % 9))
	if i%2 == 1 {
		pos = ^pos
	}
	return pos
}

// The early-open view targets take (data, noTail, part, keys): the last 32
// bytes of data are the file's length, the view's root, cutoff and count
// (big-endian int64s); the bytes before them are the file and, past its
// length, the view's tail (all file with noTail); part 0 is ByteOrdered and
// 1.. is partitioner.Partitioner(part-1), so values past Random name none;
// keys holds the view's first and last keys as Keys reads them.

// ViewSeed encodes a view of file, an index being written, as such an input.
func ViewSeed(file []byte, v *partitionfile.View) (data, keys []byte) {
	file = file[:min(int64(len(file)), v.Cutoff)]
	data = append(bytes.Clone(file), v.Tail...)
	for _, x := range [4]int64{int64(len(file)), v.Root, v.Cutoff, v.Count} {
		data = binary.BigEndian.AppendUint64(data, uint64(x))
	}
	keys = append([]byte{byte(len(v.FirstKey))}, v.FirstKey...)
	keys = append(append(keys, byte(len(v.LastKey))), v.LastKey...)
	return data, keys
}

// View reads such an input: the file and the view over it. ok is false
// when data is shorter than the 32 bytes of fields.
func View(data []byte, noTail bool, part uint8, keys []byte) (file []byte, v partitionfile.View, ok bool) {
	if len(data) < 32 {
		return nil, v, false
	}
	fields, rest := data[len(data)-32:], data[:len(data)-32]
	fileLen := binary.BigEndian.Uint64(fields)
	v = partitionfile.View{
		Partitioner: partitioner.ByteOrdered,
		Root:        int64(binary.BigEndian.Uint64(fields[8:])),
		Cutoff:      int64(binary.BigEndian.Uint64(fields[16:])),
		Count:       int64(binary.BigEndian.Uint64(fields[24:])),
	}
	if part != 0 {
		v.Partitioner = partitioner.Partitioner(part - 1)
	}
	if ks := Keys(keys); len(ks) > 0 {
		v.FirstKey, v.LastKey = ks[0], ks[len(ks)-1]
	}
	file = rest
	if !noTail && fileLen <= uint64(len(rest)) {
		file, v.Tail = rest[:fileLen], rest[fileLen:]
	}
	return file, v, true
}

package rowindex

import "github.com/bti-go/bti/internal/rowfile"

// AppendPayload appends the payload the writer stores for a block with
// this offset and open deletion and returns its flags, for tools that
// rebuild a trie from its blocks (the audit package's layout check):
//
//	flags = size | 8 if a deletion is open     (size 1..7)
//	+----------------------+--------------------------------+
//	| offset <size, BE,    | open deletion <12>              |
//	|  signed>             |  (only with flag 8)             |
//	+----------------------+--------------------------------+
func AppendPayload(dst []byte, info IndexInfo) ([]byte, byte) {
	return rowfile.AppendPayload(dst, info.Offset, rowfile.Deletion(info.OpenDeletion))
}

// decodePayload reads a payload written by AppendPayload.
func decodePayload(flags byte, b []byte) (offset int64, open DeletionTime, reason string) {
	offset, d, reason := rowfile.DecodePayload(flags, b)
	return offset, DeletionTime(d), reason
}

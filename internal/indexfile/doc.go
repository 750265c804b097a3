// Package indexfile is the layer under both BTI index files, Partitions.db
// (package partitionindex) and Rows.db (package rowindex), and under the
// trie writer both use. It holds what those packages would otherwise each
// keep a copy of:
//
//   - Buffer, the retry-safe output buffer: the bytes of a file produced but
//     not yet handed to its io.Writer, their file position, and a hand-over
//     that keeps what the writer did not take for the next attempt. A trie
//     appends its nodes to it and the file's owner appends its trailers
//     (the Partitions.db footer, the Rows.db partition entries) to the same
//     bytes, so each byte is copied once, into the writer.
//   - CorruptError and ErrCorrupt, the one corruption marker: trie,
//     partitionindex and rowindex alias them, so errors.Is(err, ErrCorrupt)
//     and errors.As(err, &*CorruptError) hold whichever layer found the bad
//     bytes.
//   - The position sign rule of the Partitions.db payload: a partition's
//     position is its Rows.db offset (>= 0) or the complement of its
//     Data.db offset (< 0).
//
// It knows nothing of tries, keys or footers: only bytes, offsets and
// positions.
package indexfile

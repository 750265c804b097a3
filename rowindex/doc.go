// Package rowindex writes and reads the row index of Cassandra's BTI sstable
// format (*-Rows.db), byte for byte as Cassandra's RowIndexWriter,
// BtiFormatPartitionWriter and BtiTableWriter write it.
//
// A wide partition's rows are cut into index blocks of about 16 KiB of
// Data.db. Its row index is a trie (the trie package's format, 4 KiB pages
// aligned to the file) that maps, for each block, a separator key to the
// block's offset: a byte string s of the shortest length with
// prevMax < s <= first, where first is the block's first clustering and
// prevMax the previous block's last, both as byte-comparable encodings
// (bytecomparable.AppendClustering). Of the strings of that length
// Cassandra (ByteComparable.separatorGt) takes their common prefix and
// prevMax's next byte plus one, not first's next byte: 30 38 and 51 38
// give 31, not 51. The first block's separator is the empty key. One more key, the last clustering "nudged" (its byte at the
// length of the last separator's common prefix with it plus one), carries
// the partition's end, so that keys past every row are answered at once.
// The block containing a clustering c is then the floor of c in the trie
// (Cassandra's separatorFloor).
//
// # File layout
//
//	Rows.db:  [trie of partition A][entry A][trie of partition C][entry C] ...
//
// Only partitions with more than one block are there; the others are found
// through Partitions.db directly (its value is then ^dataPosition). Each
// trie starts right after the previous entry and is laid out as if the file
// were written sequentially, so page alignment depends on where it starts.
//
// Payload of each trie entry (flags: the low nibble of the node header):
//
//	flags = size | 8 when a range tombstone is open before the block
//	+----------------------------+-----------------------------------+
//	| offset <size bytes, BE,    | open deletion <12> (flag 8 only): |
//	|  signed, smallest size>    | markedForDeleteAt <8> ldt <4>     |
//	+----------------------------+-----------------------------------+
//
// Partition entry (what BtiTableWriter appends; Partitions.db stores its
// position):
//
//	+-------------+-----+------------------------+-------------------------+
//	| key len <2> | key | dataPosition <uvint>   | root - base <vint>       |
//	+-------------+-----+------------------------+-------------------------+
//	| blocks <uvint> | partition deletion: 80 (LIVE) or <8><4> as above     |
//	+----------------+-----------------------------------------------------+
//
// base is the position right after the key; vints are Cassandra's
// VIntCoding (leading 1 bits count the extra bytes; signed ones zigzag).
//
// # Worked example
//
// The golden case multi-partition's first partition (TestWorkedExample
// builds these bytes): key 70 00, data position 0, deletion (1000, 2000),
// int clusterings in blocks 0x1a..0x30 at 16, 0x51..0xa3 at 19813 and
// 0xfe..0x12c at 40139, end 58196. Separators: "" (empty), 40 80 00 00 31
// (prevMax 40 80 00 00 30 38 and first 40 80 00 00 51 38 share 4 bytes;
// then prevMax's next byte plus one), 40 80 00 00 a4, and the end key
// 40 80 00 02 (the last clustering 40 80 00 01 2c 38 nudged at 3, where it
// first differs from the last separator).
//
//	@00 02 4d 65              PAYLOAD_ONLY size 2: 19813          (40 80 00 00 31)
//	@03 03 00 9c cb           PAYLOAD_ONLY size 3: 40139          (40 80 00 00 a4)
//	@07 50 02 31 a4 07 04     SPARSE_8: 31 -> @0, a4 -> @3
//	@0d 03 00 e3 54           PAYLOAD_ONLY size 3: 58196          (end: 40 80 00 02)
//	@11 50 02 00 02 0a 04     SPARSE_8: 00 -> @7, 02 -> @d
//	@17 16 00                 SINGLE_NOPAYLOAD_4: 00 -> @11
//	@19 12 80                 SINGLE_NOPAYLOAD_4: 80 -> @17
//	@1b 21 40 02 10           SINGLE_8 size 1: 40 -> @19, payload 16  (root, "")
//	@1f 00 02 70 00           entry: key 70 00
//	@23 00 0f 03              data 0, root 0x1b - 0x23 = -8 (zigzag 0f), 3 blocks
//	@26 00..03 e8 00 00 07 d0 deletion: markedForDeleteAt 1000, ldt 2000
//
// # Contracts
//
// Writer: blocks in clustering order, strictly after each other, at
// increasing offsets; a refused block (*BlockError) or failed write leaves
// the writer unchanged and may be retried. The scratch path allocates
// nothing per block once warm; the reference writer (internal/refrows),
// which the golden and model tests check it against, writes the same bytes.
//
// Reader: OpenPartition checks the entry and the trie's root; every node
// is bounds-checked as it is read (the trie package), so no bytes make it
// panic or loop. Readers are per goroutine and allocate nothing per lookup.
// Walk is the structural check of a whole Rows.db given its entry
// positions (the non-negative values of its Partitions.db). The audit
// package's CheckRows goes on past a problem, reports each under its rule,
// and compares every trie byte for byte with the writer's layout of the
// same separators and payloads at the same position (bti check --rows,
// with the partition index cross-check of audit.CheckTable); it builds on
// WalkEntry, Partition.Trie, Partition.Info and AppendPayload.
package rowindex

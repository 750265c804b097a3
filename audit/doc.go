// Package audit holds what tools do with Partitions.db and Rows.db files
// that a storage engine does not: check a file against every rule the
// writer lays it out by, detect a Partitions.db's partitioner, verify an
// index against the entries it was built from, and show its bytes. The
// engine-facing packages (partitionindex, rowindex, tableindex) keep to
// build, open, look up and iterate; this package is built on them and on
// a few low-level accessors they export for it (partitionindex.Index.Trie
// and ResolveFooter, rowindex.WalkEntry, Partition.Trie and Info, and
// trie's one decoded-node view trie.Trie.Shape with Source, WriterType and
// TypeName), and no
// engine package imports it (internal/lint enforces the layering), as
// pebble keeps its sstable package small and its tools in tool/.
//
// It is called audit, not check or tool, because that is what its callers
// do with it: bti check, verify and dump, and tests that hold a file's
// entries, examine a file someone else wrote (Cassandra, or a writer under
// test) rather than serve reads from it.
//
// # Checks
//
// CheckPartitions audits a Partitions.db without its keys; CheckRows a
// Rows.db given its partition entries' positions; CheckTable a Rows.db
// against the Partitions.db written beside it. All three return one Report
// type, whose Problems name a Rule from one vocabulary, and take one
// Options (each reads the fields of its file). Work is linear in the file
// and memory bounded by the trie's depth (CheckPartitions documents the
// one exception, a diagnosis pass on damaged files).
//
// # Partitioner detection
//
// A Partitions.db does not name its partitioner. DetectPartitioner finds
// the one under which the footer's keys resolve to the trie's first and
// last entries (the rule partitionindex applies at open, tried under each
// partitioner); OpenDetected opens a file under it; FooterPartitioners
// lists every one that fits.
//
// # Verification
//
// VerifyEntries checks an index against its keys and positions held in
// memory; NewEntryVerifier does the same streaming, one entry at a time in
// constant memory, allocating nothing per entry once warm.
//
// # Views
//
// WriteAnnotated prints a file as the annotated hex dump the project's
// goldens hold; Payload decodes one node's payload; CountNodes counts the
// nodes by type. For the trie of either file (partitionindex.Index.Trie,
// rowindex.Partition.Trie): DumpTrie prints its nodes depth first, one
// line each; CountTrie counts them by type, depth and pages per lookup;
// TriePathPages lists the pages one lookup reads.
package audit

package partitionindex

import "github.com/bti-go/bti/partitioner"

// Open maps the Partitions.db file at path into memory (mmap where the
// platform has it, else reads it) and opens it under p, refusing a file
// whose footer keys do not resolve under p (*PartitionerMismatchError).
// The mapping is released when the index and every reader handle are
// closed.
func Open(path string, p partitioner.Partitioner) (*Index, error) {
	return openFile(path, func(data []byte) (*Index, error) { return NewIndex(data, p) })
}

// OpenAuto maps and opens the file at path with the partitioner
// DetectPartitioner finds.
func OpenAuto(path string) (*Index, error) { return openFile(path, NewIndexAuto) }

// OpenUnchecked maps and opens the file at path under p without the
// partitioner check, as NewIndexUnchecked does: for tools that report a
// mismatch as a finding (Check) rather than refuse the file.
func OpenUnchecked(path string, p partitioner.Partitioner) (*Index, error) {
	return openFile(path, func(data []byte) (*Index, error) { return NewIndexUnchecked(data, p) })
}

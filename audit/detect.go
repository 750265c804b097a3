package audit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// A Partitions.db file does not name its partitioner, but its footer holds
// the raw first and last keys. Under the partitioner the index was written
// with, their encodings walk to the trie's first and last entries (and those
// entries' hash bytes are the keys'); under another the encodings differ
// and, but for indexes too small to tell, the walks end elsewhere. The
// engine applies this rule to the partitioner it is told
// (partitionindex.Index.ResolveFooter); detection tries it under each.

var (
	// ErrNoPartitioner: DetectPartitioner found no partitioner under which
	// the footer's keys resolve.
	ErrNoPartitioner = errors.New("audit: no partitioner fits the index")
	// ErrAmbiguousPartitioner: DetectPartitioner found more than one (an
	// empty or one-key index fits every partitioner).
	ErrAmbiguousPartitioner = errors.New("audit: partitioner cannot be told from the index")
)

// partitioners are the ones detection tries, Cassandra's default first.
var partitioners = [...]partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random}

// DetectError reports that DetectPartitioner found no partitioner, or more
// than one, under which the footer's keys resolve. It matches
// ErrNoPartitioner or ErrAmbiguousPartitioner with errors.Is.
type DetectError struct {
	Err     error                     // ErrNoPartitioner or ErrAmbiguousPartitioner
	Count   int64                     // keys in the index
	Matches []partitioner.Partitioner // for ErrAmbiguousPartitioner, every one that fits
	Tried   []error                   // for ErrNoPartitioner, why each was refused
}

func (e *DetectError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Err == ErrAmbiguousPartitioner {
		fmt.Fprintf(&b, ": the footer's keys resolve under each of")
		for i, p := range e.Matches {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %v", p)
		}
		fmt.Fprintf(&b, " (an index of %d keys cannot tell them apart)", e.Count)
		return b.String()
	}
	for _, err := range e.Tried {
		fmt.Fprintf(&b, "; %v", err)
	}
	return b.String()
}

func (e *DetectError) Unwrap() error { return e.Err }

// DetectPartitioner returns the one partitioner under which the footer's
// first and last keys of the Partitions.db in data resolve to the trie's
// first and last entries (two walks per partitioner).
//
// An index of zero keys, or of one key (whose stored prefix is empty, so
// every key walks to it), fits every partitioner; so may, rarely, a small
// index. Then the error is a *DetectError matching ErrAmbiguousPartitioner
// and listing the partitioners that fit, and the caller must choose. If
// none fits, it matches ErrNoPartitioner; a damaged file is a
// *partitionindex.CorruptError.
func DetectPartitioner(data []byte) (partitioner.Partitioner, error) {
	ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{SkipPartitionerCheck: true})
	if err != nil {
		return 0, err
	}
	defer ix.Close()
	return detect(ix)
}

// detect tries each partitioner's footer rule on ix, opened under any.
func detect(ix *partitionindex.Index) (partitioner.Partitioner, error) {
	var matches []partitioner.Partitioner
	var tried []error
	for _, p := range partitioners {
		err := ix.ResolveFooter(p)
		switch {
		case err == nil:
			matches = append(matches, p)
		case errors.Is(err, partitionindex.ErrPartitionerMismatch):
			tried = append(tried, err)
		default:
			return 0, err // corruption shows whatever the partitioner
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return 0, &DetectError{Err: ErrNoPartitioner, Count: ix.Count(), Tried: tried}
	}
	return 0, &DetectError{Err: ErrAmbiguousPartitioner, Count: ix.Count(), Matches: matches}
}

// OpenDetected maps the Partitions.db at path (partitionindex.Open) under
// the partitioner DetectPartitioner finds for it; opts.Partitioner and
// opts.SkipPartitionerCheck are ignored. Detection reads the footer and
// the paths to the first and last entries of a first, unchecked mapping,
// which is released before the file is opened for use; the errors are
// DetectPartitioner's.
func OpenDetected(path string, opts partitionindex.OpenOptions) (*partitionindex.Index, error) {
	probe, err := partitionindex.Open(path, partitionindex.OpenOptions{SkipPartitionerCheck: true})
	if err != nil {
		return nil, err
	}
	p, err := detect(probe)
	if cerr := probe.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	opts.Partitioner, opts.SkipPartitionerCheck = p, false
	return partitionindex.Open(path, opts)
}

package partitionindex

import (
	"io"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/internal/refpartitions"
	"github.com/bti-go/bti/partitioner"
)

// The tests that build on both paths (internal/buildpath) see the
// production Builder and the reference builder of internal/refpartitions
// through indexBuilder. refpartitions imports nothing of this package, so
// these in-package tests can import it; its Metadata and View convert to
// this package's Metadata and PartialIndex.

// indexBuilder is what the tests ask of a Partitions.db builder.
type indexBuilder interface {
	Add(key *partitioner.Key, position int64) error
	Complete() (Metadata, error)
	Count() int64
	Position() int64
	Flush() error
	BuildPartial(rowIndexEnd, dataEnd int64, ready func(*PartialIndex)) (bool, error)
	BuildPartialSynced(rowIndexEnd, dataEnd int64) (*PartialIndex, error)
	MarkDataSynced(position int64)
	MarkRowIndexSynced(position int64)
	MarkPartitionIndexSynced(position int64)
	keyPartitioner() partitioner.Partitioner
}

// newPathBuilder returns a builder on path writing to w.
func newPathBuilder(w io.Writer, opts Options, path buildpath.Path) indexBuilder {
	if path == buildpath.Reference {
		return referenceBuilder{refpartitions.NewBuilder(w, refpartitions.Options(opts)), opts.Partitioner}
	}
	return NewBuilder(w, opts)
}

func (b *Builder) keyPartitioner() partitioner.Partitioner { return b.opts.Partitioner }

// referenceBuilder adapts a *refpartitions.Builder to indexBuilder.
type referenceBuilder struct {
	*refpartitions.Builder
	part partitioner.Partitioner
}

func (r referenceBuilder) keyPartitioner() partitioner.Partitioner { return r.part }

func (r referenceBuilder) Complete() (Metadata, error) {
	m, err := r.Builder.Complete()
	return Metadata(m), err
}

func (r referenceBuilder) BuildPartial(rowIndexEnd, dataEnd int64, ready func(*PartialIndex)) (bool, error) {
	return r.Builder.BuildPartial(rowIndexEnd, dataEnd, func(v *partitionfile.View) { ready((*PartialIndex)(v)) })
}

func (r referenceBuilder) BuildPartialSynced(rowIndexEnd, dataEnd int64) (*PartialIndex, error) {
	v, err := r.Builder.BuildPartialSynced(rowIndexEnd, dataEnd)
	return (*PartialIndex)(v), err
}

package partitionindex

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
)

// The footer-key rule Open applies (ResolveFooter); the audit package tests
// partitioner detection, which tries it under each partitioner.

var allPartitioners = [...]partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random}

// TestPartitionerPartialViews: the check on early-open views uses the
// view's own first and last keys; a view opened with its own partitioner
// works after every key, one claiming another is refused.
func TestPartitionerPartialViews(t *testing.T) {
	r := seededRand(12)
	var raws [][]byte
	for range 3000 {
		raws = append(raws, randomBytes(r, 1, 10, nil))
	}
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		keys := keyset.Decorate(p, raws)
		var buf bytes.Buffer
		b := NewBuilder(&buf, Options{Partitioner: p, PageSize: 256})
		refused := 0
		for i, k := range keys {
			require.NoError(t, b.Add(&k, int64(i)))
			if i%97 != 5 {
				continue
			}
			view, accepted := takeView(t, b)
			if !accepted {
				continue
			}
			_, err := view.NewIndex(buf.Bytes())
			require.NoError(t, err, "view after %d keys", i+1)
			wrong := *view
			wrong.Partitioner = allPartitioners[(int(p)+1)%len(allPartitioners)]
			if _, err := wrong.NewIndex(buf.Bytes()); err != nil {
				require.ErrorIs(t, err, ErrPartitionerMismatch, "view after %d keys", i+1)
				refused++
			}
		}
		require.Positive(t, refused, "%v: no view was refused under another partitioner", p)
		_, err := b.Complete()
		require.NoError(t, err)
	}
}

package keyset

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/partitioner"
)

func TestModelCases(t *testing.T) {
	for _, short := range []bool{false, true} {
		cases := ModelCases(ModelSizes(short))
		names := map[string]bool{}
		for _, c := range cases {
			require.False(t, names[c.Name()], "case %s twice", c.Name())
			names[c.Name()] = true
			require.False(t, c.Shape.Name == "long-shared-prefix" && c.Keys > 1000, c.Name())
			require.False(t, c.Keys > 10000 && (c.Shape.Name != "random" || c.Partitioner != partitioner.Murmur3), c.Name())
		}
		// 3 partitioners × 5 shapes × 2 page sizes at each size up to
		// 1,000; long-shared-prefix stops there; one set beyond 10,000.
		want := 5 * 3 * 5 * 2
		if !short {
			want += 3*4*2 + 2
		}
		require.Len(t, cases, want, "short=%v", short)
	}
	c := ModelCase{Partitioner: partitioner.ByteOrdered, Shape: Shapes[1], Keys: 10, PageSize: 64}
	require.Equal(t, "byteordered/sequential/n=10/page=64", c.Name())
	require.Equal(t, c.Rand().Uint64(), c.Rand().Uint64(), "a case's source is seeded by the case")
}

// pathWriter writes each key's raw bytes and position; on the reference
// path it can be told to write one byte more, or to refuse a key.
type pathWriter struct {
	w       io.Writer
	path    buildpath.Path
	extra   bool
	refuse  int
	added   int
	refused error
}

func (b *pathWriter) Add(key *partitioner.Key, position int64) error {
	if b.path == buildpath.Reference && b.added == b.refuse {
		return b.refused
	}
	b.added++
	_, err := b.w.Write(append(key.Raw, byte(position)))
	return err
}

func (b *pathWriter) Complete() (int, error) {
	if b.extra && b.path == buildpath.Reference {
		_, err := b.w.Write([]byte{0})
		return b.added, err
	}
	return b.added, nil
}

func TestBuildOnPaths(t *testing.T) {
	keys := Decorate(partitioner.ByteOrdered, [][]byte{[]byte("a"), []byte("b")})
	positions := []int64{7, 9}
	build := func(extra bool, refuse int, refused error) ([]byte, error) {
		return BuildOnPaths(keys, positions, func(w io.Writer, path buildpath.Path) PathBuilder[int] {
			return &pathWriter{w: w, path: path, extra: extra, refuse: refuse, refused: refused}
		})
	}
	file, err := build(false, -1, nil)
	require.NoError(t, err)
	require.Equal(t, []byte{'a', 7, 'b', 9}, file)

	_, err = build(true, -1, nil)
	require.ErrorContains(t, err, "write different files (4 and 5 bytes, first difference at offset 4)")

	refused := errors.New("refused")
	_, err = build(false, 1, refused)
	require.ErrorIs(t, err, refused)
	require.ErrorContains(t, err, "reference path, key 1")
}

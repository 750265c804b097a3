package keystsv

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadWriteRoundTrip(t *testing.T) {
	var text []byte
	want := []Entry{{Key: []byte{}, Pos: 0}, {Key: []byte{0x00, 0xff}, Pos: -1}, {Key: []byte("ab"), Pos: 1 << 62}}
	for _, e := range want {
		text = AppendLine(text, e.Key, e.Pos)
	}
	require.Equal(t, "\t0\n00ff\t-1\n6162\t4611686018427387904\n", string(text))
	got, err := ReadAll(bytes.NewReader(text))
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		require.True(t, bytes.Equal(want[i].Key, got[i].Key), "entry %d", i)
		require.Equal(t, want[i].Pos, got[i].Pos)
	}
}

func TestLineErrors(t *testing.T) {
	for _, c := range []struct{ text, reason string }{
		{"00\t1\nabc\t2\n", "odd number"},
		{"00\t1\nzz\t2\n", "not hex"},
		{"00\t1\n0011 2\n", "no tab"},
		{"00\t1\n00\tx\n", "not a signed 64-bit integer"},
		{"00\t1\n00\t9223372036854775808\n", "not a signed 64-bit integer"},
	} {
		_, err := ReadAll(strings.NewReader(c.text))
		var le *LineError
		require.True(t, errors.As(err, &le), "%q: %v", c.text, err)
		require.Equal(t, 2, le.Line, c.text)
		require.Contains(t, le.Error(), c.reason)
		require.ErrorIs(t, err, ErrSyntax)
	}
}

func TestCRLFAndLineNumbers(t *testing.T) {
	r := NewReader(strings.NewReader("01\t5\r\n02\t6\r\n"))
	require.True(t, r.Next())
	require.Equal(t, 1, r.Line())
	require.Equal(t, int64(5), r.Pos())
	require.True(t, r.Next())
	require.Equal(t, 2, r.Line())
	require.Equal(t, []byte{2}, r.Key())
	require.False(t, r.Next())
	require.NoError(t, r.Err())
}

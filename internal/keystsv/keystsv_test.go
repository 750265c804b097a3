package keystsv

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
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

// parseInt64 agrees with strconv.ParseInt(s, 10, 64) wherever it answers,
// and leaves to strconv everything it does not (ok false).
func TestParseInt64MatchesStrconv(t *testing.T) {
	cases := []string{"", "0", "-0", "+0", "7", "-7", "+7", "00012", "-", "+", "1-2", " 1", "1 ", "0x10", "1_000",
		"999999999999999999", "-999999999999999999", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		cases = append(cases, strconv.FormatInt(int64(rng.Uint64()>>rng.IntN(64)), 10), strconv.FormatInt(-int64(rng.Uint64()>>rng.IntN(64)), 10))
	}
	for _, s := range cases {
		got, ok := parseInt64([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		if ok && (err != nil || got != want) {
			t.Errorf("parseInt64(%q) = %d, strconv says %d, %v", s, got, want, err)
		}
	}
}

// Reading a line allocates nothing once the key buffer has grown, so a
// streamed keys.tsv of any length costs the reader's buffers alone.
func TestReaderAllocatesNothingPerLine(t *testing.T) {
	var text []byte
	for i := range 2000 {
		text = AppendLine(text, []byte{byte(i), byte(i >> 8), 0xab}, int64(i)*-977)
	}
	r := NewReader(bytes.NewReader(text))
	require.True(t, r.Next())
	allocs := testing.AllocsPerRun(1000, func() {
		if !r.Next() {
			t.Fatal(r.Err())
		}
	})
	require.Zero(t, allocs)
}

package bytecomparable

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
)

func TestAppendEscapedVectors(t *testing.T) {
	cases := []struct{ in, want string }{
		// docs/format.md §2.2 table.
		{"", "00"},
		{"61 62", "61 62 00"},
		{"00", "00 FE"},
		{"00 00", "00 FE FE"},
		{"00 01", "00 FF 01 00"},
		{"00 00 00 01", "00 FE FE FF 01 00"},
		{"22 00 11", "22 00 FF 11 00"},
		{"01 00 00 00", "01 00 FE FE FE"},
		// Cassandra src/java/org/apache/cassandra/utils/bytecomparable/ByteComparable.md
		// ("Variable-length byte comparables").
		{"22 00", "22 00 FE"},
		{"22 00 00 33", "22 00 FE FF 33 00"},
		// Cassandra ByteSource.java, AbstractEscaper javadoc (OSS50 forms).
		{"41 00 00 42", "41 00 FE FF 42 00"},
		{"41 00 42 00", "41 00 FF 42 00 FE"},
		{"41 00", "41 00 FE"},
		{"41 42", "41 42 00"},
	}
	for _, c := range cases {
		in := golden.Hex(t, c.in)
		got := AppendEscaped(nil, in)
		assert.Equal(t, golden.Hex(t, c.want), got, "AppendEscaped(%s)", c.in)

		dec, n, err := DecodeEscaped(nil, got)
		require.NoError(t, err, c.in)
		assert.Equal(t, len(got), n, c.in)
		assert.Equal(t, in, append([]byte{}, dec...), c.in)
	}
}

func TestAppendInt64Vectors(t *testing.T) {
	// docs/format.md §2.1; ByteComparable.md ("long MIN_VALUE").
	cases := []struct {
		v    int64
		want string
	}{
		{math.MinInt64, "00 00 00 00 00 00 00 00"},
		{-1, "7F FF FF FF FF FF FF FF"},
		{0, "80 00 00 00 00 00 00 00"},
		{1, "80 00 00 00 00 00 00 01"},
		{math.MaxInt64, "FF FF FF FF FF FF FF FF"},
	}
	for _, c := range cases {
		assert.Equal(t, golden.Hex(t, c.want), AppendInt64(nil, c.v), "%d", c.v)
	}
}

// TestWorkedExamples covers the key and diff-point examples of
// docs/format.md §2.3 and §2.5, and hand-made tokens beside them.
func TestWorkedExamples(t *testing.T) {
	// Example 1: LongToken(1), key 00 01.
	assert.Equal(t, golden.Hex(t, "40 80 00 00 00 00 00 00 01 40 00 FF 01 00 38"),
		AppendLongTokenKey(nil, 1, []byte{0, 1}))
	// ... with the real Murmur3 token of 00 01.
	assert.Equal(t, golden.Hex(t, "40 FC B3 F5 C5 8D AB 26 4C 40 00 FF 01 00 38"),
		AppendLongTokenKey(nil, 8985795910368437836, []byte{0, 1}))
	// Example 2 and the other ByteOrdered examples.
	bop := []struct{ key, want string }{
		{"61 62", "40 61 62 00 40 61 62 00 38"},
		{"61", "40 61 00 40 61 00 38"},
		{"62", "40 62 00 40 62 00 38"},
		{"61 00", "40 61 00 FE 40 61 00 FE 38"},
		{"", "40 00 40 00 38"},
	}
	for _, c := range bop {
		assert.Equal(t, golden.Hex(t, c.want), AppendBytesTokenKey(nil, golden.Hex(t, c.key)), "BOP %s", c.key)
	}
	// Example 3: CQL int 1 with its Murmur3 token.
	assert.Equal(t, golden.Hex(t, "40 47 84 99 98 2A E4 E0 CF 40 00 FE FE FF 01 00 38"),
		AppendLongTokenKey(nil, -4069959284402364209, []byte{0, 0, 0, 1}))
	// The empty Murmur3 key has token MinInt64.
	assert.Equal(t, golden.Hex(t, "40 00 00 00 00 00 00 00 00 40 00 38"),
		AppendLongTokenKey(nil, math.MinInt64, nil))
	// Key bounds of Murmur3 token 1.
	assert.Equal(t, golden.Hex(t, "40 80 00 00 00 00 00 00 01 20"), AppendLongTokenBound(nil, 1, false))
	assert.Equal(t, golden.Hex(t, "40 80 00 00 00 00 00 00 01 60"), AppendLongTokenBound(nil, 1, true))

	// diffPoint/cut examples (BOP).
	a := AppendBytesTokenKey(nil, []byte("a"))
	ab := AppendBytesTokenKey(nil, []byte("ab"))
	b := AppendBytesTokenKey(nil, []byte("b"))
	assert.Equal(t, 3, DiffPoint(a, ab))
	assert.Equal(t, golden.Hex(t, "40 61 00"), Cut(a, 3))
	assert.Equal(t, 2, DiffPoint(ab, b))
	assert.Equal(t, golden.Hex(t, "40 62"), Cut(b, 2))
}

func TestBoundsOrder(t *testing.T) {
	// A token's min bound sorts before, its max bound after, every key with
	// that token (including the empty key), and both sort between the keys of
	// the neighbouring tokens.
	for _, tok := range []int64{math.MinInt64, -1, 0, 1, math.MaxInt64} {
		lo := AppendLongTokenBound(nil, tok, false)
		hi := AppendLongTokenBound(nil, tok, true)
		for _, key := range [][]byte{nil, {0}, {0xFF, 0xFF}, []byte("key")} {
			k := AppendLongTokenKey(nil, tok, key)
			assert.Negative(t, bytes.Compare(lo, k))
			assert.Positive(t, bytes.Compare(hi, k))
			if tok != math.MaxInt64 {
				assert.Negative(t, bytes.Compare(hi, AppendLongTokenKey(nil, tok+1, key)))
			}
		}
	}
	for _, tok := range [][]byte{nil, {0}, {0, 0}, []byte("a"), []byte("ab")} {
		lo := AppendBytesTokenBound(nil, tok, false)
		hi := AppendBytesTokenBound(nil, tok, true)
		k := AppendBytesTokenKey(nil, tok)
		assert.Negative(t, bytes.Compare(lo, k), "%x", tok)
		assert.Positive(t, bytes.Compare(hi, k), "%x", tok)
		// The next token (tok + 00) sorts after the max bound.
		next := AppendBytesTokenKey(nil, append(append([]byte{}, tok...), 0))
		assert.Negative(t, bytes.Compare(hi, next), "%x", tok)
	}
}

func naiveDiffPoint(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i + 1
}

func TestDiffPoint(t *testing.T) {
	assert.Equal(t, 1, DiffPoint(nil, nil), "two empty streams differ at position 1 (both EOS)")
	assert.Equal(t, 1, DiffPoint([]byte{1}, nil))
	assert.Equal(t, 4, DiffPoint([]byte{1, 2, 3}, []byte{1, 2, 3}), "equal: len+1")
	assert.Equal(t, 3, DiffPoint([]byte{1, 2}, []byte{1, 2, 3}), "prefix: len+1")

	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		n := rng.IntN(40)
		if rng.IntN(50) == 0 {
			n = rng.IntN(5000)
		}
		a := make([]byte, n)
		for i := range a {
			a[i] = byte(rng.IntN(3))
		}
		b := append([]byte{}, a...)
		switch rng.IntN(3) {
		case 0: // flip one byte
			if n > 0 {
				b[rng.IntN(n)] ^= byte(1 + rng.IntN(255))
			}
		case 1: // truncate
			b = b[:rng.IntN(n+1)]
		}
		require.Equal(t, naiveDiffPoint(a, b), DiffPoint(a, b), "%x / %x", a, b)
		require.Equal(t, naiveDiffPoint(b, a), DiffPoint(b, a))
	}
	// Every position of the first difference inside and around the 8-byte
	// words.
	for n := range 20 {
		a := bytes.Repeat([]byte{0xAA}, 20)
		b := append([]byte{}, a...)
		if n < 20 {
			b[n] = 0xAB
		}
		assert.Equal(t, n+1, DiffPoint(a, b), n)
	}
}

func TestCut(t *testing.T) {
	enc := []byte{1, 2, 3}
	assert.Empty(t, Cut(enc, 0))
	assert.Empty(t, Cut(enc, -1))
	assert.Equal(t, []byte{1, 2}, Cut(enc, 2))
	assert.Equal(t, enc, Cut(enc, 3))
	assert.Equal(t, enc, Cut(enc, 99))
}

// randKey draws keys rich in the bytes the escaping treats specially.
func randKey(rng *rand.Rand) []byte {
	var n int
	switch r := rng.IntN(1000); {
	case r < 3:
		n = 60000 + rng.IntN(10001) // long keys, a few times
	case r < 100:
		n = 0
	default:
		n = rng.IntN(12)
	}
	k := make([]byte, n)
	alphabet := rng.IntN(3)
	for i := range k {
		switch alphabet {
		case 0:
			k[i] = []byte{0x00, 0x01, 0xFE, 0xFF}[rng.IntN(4)]
		case 1:
			k[i] = []byte{0x00, 0xFF}[rng.IntN(2)]
		default:
			k[i] = byte(rng.Uint32())
		}
	}
	return k
}

func compareLongKeys(ta int64, a []byte, tb int64, b []byte) int {
	if ta != tb {
		if ta < tb {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

func TestOrderAndRoundTripProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tokens := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
	for range 4000 {
		ka, kb := randKey(rng), randKey(rng)
		if rng.IntN(4) == 0 {
			kb = append(append([]byte{}, ka...), randKey(rng)...) // prefix relation
		}
		ta := tokens[rng.IntN(len(tokens))]
		tb := ta // equal tokens half the time
		if rng.IntN(2) == 0 {
			tb = int64(rng.Uint64())
		}

		ea, eb := AppendLongTokenKey(nil, ta, ka), AppendLongTokenKey(nil, tb, kb)
		require.Equal(t, compareLongKeys(ta, ka, tb, kb), bytes.Compare(ea, eb))
		if !bytes.Equal(ea, eb) {
			require.False(t, bytes.HasPrefix(eb, ea), "prefix-free")
			require.False(t, bytes.HasPrefix(ea, eb), "prefix-free")
		}
		tok, key, err := DecodeLongTokenKey(nil, ea)
		require.NoError(t, err)
		require.Equal(t, ta, tok)
		require.True(t, bytes.Equal(ka, key))

		ba, bb := AppendBytesTokenKey(nil, ka), AppendBytesTokenKey(nil, kb)
		require.Equal(t, bytes.Compare(ka, kb), bytes.Compare(ba, bb))
		key, err = DecodeBytesTokenKey(nil, ba)
		require.NoError(t, err)
		require.True(t, bytes.Equal(ka, key))

		require.Equal(t, naiveDiffPoint(ea, eb), DiffPoint(ea, eb))
	}
}

// TestAppendKeepsPrefix checks that every Append function appends and every
// decoder decodes after a non-empty dst without touching it.
func TestAppendKeepsPrefix(t *testing.T) {
	prefix := []byte("prefix")
	key := []byte{0, 'k', 0, 0}
	check := func(name string, f func(dst []byte) []byte) {
		want := f(nil)
		dst := append(make([]byte, 0, 64), prefix...)
		got := f(dst)
		assert.Equal(t, prefix, got[:len(prefix)], name)
		assert.Equal(t, want, got[len(prefix):], name)
	}
	check("AppendEscaped", func(d []byte) []byte { return AppendEscaped(d, key) })
	check("AppendInt64", func(d []byte) []byte { return AppendInt64(d, -5) })
	check("AppendLongTokenKey", func(d []byte) []byte { return AppendLongTokenKey(d, 7, key) })
	check("AppendBytesTokenKey", func(d []byte) []byte { return AppendBytesTokenKey(d, key) })
	check("AppendLongTokenBound", func(d []byte) []byte { return AppendLongTokenBound(d, 7, true) })
	check("AppendBytesTokenBound", func(d []byte) []byte { return AppendBytesTokenBound(d, key, false) })
	check("AppendBigInt", func(d []byte) []byte { return AppendBigInt(d, []byte{0x7F, 1, 2, 3, 4, 5, 6, 7}) })
	check("AppendBigIntTokenKey", func(d []byte) []byte { return AppendBigIntTokenKey(d, []byte{5}, key) })
	check("AppendBigIntTokenBound", func(d []byte) []byte { return AppendBigIntTokenBound(d, []byte{5}, true) })

	out, n, err := DecodeEscaped(append([]byte{}, prefix...), AppendEscaped(nil, key))
	require.NoError(t, err)
	assert.Equal(t, 6, n) // 00 FF 6B 00 FE FE
	assert.Equal(t, append(append([]byte{}, prefix...), key...), out)
	_, got, err := DecodeLongTokenKey(append([]byte{}, prefix...), AppendLongTokenKey(nil, 3, key))
	require.NoError(t, err)
	assert.Equal(t, append(append([]byte{}, prefix...), key...), got)
	got, err = DecodeBytesTokenKey(append([]byte{}, prefix...), AppendBytesTokenKey(nil, key))
	require.NoError(t, err)
	assert.Equal(t, append(append([]byte{}, prefix...), key...), got)
}

func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	key := bytes.Repeat([]byte{0, 1, 2, 0, 0}, 20)
	slot := make([]byte, 0, 1024)
	other := AppendLongTokenKey(nil, 5, key[:50])
	var sink int
	for name, f := range map[string]func(){
		"AppendLongTokenKey":  func() { slot = AppendLongTokenKey(slot[:0], 5, key) },
		"AppendBytesTokenKey": func() { slot = AppendBytesTokenKey(slot[:0], key) },
		"AppendBigIntTokenKey": func() {
			slot = AppendBigIntTokenKey(slot[:0], []byte{0x7F, 1, 2, 3, 4, 5, 6, 7, 8}, key)
		},
		"AppendLongTokenBound": func() { slot = AppendLongTokenBound(slot[:0], 5, true) },
		"DiffPoint":            func() { sink += DiffPoint(slot, other) },
		"DecodeLongTokenKey": func() {
			enc := AppendLongTokenKey(slot[:0], 5, key)
			_, _, err := DecodeLongTokenKey(enc[len(enc):], enc)
			if err != nil {
				panic(err)
			}
		},
	} {
		assert.Zero(t, testing.AllocsPerRun(100, f), name)
	}
	_ = sink
}

func TestDecodeErrors(t *testing.T) {
	// A LongToken key with token 1 starts 40 <80 00 00 00 00 00 00 01> 40;
	// most cases keep that head whole and break the escaped key or the 38
	// terminator after it.
	const token1 = "40 80 00 00 00 00 00 00 01 40 "
	bad := []struct{ name, enc string }{
		{"empty", ""},
		{"no end marker", token1 + "61 62"},
		{"FF then end", token1 + "00 FF"},
		{"FF then zero", token1 + "00 FF 00 FE 38"},
		{"no terminator", token1 + "61 00"},
		{"wrong terminator", token1 + "61 00 20"},
		{"trailing", token1 + "61 00 38 00"},
		{"short token", "40 80 00 40 61 00 38"},
	}
	for _, c := range bad {
		_, _, err := DecodeLongTokenKey(nil, golden.Hex(t, c.enc))
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, ErrMalformed, c.name)
		var de *DecodeError
		require.ErrorAs(t, err, &de, c.name)
		assert.NotEmpty(t, de.Reason)
	}
	// The error points at the offending byte: here the missing terminator.
	_, _, err := DecodeLongTokenKey(nil, golden.Hex(t, token1+"61 00 20"))
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, 12, de.Offset)

	_, err = DecodeBytesTokenKey(nil, golden.Hex(t, "40 61 00 40 62 00 38"))
	assert.ErrorIs(t, err, ErrMalformed, "token differs from key")
	_, err = DecodeBytesTokenKey(nil, golden.Hex(t, "40 61 00 38"))
	assert.ErrorIs(t, err, ErrMalformed, "one component only")
}

// naiveEscape is the OSS50 escaping a byte at a time, from its definition:
// a zero run of k bytes is written as 00 followed by k-1 FE, then FF if a
// non-zero byte follows; the component ends with 00, or with one more FE
// when it ends inside a zero run.
func naiveEscape(b []byte) []byte {
	var out []byte
	inRun := false
	for _, c := range b {
		switch {
		case inRun && c == 0:
			out = append(out, Escaped0Cont)
		case inRun:
			out = append(out, Escaped0Done, c)
			inRun = false
		default:
			out = append(out, c)
			inRun = c == 0
		}
	}
	if inRun {
		return append(out, Escaped0Cont)
	}
	return append(out, Escape)
}

// Every length around the word-at-a-time paths (short keys, the last
// 1..7 bytes read as one word, the general loop), with a zero at every
// position (a word's only zero, escaped in register unless it is the
// word's or the input's last byte), none, two, a zero followed by 01, and
// zero runs of every length.
func TestAppendEscapedWordPaths(t *testing.T) {
	for n := 0; n <= 80; n++ {
		base := make([]byte, n)
		for i := range base {
			base[i] = byte(0x31 + i)
		}
		cases := [][]byte{base}
		for z := 0; z < n; z++ {
			one := append([]byte(nil), base...)
			one[z] = 0
			cases = append(cases, one)
			if z+1 < n {
				two := append([]byte(nil), one...)
				two[z+1] = 0
				// 00 01: the word test's borrow flags the 01 as well.
				borrow := append([]byte(nil), one...)
				borrow[z+1] = 1
				cases = append(cases, two, borrow)
			}
		}
		// A zero run of every length at every start: runs that end inside
		// a word, at its end, past it, and at the end of the input.
		for z := 0; z < n && n <= 40; z++ {
			for end := z + 3; end <= n; end++ {
				run := append([]byte(nil), base...)
				clear(run[z:end])
				cases = append(cases, run)
			}
		}
		for _, c := range cases {
			got := AppendEscaped([]byte{0xAB}, c)
			require.Equal(t, append([]byte{0xAB}, naiveEscape(c)...), got, "input %x", c)
		}
	}
}

// Every escape of a word of eight bytes over {00, 01, 80, FF} (65,536 of
// them) after either state, preceded by 0 to 8 bytes so that the word
// falls at every offset of the word loop and of the last 1..7 bytes, and
// with out exactly as long as the escape, with 8 spare bytes (a word's
// stores) or with escapeVectorRoom (the vector path, where it is on): no
// run ending, one, and two to four (escapeEnds) in one word, FE and FF in
// every position, and the byte-at-a-time end where a word's stores do not
// fit. escapeFrom must give naiveEscape's bytes on either path.
func TestEscapeFromEveryWord(t *testing.T) { escapePaths(t, testEscapeFromEveryWord) }

func testEscapeFromEveryWord(t *testing.T) {
	vals := []byte{0x00, 0x01, 0x80, 0xFF}
	for code := range 1 << 16 {
		var word [8]byte
		for j := range word {
			word[j] = vals[code>>(2*j)&3]
		}
		lead := code % 9 // 0 to 8 bytes before the word
		for _, escaped := range []bool{false, true} {
			b := append(bytes.Repeat([]byte{0x61}, lead), word[:]...)
			if escaped {
				b = append([]byte{0}, b...)
			}
			want := naiveEscape(b)
			want = want[:len(want)-1] // without the end marker
			i := 0
			if escaped {
				i = 1 // resume after the zero, in its run
			}
			head := naiveEscape(b[:i])
			head = head[:len(head)-1]
			// -1: the room escapeVector needs, so that the vector path
			// runs where it is on.
			for _, spare := range []int{0, 8, -1} {
				out := make([]byte, len(want)+spare)
				if spare < 0 {
					out = make([]byte, len(head)+escapeVectorRoom(len(b)-i))
				}
				copy(out, head)
				n, esc := escapeFrom(out, len(head), b, i, escaped)
				if !bytes.Equal(out[:n], want) || esc != (b[len(b)-1] == 0) {
					t.Fatalf("escapeFrom(%x from %d, escaped %v, %d spare) = %x, %v; want %x", b, i, escaped, spare, out[:n], esc, want)
				}
			}
		}
	}
}

// BytesKeyEncoder must give exactly AppendBytesTokenKey's bytes whatever
// part of the previous key's output it copies: keys with long shared
// prefixes, prefixes ending inside and right after zero runs, shorter and
// longer keys, and keys that were encoded but never committed (a refused
// key must not become the one the next key copies from).
func TestBytesKeyEncoder(t *testing.T) { escapePaths(t, testBytesKeyEncoder) }

func testBytesKeyEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = 0 // runs of zeros end at every kind of boundary
			case 1:
				b[i] = 0xFF
			default:
				b[i] = byte(r.Uint32())
			}
		}
		return b
	}
	var e BytesKeyEncoder
	// Three output slots used in turn, as the partition index's ring does:
	// the committed key's output stays untouched while the next is written.
	var slots [3][]byte
	var prev []byte
	slot := 0
	for iter := range 3000 {
		var b []byte
		switch {
		case prev == nil || iter%7 == 0:
			b = gen(r.IntN(3 * escapeMarkEvery))
		default:
			// Share a random part of the previous key, then diverge.
			cut := r.IntN(len(prev) + 1)
			b = append(bytes.Clone(prev[:cut]), gen(r.IntN(2*escapeMarkEvery))...)
		}
		prefix := []byte{0x12, 0x34} // a non-empty dst
		want := AppendBytesTokenKey(bytes.Clone(prefix), b)
		got := e.AppendKey(append(slots[slot][:0], prefix...), b)
		slots[slot] = got
		require.Equal(t, want, got, "iteration %d: %d bytes", iter, len(b))
		// A short key records no marks (it says so instead); a longer one
		// one per whole stride.
		require.Equal(t, len(b) < escapeMarkEvery, e.nextShort)
		marks := 0
		if !e.nextShort {
			marks = e.nextMarks
			require.Equal(t, len(b)/escapeMarkEvery, marks)
		}
		for j, m := range e.marks[:marks] {
			full := AppendEscaped(nil, b[:(j+1)*escapeMarkEvery])
			// The mark's output is the escaped prefix without its end marker.
			require.Equal(t, full[:len(full)-1], got[len(prefix)+1:len(prefix)+1+m.out()], "mark %d", j)
			require.Equal(t, b[(j+1)*escapeMarkEvery-1] == 0, m.escaped(), "mark %d", j)
		}
		// The bytes Reused claims are equal to the committed key's output.
		if prevOut := slots[(slot+2)%3]; prev != nil && e.havePrev {
			k := e.Reused()
			require.LessOrEqual(t, k, min(len(prevOut), len(got)-len(prefix)))
			require.Equal(t, prevOut[len(prefix):len(prefix)+k], got[len(prefix):len(prefix)+k], "iteration %d: reused bytes differ", iter)
		}
		if iter%5 == 3 {
			// Refused: not committed, and its slot is reused next time.
			continue
		}
		e.Commit()
		prev = b
		slot = (slot + 1) % 3
	}
	// Reset forgets the previous key: a key sharing its prefix still encodes
	// from scratch and right.
	e.Reset()
	got := e.AppendKey(nil, prev)
	require.Equal(t, AppendBytesTokenKey(nil, prev), got)
}

// A long shared prefix is copied, not escaped again: the marks of the
// shared strides are the previous key's.
func TestBytesKeyEncoderReuses(t *testing.T) {
	prefix := bytes.Repeat([]byte{0, 1, 0xFF}, 700)
	a := append(bytes.Clone(prefix), 1)
	b := append(bytes.Clone(prefix), 2)
	var e BytesKeyEncoder
	outA := e.AppendKey(nil, a)
	e.Commit()
	// Poison the part of outA's first component past the shared strides: if
	// the encoder copied more than whole shared strides, b's output would
	// carry the poison.
	shared := len(prefix) / escapeMarkEvery * escapeMarkEvery
	m := e.marks[shared/escapeMarkEvery-1]
	copyEnd := 1 + m.out()
	want := AppendBytesTokenKey(nil, b)
	require.Equal(t, want[:copyEnd], outA[:copyEnd])
	for i := 1; i < copyEnd; i++ {
		outA[i] ^= 0x5A // the copied part: b's output must show this
	}
	outB := e.AppendKey(nil, b)
	require.NotEqual(t, want[1:copyEnd], outB[1:copyEnd], "the shared strides were escaped again, not copied")
	// Past the copied strides b is escaped afresh.
	firstEnd := 1 + len(AppendEscaped(nil, b))
	require.Equal(t, want[copyEnd:firstEnd], outB[copyEnd:firstEnd])
}

// TestBytesKeyHead: AppendHead is the start of AppendKey's output and
// decodes back to the key; and the heads of two different keys decide
// their comparison: the same diff point as the full encodings, within the
// shorter head, and the same order.
func TestBytesKeyHead(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	gen := func() []byte {
		b := make([]byte, r.IntN(7))
		for i := range b {
			b[i] = []byte{0, 0, 1, 0x40, 0xFE, 0xFF, 'a'}[r.IntN(7)]
		}
		return b
	}
	var e, f BytesKeyEncoder
	for range 20000 {
		a, b := gen(), gen()
		ha, hb := e.AppendHead(nil, a), f.AppendHead(nil, b)
		fa, fb := AppendBytesTokenKey(nil, a), AppendBytesTokenKey(nil, b)
		require.Equal(t, fa[:len(ha)], ha)
		key, err := DecodeBytesTokenHead(nil, ha)
		require.NoError(t, err)
		require.Equal(t, a, append([]byte{}, key...))
		if bytes.Equal(a, b) {
			continue
		}
		d := DiffPoint(ha, hb)
		require.Equal(t, DiffPoint(fa, fb), d, "%x %x", a, b)
		require.LessOrEqual(t, d, min(len(ha), len(hb)), "%x %x", a, b)
		require.Equal(t, bytes.Compare(fa, fb), bytes.Compare(ha, hb))
	}
	_, err := DecodeBytesTokenHead(nil, AppendBytesTokenKey(nil, []byte("x")))
	require.ErrorIs(t, err, ErrMalformed, "a full key is not a head")
}

// TestReuseHead writes every key over one of three buffers used in turn,
// as the partition index builder's ring does, telling the encoder how many
// of the buffer's bytes equal the committed head: the true count, less, or
// none. The output must be AppendHead's whatever the count, and the kept
// bytes are really kept: they are poisoned in the committed head after
// it was committed, so a copy of them would show the poison.
func TestReuseHead(t *testing.T) { escapePaths(t, testReuseHead) }

func testReuseHead(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	prefix := make([]byte, 5*escapeMarkEvery+7)
	for i := range prefix {
		prefix[i] = []byte{0, 0, 1, 0xFE, 0xFF, byte(r.Uint32())}[r.IntN(6)]
	}
	var e BytesKeyEncoder
	var bufs [3][]byte
	var committed []byte // a copy of the committed head
	slot, commits := 0, 0
	for iter := range 4000 {
		cut := len(prefix) - r.IntN(2*escapeMarkEvery)
		if iter%40 == 39 {
			cut = r.IntN(escapeMarkEvery) // short keys break the run
		}
		key := append(bytes.Clone(prefix[:cut]), byte(r.Uint32()), 0, byte(r.Uint32()))
		want := AppendBytesTokenKey(nil, key)
		want = want[:1+len(AppendEscaped(nil, key))+1]
		buf := bufs[slot]
		same := 0
		if committed != nil {
			same = commonPrefix(buf, committed)
			switch r.IntN(3) {
			case 0:
				same = r.IntN(same + 1) // less than known: still right
			case 1:
				same = 0
			}
		}
		got := e.ReuseHead(buf, same, key)
		require.Equal(t, want, got, "iteration %d: key of %d bytes, %d bytes kept", iter, len(key), same)
		if k := e.Reused(); committed != nil {
			require.Equal(t, committed[:k], got[:k], "iteration %d: reused bytes differ", iter)
		}
		bufs[slot] = got
		if r.IntN(7) == 0 {
			continue // refused: not committed, the buffer is written again
		}
		e.Commit()
		commits++
		committed = bytes.Clone(got)
		slot = (slot + 1) % 3
	}
	require.Greater(t, commits, 3000)

	// Poison the committed head's shared strides: a key whose buffer
	// already holds them (same) must come out right, so they were kept,
	// and one told nothing (0) must carry the poison, so they are copied.
	a := append(bytes.Clone(prefix), 1)
	b := append(bytes.Clone(prefix), 2)
	e.Reset()
	outA := e.ReuseHead(nil, 0, a)
	e.Commit()
	wantB := e.AppendHead(nil, b) // not committed
	bufB := bytes.Clone(outA)
	for i := 1; i < len(outA)-8; i++ {
		outA[i] ^= 0x5A
	}
	require.Equal(t, wantB, e.ReuseHead(bufB, len(bufB), b), "kept bytes")
	require.NotEqual(t, wantB, e.ReuseHead(nil, 0, b), "copied bytes")
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}

// TestEscapeFromResumes: escaping b[i:] in state escaped, with b's earlier
// bytes readable, gives the bytes AppendEscaped gives for b past the
// escaped output of b[:i], for every split of inputs dense in zeros.
func TestEscapeFromResumes(t *testing.T) { escapePaths(t, testEscapeFromResumes) }

func testEscapeFromResumes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = []byte{0, 0, 1, 0xFF, byte(r.Uint32())}[r.IntN(5)]
		}
		full := AppendEscaped(nil, b)
		for i := 0; i <= len(b); i++ {
			head := AppendEscaped(nil, b[:i])
			n := len(head) - 1 // without the end marker
			escaped := i > 0 && b[i-1] == 0
			// With 8 spare bytes (a word's stores), with just the room
			// escapeInto documents (the last words then go a byte at a
			// time), and with escapeSlack, the callers' slack (the vector
			// path then runs, where it is on).
			for _, spare := range []int{8, 0, escapeSlack} {
				out := make([]byte, n+maxEscapedLen(len(b)-i)+spare)
				copy(out, head[:n])
				m, esc := escapeFrom(out, n, b, i, escaped)
				m = endEscaped(out, m, esc)
				require.Equal(t, full, out[:m], "input %x from %d, %d spare", b, i, spare)
			}
		}
	}
}

// TestCommitKeepsWholeStrides: Commit keeps of the committed key only what
// the next key can share with it, its whole strides (none for a key
// shorter than one), equal to the key's bytes; and the heads are
// AppendHead's whatever was kept.
func TestCommitKeepsWholeStrides(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 64))
	var e, fresh BytesKeyEncoder
	prefix := bytes.Repeat([]byte{0, 'p', 0, 0}, 80)
	for i := range 3000 {
		key := append(append([]byte{}, prefix[:r.IntN(len(prefix))]...), byte(i), byte(i>>8), 0, byte(r.IntN(3)))
		require.Equal(t, fresh.AppendHead(nil, key), e.AppendHead(nil, key), "key %d", i)
		fresh.Reset()
		e.Commit()
		want := key[:len(key)&^(escapeMarkEvery-1)]
		require.Equal(t, want, e.raw, "key %d of %d bytes", i, len(key))
	}
}

package rowstsv

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/rowindex"
)

const sample = "# types: int32,utf8\n# reversed: 1\n# a comment\npartition\t6b31\t7\t900\t5,6\n" +
	"00000001:61\t00000002:\t10\t-\n00000003:63\t00000004:62\t400\t1,2\n\npartition\t6b32\t8\t90\t-\n00000001:61\t00000002:\t10\t-\n"

func TestRead(t *testing.T) {
	f, err := Read(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Columns) != 2 || f.Columns[0] != (bytecomparable.Column{Type: bytecomparable.Int}) || f.Columns[1] != (bytecomparable.Column{Type: bytecomparable.Text, Desc: true}) {
		t.Fatalf("columns %+v", f.Columns)
	}
	if len(f.Partitions) != 2 || len(f.Partitions[0].Blocks) != 2 || len(f.Partitions[1].Blocks) != 1 {
		t.Fatalf("partitions %+v", f.Partitions)
	}
	p := f.Partitions[0]
	if string(p.Key) != "k1" || p.DataPosition != 7 || p.EndPosition != 900 || p.Deletion != rowindex.Deletion(5, 6) || p.Line != 4 {
		t.Errorf("header %+v", p)
	}
	b := p.Blocks[1]
	if FormatClustering(b.First) != "00000003:63" || FormatClustering(p.Blocks[0].Last) != "00000002:" || b.Offset != 400 || b.OpenDeletion != rowindex.Deletion(1, 2) {
		t.Errorf("block %+v", b)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ body, msg string }{
		{strings.Replace(sample, "int32", "float", 1), "line 1: bytecomparable: unknown clustering type"},
		{strings.Replace(sample, "# reversed: 1", "# reversed: 5", 1), "reversed column 5 but only 2 columns"},
		{strings.Replace(sample, "\t7\t", "\tx\t", 1), "line 4: bad data position"},
		{strings.Replace(sample, "5,6", "5", 1), "line 4: bad partition deletion"},
		{strings.Replace(sample, "00000003:63", "0g", 1), "line 6: bad first clustering"},
		{strings.Replace(sample, "\t400\t", "\t", 1), "line 6: block line needs 4 fields"},
		{strings.Replace(sample, "partition\t6b32", "partition\t6b32\t1", 1), "line 8: partition line needs 5 fields, has 6"},
		{strings.Replace(sample, "partition\t6b31", "\t6b31", 1), "line 4: block line outside a partition"},
		{"# types: int32\n00\t00\t1\t-\n", "line 2: block line outside a partition"},
		{"partition\t00\t1\t2\t-\n", "no '# types:' line"},
	} {
		_, err := Read(strings.NewReader(tc.body))
		var le *LineError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("got %v, want a *LineError saying %q", err, tc.msg)
		}
	}
}

// TestReadNamesTheBadField: each field of a partition line and of a block
// line, made unparsable in turn, is named in the error with the line's
// number; where two fields are bad, the first is reported.
func TestReadNamesTheBadField(t *testing.T) {
	partition := []string{"partition", "6b31", "7", "900", "5,6"}
	block := []string{"00000001", "00000002", "10", "-"}
	check := func(p, b []string, want string) {
		t.Helper()
		text := "# types: int32\n" + strings.Join(p, "\t") + "\n" + strings.Join(b, "\t") + "\n"
		_, err := Read(strings.NewReader(text))
		var le *LineError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want a *LineError starting %q", text, err, want)
		}
	}
	const bad = "x;" // neither hex, nor a number, nor a deletion
	for i, what := range []string{"key hex", "data position", "end position", "partition deletion"} {
		p := slices.Clone(partition)
		p[i+1] = bad
		check(p, block, "rows.tsv line 2: bad "+what+": ")
		if i+2 < len(p) {
			p[i+2] = bad
			check(p, block, "rows.tsv line 2: bad "+what+": ")
		}
	}
	for i, what := range []string{"first clustering", "last clustering", "offset", "open deletion"} {
		b := slices.Clone(block)
		b[i] = bad
		check(partition, b, "rows.tsv line 3: bad "+what+": ")
		if i+1 < len(b) {
			b[i+1] = bad
			check(partition, b, "rows.tsv line 3: bad "+what+": ")
		}
	}
}

func TestWriteResult(t *testing.T) {
	var b bytes.Buffer
	if err := WriteResult(&b, []ResultLine{{Key: []byte{0x6b, 0x31}, Value: -1, Root: -1, Blocks: 1}, {Key: []byte{0x70}, Value: 31, Root: 27, Blocks: 3}}); err != nil {
		t.Fatal(err)
	}
	if want := "# key_hex\tpartitions_db_value\troot\tblocks\n6b31\t-1\t-1\t1\n70\t31\t27\t3\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	// ReadResult reads it back; a bad line is a *LineError naming it.
	lines, err := ReadResult(b.Bytes())
	if err != nil || len(lines) != 2 || string(lines[0].Key) != "k1" || lines[0].Value != -1 || lines[1].Root != 27 || lines[1].Blocks != 3 {
		t.Errorf("ReadResult = %+v, %v", lines, err)
	}
	for _, tc := range []struct{ text, msg string }{
		{"# h\n6b31\t-1\t-1\t1\n70\t31\tx\t3\n", `rows.tsv line 3: RESULT: strconv.ParseInt: parsing "x": invalid syntax`},
		{"7z\t1\t2\t3\n", "rows.tsv line 1: RESULT: encoding/hex: invalid byte: U+007A 'z'"},
		{"70\t1\t2\n", "rows.tsv line 1: RESULT: 3 fields, want 4"},
		{"70\tx\ty\t3\n", `rows.tsv line 1: RESULT: strconv.ParseInt: parsing "x": invalid syntax`},
		{"70\t1\t2\t3.5\n", `rows.tsv line 1: RESULT: strconv.Atoi: parsing "3.5": invalid syntax`},
	} {
		_, err = ReadResult([]byte(tc.text))
		var le *LineError
		if !errors.As(err, &le) || err.Error() != tc.msg {
			t.Errorf("ReadResult(%q) = %v, want a *LineError %q", tc.text, err, tc.msg)
		}
	}
}

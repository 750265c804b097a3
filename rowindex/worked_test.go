package rowindex_test

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/rowindex"
)

// TestWorkedExample builds the worked example of the package doc and
// checks its bytes (they are also the first 50 bytes of the golden case
// multi-partition's Rows.db).
func TestWorkedExample(t *testing.T) {
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}}
	v := func(h string) [][]byte { b, _ := hex.DecodeString(h); return [][]byte{b} }
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: cols})
	for _, b := range []rowindex.Block{
		{First: v("0000001a"), Last: v("00000030"), Offset: 16},
		{First: v("00000051"), Last: v("000000a3"), Offset: 19813},
		{First: v("000000fe"), Last: v("0000012c"), Offset: 40139},
	} {
		if err := w.Add(&b); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.FinishPartition([]byte{0x70, 0}, 0, 58196, rowindex.Deletion(1000, 2000))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want, _ := hex.DecodeString(strings.Join([]string{
		"024d65", "03009ccb", "500231a40704", "0300e354", "500200020a04", "1600", "1280", "21400210",
		"00027000", "000f03", "00000000000003e8000007d0",
	}, ""))
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("got  % x\nwant % x", out.Bytes(), want)
	}
	if res.Value != 0x1f || res.Root != 0x1b || res.Blocks != 3 {
		t.Errorf("result %+v, want value 31 root 27 blocks 3", res)
	}
}

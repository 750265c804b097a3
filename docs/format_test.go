// Package docs holds the project's format document, format.md; this test
// checks every example in it that is marked <!-- check:KIND ... --> against
// the code, through the public API only.
package docs

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
	"github.com/bti-go/bti/trie"
)

// check is one marked example: its kind, its parameters, and the lines of
// the table or fenced block that follows the marker.
type check struct {
	line   int // 1-based line of the marker
	kind   string
	params map[string]string
	fields []string // the parameters in order, for kinds that repeat one
	body   []string
}

var markerRE = regexp.MustCompile(`^<!-- check:(\w+)(.*?) -->$`)

// parseChecks finds every marker and the table (lines starting with "|") or
// fenced block (``` … ```) right after it.
func parseChecks(t *testing.T, doc string) []check {
	lines := strings.Split(doc, "\n")
	var out []check
	for i := 0; i < len(lines); i++ {
		m := markerRE.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			if strings.Contains(lines[i], "check:") && strings.HasPrefix(strings.TrimSpace(lines[i]), "<!--") {
				t.Errorf("format.md:%d: malformed check marker %q", i+1, lines[i])
			}
			continue
		}
		c := check{line: i + 1, kind: m[1], params: map[string]string{}}
		c.fields = strings.Fields(m[2])
		for _, f := range c.fields {
			k, v, _ := strings.Cut(f, "=")
			c.params[k] = v
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		switch {
		case j < len(lines) && strings.HasPrefix(lines[j], "```"):
			for j++; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
				c.body = append(c.body, lines[j])
			}
		case j < len(lines) && strings.HasPrefix(lines[j], "|"):
			for ; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
				c.body = append(c.body, lines[j])
			}
		}
		if len(c.body) == 0 {
			t.Errorf("format.md:%d: check marker without a table or block after it", c.line)
		}
		out = append(out, c)
		i = j - 1
	}
	return out
}

// rows returns a table's data rows as trimmed cells (header and separator
// dropped).
func rows(t *testing.T, c check, cols int) [][]string {
	if len(c.body) < 3 {
		t.Fatalf("format.md:%d: table without rows", c.line)
	}
	var out [][]string
	for k, l := range c.body[2:] {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) != cols {
			t.Fatalf("format.md:%d: row %d has %d cells, want %d", c.line, k+1, len(cells), cols)
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		out = append(out, cells)
	}
	return out
}

// hexCell parses "`61 62`" or "(empty)".
func hexCell(t *testing.T, c check, s string) []byte {
	s = strings.Trim(s, "`")
	if s == "(empty)" {
		return []byte{}
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("format.md:%d: bad hex %q: %v", c.line, s, err)
	}
	return b
}

func TestFormatDocExamples(t *testing.T) {
	doc, err := os.ReadFile("format.md")
	if err != nil {
		t.Fatal(err)
	}
	checks := parseChecks(t, string(doc))
	counts := map[string]int{}
	var table *tableFile // the last rowsfile, which a rowsvalues table describes
	for _, c := range checks {
		counts[c.kind]++
		t.Run(fmt.Sprintf("%s@%d", c.kind, c.line), func(t *testing.T) {
			switch c.kind {
			case "escaping":
				checkEscaping(t, c)
			case "encodings":
				checkEncodings(t, c)
			case "bounds":
				checkBounds(t, c)
			case "hashes":
				checkHashes(t, c)
			case "nodetypes":
				checkNodeTypes(t, c)
			case "file":
				checkFile(t, c)
			case "clusterings":
				checkClusterings(t, c)
			case "rowsfile":
				table = checkRowsFile(t, c)
			case "rowsvalues":
				checkRowsValues(t, c, table)
			case "rowsfloor":
				checkRowsFloor(t, c, table)
			default:
				t.Fatalf("format.md:%d: unknown check kind %q", c.line, c.kind)
			}
		})
	}
	// The document keeps its examples: a marker lost in an edit fails here.
	for kind, min := range map[string]int{"escaping": 1, "encodings": 1, "bounds": 1, "hashes": 1, "nodetypes": 1, "file": 6, "clusterings": 1, "rowsfile": 1, "rowsvalues": 1, "rowsfloor": 1} {
		if counts[kind] < min {
			t.Errorf("format.md has %d %q checks, want at least %d", counts[kind], kind, min)
		}
	}
	t.Logf("checked %d examples in format.md", len(checks))
}

// An escaped value E is what ByteOrdered puts twice in a key: 40 E 40 E 38.
func checkEscaping(t *testing.T, c check) {
	for _, r := range rows(t, c, 2) {
		in, esc := hexCell(t, c, r[0]), hexCell(t, c, r[1])
		want := slices.Concat([]byte{0x40}, esc, []byte{0x40}, esc, []byte{0x38})
		got := partitioner.ByteOrdered.Decorate(in).AppendComparable(nil)
		if !bytes.Equal(got, want) {
			t.Errorf("escaping of % x: ByteOrdered encodes % x, the table implies % x", in, got, want)
		}
	}
}

func checkEncodings(t *testing.T, c check) {
	for _, r := range rows(t, c, 4) {
		name, byHand := strings.CutSuffix(r[0], "*")
		p, err := partitioner.Parse(name)
		if err != nil {
			t.Fatalf("format.md:%d: %v", c.line, err)
		}
		k := p.Decorate(hexCell(t, c, r[1]))
		if byHand { // the token column is set, not computed
			tok, err := strconv.ParseInt(r[2], 10, 64)
			if err != nil {
				t.Fatalf("format.md:%d: token %q: %v", c.line, r[2], err)
			}
			k = partitioner.Key{Partitioner: p, Token: tok, Raw: hexCell(t, c, r[1])}
		}
		if r[2] != "" {
			tok, err := strconv.ParseInt(r[2], 10, 64)
			if err != nil {
				t.Fatalf("format.md:%d: token %q: %v", c.line, r[2], err)
			}
			if k.Token != tok {
				t.Errorf("%s key %s: token %d, the table says %d", r[0], r[1], k.Token, tok)
			}
		}
		if got, want := k.AppendComparable(nil), hexCell(t, c, r[3]); !bytes.Equal(got, want) {
			t.Errorf("%s key %s: encodes as % x, the table says % x", r[0], r[1], got, want)
		}
	}
}

func checkBounds(t *testing.T, c check) {
	for _, r := range rows(t, c, 3) {
		tok, err := strconv.ParseInt(r[0], 10, 64)
		if err != nil {
			t.Fatalf("format.md:%d: token %q: %v", c.line, r[0], err)
		}
		k := partitioner.Key{Partitioner: partitioner.Murmur3, Token: tok}
		for i, max := range []bool{false, true} {
			if got, want := k.AppendBound(nil, max), hexCell(t, c, r[1+i]); !bytes.Equal(got, want) {
				t.Errorf("token %d bound (max %v): % x, the table says % x", tok, max, got, want)
			}
		}
	}
}

func checkHashes(t *testing.T, c check) {
	for _, r := range rows(t, c, 5) {
		key := hexCell(t, c, r[0])
		h1, h2 := partitioner.Hash3x64_128(key, 0)
		if got := strconv.FormatInt(int64(h1), 10); got != r[1] {
			t.Errorf("key % x: h1 %s, the table says %s", key, got, r[1])
		}
		if got := fmt.Sprintf("`%016x`", h2); got != r[2] {
			t.Errorf("key % x: h2 %s, the table says %s", key, got, r[2])
		}
		for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
			if got := fmt.Sprintf("`%02x`", p.Decorate(key).HashByte()); got != r[3] {
				t.Errorf("key % x, %v: hash byte %s, the table says %s", key, p, got, r[3])
			}
		}
		if got := strconv.FormatInt(partitioner.Murmur3.Decorate(key).Token, 10); got != r[4] {
			t.Errorf("key % x: token %s, the table says %s", key, got, r[4])
		}
	}
}

func checkNodeTypes(t *testing.T, c check) {
	seen := map[int]bool{}
	for _, r := range rows(t, c, 5) {
		code, err := strconv.Atoi(r[0])
		if err != nil || code < 0 || code > 15 {
			t.Fatalf("format.md:%d: code %q", c.line, r[0])
		}
		seen[code] = true
		if got := trie.TypeName(uint8(code)); got != r[1] {
			t.Errorf("type %d is %s, the table says %s", code, got, r[1])
		}
	}
	if len(seen) != 16 {
		t.Errorf("the table lists %d of the 16 types", len(seen))
	}
}

var (
	itemRE   = regexp.MustCompile(`^([0-9a-f]{6})-([0-9a-f]{6})  (.*)$`)
	hexRunRE = regexp.MustCompile(`^[0-9a-f]{2}( [0-9a-f]{2})*`)
)

// checkFile builds the marker's keys and requires the listed bytes at the
// listed offsets, item after item, to the end of the file.
func checkFile(t *testing.T, c check) {
	p, err := partitioner.Parse(c.params["partitioner"])
	if err != nil {
		t.Fatalf("format.md:%d: %v", c.line, err)
	}
	page := 0
	if s, ok := c.params["page"]; ok {
		if page, err = strconv.Atoi(s); err != nil {
			t.Fatalf("format.md:%d: page %q", c.line, s)
		}
	}
	var file bytes.Buffer
	b := partitionindex.NewBuilder(&file, partitionindex.Options{Partitioner: p, PageSize: page})
	if s := c.params["keys"]; s != "" {
		for _, kv := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(kv, ":")
			pos, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil {
				t.Fatalf("format.md:%d: key %q: want key:position", c.line, kv)
			}
			raw := []byte(k)
			if c.params["hexkeys"] == "1" {
				if raw, err = hex.DecodeString(k); err != nil {
					t.Fatalf("format.md:%d: key %q: %v", c.line, k, err)
				}
			}
			dk := p.Decorate(raw)
			if err := b.Add(&dk, pos); err != nil {
				t.Fatalf("format.md:%d: %v", c.line, err)
			}
		}
	}
	if _, err := b.Complete(); err != nil {
		t.Fatal(err)
	}
	checkListing(t, c, file.Bytes())
}

// checkListing requires the listed bytes at the listed offsets of data,
// item after item, to its end. A comment whose first word is a node type
// name must describe an item starting with that type's header.
func checkListing(t *testing.T, c check, data []byte) {
	names := map[string]bool{}
	for h := range 16 {
		names[trie.TypeName(uint8(h))] = true
	}
	next := 0
	for k, l := range c.body {
		where := fmt.Sprintf("format.md:%d", c.line+2+k)
		m := itemRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("%s: not an item line: %q", where, l)
		}
		from, _ := strconv.ParseInt(m[1], 16, 64)
		to, _ := strconv.ParseInt(m[2], 16, 64)
		if int(from) != next || to < from {
			t.Fatalf("%s: item %s-%s, want one starting at %06x", where, m[1], m[2], next)
		}
		if int(to) >= len(data) {
			t.Fatalf("%s: item ends at %06x, the file has %d bytes", where, to, len(data))
		}
		got := data[from : to+1]
		next = int(to) + 1
		rest := m[3]
		if strings.HasPrefix(rest, "(padding)") {
			if !bytes.Equal(got, make([]byte, len(got))) {
				t.Errorf("%s: padding expected, file has % x", where, got)
			}
			continue
		}
		run := hexRunRE.FindString(rest)
		want, _ := hex.DecodeString(strings.ReplaceAll(run, " ", ""))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: file has % x, the document says % x", where, got, want)
		}
		comment := strings.Fields(strings.TrimSpace(rest[len(run):]))
		if len(comment) > 0 {
			word := strings.TrimRight(comment[0], ",:")
			if names[word] && trie.TypeName(got[0]>>4) != word {
				t.Errorf("%s: the header %02x is %s, the document says %s", where, got[0], trie.TypeName(got[0]>>4), word)
			}
		}
	}
	if next != len(data) {
		t.Errorf("format.md:%d: the listing covers %d of the file's %d bytes", c.line, next, len(data))
	}
}

// kindNames are the prefix kinds as the clusterings table writes them.
var kindNames = map[string]bytecomparable.PrefixKind{
	"clustering":      bytecomparable.Clustering,
	"inclusive start": bytecomparable.InclusiveStart,
	"exclusive end":   bytecomparable.ExclusiveEnd,
	"exclusive start": bytecomparable.ExclusiveStart,
	"inclusive end":   bytecomparable.InclusiveEnd,
}

// parseColumns parses "int, text desc".
func parseColumns(t *testing.T, c check, s string) []bytecomparable.Column {
	var cols []bytecomparable.Column
	for _, f := range strings.Split(s, ",") {
		name, desc := strings.CutSuffix(strings.TrimSpace(f), " desc")
		typ, err := bytecomparable.ParseCQLType(name)
		if err != nil {
			t.Fatalf("format.md:%d: %v", c.line, err)
		}
		cols = append(cols, bytecomparable.Column{Type: typ, Desc: desc})
	}
	return cols
}

// checkClusterings: | columns | values | kind | encoding |, the values
// serialized, comma-separated, "—" for none.
func checkClusterings(t *testing.T, c check) {
	for _, r := range rows(t, c, 4) {
		cols := parseColumns(t, c, r[0])
		var values [][]byte
		if r[1] != "—" {
			for _, v := range strings.Split(r[1], ",") {
				values = append(values, hexCell(t, c, strings.TrimSpace(v)))
			}
		}
		kind, ok := kindNames[r[2]]
		if !ok {
			t.Fatalf("format.md:%d: prefix kind %q", c.line, r[2])
		}
		got, err := bytecomparable.AppendClustering(nil, cols, values, kind)
		if err != nil {
			t.Errorf("%s %s %s: %v", r[0], r[1], r[2], err)
			continue
		}
		if want := hexCell(t, c, r[3]); !bytes.Equal(got, want) {
			t.Errorf("%s %s %s: encodes as % x, the table says % x", r[0], r[1], r[2], got, want)
		}
	}
}

// tableFile is what a rowsfile check wrote: both index files and what each
// partition's FinishPartition returned.
type tableFile struct {
	partitions []byte
	rows       []byte
	cols       []bytecomparable.Column
	keys       [][]byte
	results    []rowindex.Result
}

// parseDeletion parses "-" (LIVE) or "markedForDeleteAt/localDeletionTime".
func parseDeletion(t *testing.T, c check, s string) rowindex.DeletionTime {
	if s == "-" {
		return rowindex.Live
	}
	a, b, _ := strings.Cut(s, "/")
	mfda, err1 := strconv.ParseInt(a, 10, 64)
	ldt, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil {
		t.Fatalf("format.md:%d: deletion %q: want - or mfda/ldt", c.line, s)
	}
	return rowindex.Deletion(mfda, uint32(ldt))
}

// checkRowsFile writes the marker's partitions through tableindex.Writer
// (ByteOrdered, the columns of cols=) and checks the Rows.db listing. Each
// part=KEY:DATAPOS:ENDPOS:DELETION:BLOCKS is a partition, in order: KEY in
// hex, DELETION "-" or mfda/ldt, BLOCKS comma-separated FIRST-LAST@OFFSET
// with an optional +mfda/ldt open deletion, FIRST and LAST the hex values
// of a one-column clustering.
func checkRowsFile(t *testing.T, c check) *tableFile {
	cols := parseColumns(t, c, strings.ReplaceAll(c.params["cols"], "_", " "))
	if len(cols) != 1 {
		t.Fatalf("format.md:%d: rowsfile takes one clustering column", c.line)
	}
	var parts, rowsDB bytes.Buffer
	w := tableindex.NewWriter(&parts, &rowsDB, tableindex.Options{Partitioner: partitioner.ByteOrdered, Columns: cols})
	tf := &tableFile{}
	bad := func(s string) { t.Fatalf("format.md:%d: part %q: want KEY:DATAPOS:ENDPOS:DELETION:BLOCKS", c.line, s) }
	for _, f := range c.fields {
		spec, ok := strings.CutPrefix(f, "part=")
		if !ok {
			continue
		}
		fs := strings.Split(spec, ":")
		if len(fs) != 5 {
			bad(spec)
		}
		key, err := hex.DecodeString(fs[0])
		dataPos, err2 := strconv.ParseInt(fs[1], 10, 64)
		endPos, err3 := strconv.ParseInt(fs[2], 10, 64)
		if err != nil || err2 != nil || err3 != nil {
			bad(spec)
		}
		if err := w.StartPartition(key, dataPos, parseDeletion(t, c, fs[3])); err != nil {
			t.Fatal(err)
		}
		for _, bs := range strings.Split(fs[4], ",") {
			rng, rest, _ := strings.Cut(bs, "@")
			offs, del, hasDel := strings.Cut(rest, "+")
			first, last, _ := strings.Cut(rng, "-")
			fv, err1 := hex.DecodeString(first)
			lv, err2 := hex.DecodeString(last)
			off, err3 := strconv.ParseInt(offs, 10, 64)
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatalf("format.md:%d: block %q: want FIRST-LAST@OFFSET[+mfda/ldt]", c.line, bs)
			}
			b := rowindex.Block{First: [][]byte{fv}, Last: [][]byte{lv}, Offset: off}
			if hasDel {
				b.OpenDeletion = parseDeletion(t, c, del)
			}
			if err := w.AddBlock(b); err != nil {
				t.Fatalf("format.md:%d: %v", c.line, err)
			}
		}
		res, err := w.FinishPartition(endPos)
		if err != nil {
			t.Fatalf("format.md:%d: %v", c.line, err)
		}
		tf.keys = append(tf.keys, key)
		tf.results = append(tf.results, res)
	}
	if _, err := w.Complete(); err != nil {
		t.Fatal(err)
	}
	tf.partitions, tf.rows, tf.cols = parts.Bytes(), rowsDB.Bytes(), cols
	checkListing(t, c, rowsDB.Bytes())
	return tf
}

// checkRowsValues: | key | blocks | Partitions.db value | root |, one row
// per partition of the rowsfile before it, in order; the value is checked
// both as FinishPartition returned it and as Partitions.db answers for the
// key, the root ("—" for none) as FinishPartition returned it.
func checkRowsValues(t *testing.T, c check, tf *tableFile) {
	if tf == nil {
		t.Fatalf("format.md:%d: rowsvalues without a rowsfile before it", c.line)
	}
	rs := rows(t, c, 4)
	if len(rs) != len(tf.keys) {
		t.Fatalf("format.md:%d: %d rows for the %d partitions of the rowsfile", c.line, len(rs), len(tf.keys))
	}
	ix, err := partitionindex.NewIndex(tf.partitions, partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ix.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, row := range rs {
		res := tf.results[i]
		if key := hexCell(t, c, row[0]); !bytes.Equal(key, tf.keys[i]) {
			t.Errorf("row %d: key % x, the rowsfile's partition %d has % x", i+1, key, i+1, tf.keys[i])
		}
		if got := strconv.Itoa(res.Blocks); got != row[1] {
			t.Errorf("key % x: %s blocks, the table says %s", tf.keys[i], got, row[1])
		}
		want, err := strconv.ParseInt(strings.Fields(row[2])[0], 0, 64)
		if err != nil {
			t.Fatalf("format.md:%d: value %q", c.line, row[2])
		}
		if res.Value != want {
			t.Errorf("key % x: FinishPartition stored %d, the table says %d", tf.keys[i], res.Value, want)
		}
		dk := partitioner.ByteOrdered.Decorate(tf.keys[i])
		if pos, ok, err := r.Get(&dk); err != nil || !ok || pos != want {
			t.Errorf("key % x: Partitions.db gives %d (ok %v, %v), the table says %d", tf.keys[i], pos, ok, err, want)
		}
		root := "—"
		if res.Root >= 0 {
			root = fmt.Sprintf("0x%x", res.Root)
		}
		if root != row[3] {
			t.Errorf("key % x: root %s, the table says %s", tf.keys[i], root, row[3])
		}
	}
}

// checkRowsFloor: | key | clustering | block |, lookups in the rowsfile
// before it: the clustering is the hex value of its one column, the block
// the floor's offset, "end" for the end entry, and ", open d" when the block
// carries open deletion d (mfda/ldt).
func checkRowsFloor(t *testing.T, c check, tf *tableFile) {
	if tf == nil {
		t.Fatalf("format.md:%d: rowsfloor without a rowsfile before it", c.line)
	}
	for _, row := range rows(t, c, 3) {
		key := hexCell(t, c, row[0])
		i := slices.IndexFunc(tf.keys, func(k []byte) bool { return bytes.Equal(k, key) })
		if i < 0 || tf.results[i].Value < 0 {
			t.Fatalf("format.md:%d: key % x is not an indexed partition of the rowsfile", c.line, key)
		}
		p, err := rowindex.OpenPartition(tf.rows, tf.results[i].Value, tf.cols)
		if err != nil {
			t.Fatal(err)
		}
		info, ok, err := p.NewReader().Floor([][]byte{hexCell(t, c, row[1])}, bytecomparable.Clustering)
		if err != nil || !ok {
			t.Fatalf("key % x, clustering %s: no floor (%v)", key, row[1], err)
		}
		got := strconv.FormatInt(info.Offset, 10)
		if info.End {
			got = "end " + got
		}
		if info.OpenDeletion.Deleted {
			got += ", open " + strings.ReplaceAll(info.OpenDeletion.String(), ",", "/")
		}
		if got != row[2] {
			t.Errorf("key % x, clustering %s: floor %q, the table says %q", key, row[1], got, row[2])
		}
	}
}

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

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// check is one marked example: its kind, its parameters, and the lines of
// the table or fenced block that follows the marker.
type check struct {
	line   int // 1-based line of the marker
	kind   string
	params map[string]string
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
		for _, f := range strings.Fields(m[2]) {
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
			default:
				t.Fatalf("format.md:%d: unknown check kind %q", c.line, c.kind)
			}
		})
	}
	// The document keeps its examples: a marker lost in an edit fails here.
	for kind, min := range map[string]int{"escaping": 1, "encodings": 1, "bounds": 1, "hashes": 1, "nodetypes": 1, "file": 6} {
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
		if got := trie.NodeTypeName(byte(code << 4)); got != r[1] {
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
			if err := b.Add(raw, pos); err != nil {
				t.Fatalf("format.md:%d: %v", c.line, err)
			}
		}
	}
	if _, err := b.Complete(); err != nil {
		t.Fatal(err)
	}
	data := file.Bytes()

	names := map[string]bool{}
	for h := range 16 {
		names[trie.NodeTypeName(byte(h<<4))] = true
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
			if names[word] && trie.NodeTypeName(got[0]) != word {
				t.Errorf("%s: the header %02x is %s, the document says %s", where, got[0], trie.NodeTypeName(got[0]), word)
			}
		}
	}
	if next != len(data) {
		t.Errorf("format.md:%d: the listing covers %d of the file's %d bytes", c.line, next, len(data))
	}
}

// Package rowstsv reads the rows.tsv format of the golden row-index cases
// (../shared/tools/genrows.py documents it): '# types:' and '# reversed:'
// comment lines, then partitions separated by blank lines, each a header
//
//	partition <TAB> KEY_HEX <TAB> DATA_POS <TAB> END_POS <TAB> DELETION
//
// and one line per index block
//
//	FIRST <TAB> LAST <TAB> OFFSET <TAB> OPEN_DELETION
//
// where a clustering is its components' serialized values in hex joined by
// ':' (an empty field: no components) and a deletion is '-' or
// markedForDeleteAt,localDeletionTime.
package rowstsv

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/rowindex"
)

// File is a parsed rows.tsv.
type File struct {
	Columns    []bytecomparable.Column
	Partitions []Partition
}

// Partition is one partition of a rows.tsv.
type Partition struct {
	Key          []byte
	DataPosition int64
	EndPosition  int64
	Deletion     rowindex.DeletionTime
	Blocks       []rowindex.Block
	Line         int // the header's line number
}

// LineError reports a line that does not parse.
type LineError struct {
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("rows.tsv line %d: %s", e.Line, e.Reason) }

// ReadFile parses the file at path.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read parses a rows.tsv. Types are names bytecomparable.ParseCQLType
// accepts; genrows.py's int32, bigint, utf8 and uuid among them.
func Read(r io.Reader) (*File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	out := &File{}
	var typesSeen bool
	var reversed []int
	var cur *Partition
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "# types:"):
			names := strings.TrimSpace(strings.TrimPrefix(text, "# types:"))
			out.Columns = out.Columns[:0]
			if names != "" {
				for _, n := range strings.Split(names, ",") {
					t, err := bytecomparable.ParseCQLType(strings.TrimSpace(n))
					if err != nil {
						return nil, &LineError{line, err.Error()}
					}
					out.Columns = append(out.Columns, bytecomparable.Column{Type: t})
				}
			}
			typesSeen = true
			continue
		case strings.HasPrefix(text, "# reversed:"):
			v := strings.TrimSpace(strings.TrimPrefix(text, "# reversed:"))
			if v != "-" && v != "" {
				for _, s := range strings.Split(v, ",") {
					i, err := strconv.Atoi(strings.TrimSpace(s))
					if err != nil || i < 0 {
						return nil, &LineError{line, "bad reversed column index " + strconv.Quote(s)}
					}
					reversed = append(reversed, i)
				}
			}
			continue
		case strings.HasPrefix(text, "#"):
			continue
		case strings.TrimSpace(text) == "":
			cur = nil
			continue
		}
		f := lineFields{fields: strings.Split(text, "\t")}
		if f.fields[0] == "partition" {
			if len(f.fields) != 5 {
				return nil, &LineError{line, "partition line needs 5 fields, has " + strconv.Itoa(len(f.fields))}
			}
			out.Partitions = append(out.Partitions, Partition{
				Line:         line,
				Key:          parseField(&f, 1, "key hex", hex.DecodeString),
				DataPosition: parseField(&f, 2, "data position", parseInt64),
				EndPosition:  parseField(&f, 3, "end position", parseInt64),
				Deletion:     parseField(&f, 4, "partition deletion", ParseDeletion),
			})
			cur = &out.Partitions[len(out.Partitions)-1]
		} else {
			if cur == nil {
				return nil, &LineError{line, "block line outside a partition"}
			}
			if len(f.fields) != 4 {
				return nil, &LineError{line, "block line needs 4 fields, has " + strconv.Itoa(len(f.fields))}
			}
			cur.Blocks = append(cur.Blocks, rowindex.Block{
				First:        parseField(&f, 0, "first clustering", ParseClustering),
				Last:         parseField(&f, 1, "last clustering", ParseClustering),
				Offset:       parseField(&f, 2, "offset", parseInt64),
				OpenDeletion: parseField(&f, 3, "open deletion", ParseDeletion),
			})
		}
		if f.err != nil {
			return nil, &LineError{line, "bad " + f.failed + ": " + f.err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !typesSeen {
		return nil, &LineError{line, "no '# types:' line"}
	}
	for _, i := range reversed {
		if i >= len(out.Columns) {
			return nil, &LineError{0, "reversed column " + strconv.Itoa(i) + " but only " + strconv.Itoa(len(out.Columns)) + " columns"}
		}
		out.Columns[i].Desc = true
	}
	return out, nil
}

// lineFields are the tab-separated fields of one line, parsed one by one
// with parseField. The first failure sticks (as bufio.Scanner's error
// does): later fields are not parsed, and the caller checks err once per
// line instead of after every field.
type lineFields struct {
	fields []string
	failed string // what the field that did not parse holds
	err    error
}

// parseField parses field i of f with parse, unless an earlier field
// failed; what names the field in the error.
func parseField[T any](f *lineFields, i int, what string, parse func(string) (T, error)) T {
	var v T
	if f.err == nil {
		if v, f.err = parse(f.fields[i]); f.err != nil {
			f.failed = what
		}
	}
	return v
}

func parseInt64(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }

// ParseClustering parses hex components joined by ':'; "" is no component.
func ParseClustering(s string) ([][]byte, error) {
	if s == "" {
		return [][]byte{}, nil
	}
	parts := strings.Split(s, ":")
	out := make([][]byte, len(parts))
	for i, p := range parts {
		v, err := hex.DecodeString(p)
		if err != nil {
			return nil, fmt.Errorf("component %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// FormatClustering is ParseClustering's inverse.
func FormatClustering(vs [][]byte) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = hex.EncodeToString(v)
	}
	return strings.Join(parts, ":")
}

// ParseDeletion parses '-' (LIVE) or markedForDeleteAt,localDeletionTime.
func ParseDeletion(s string) (rowindex.DeletionTime, error) {
	if s == "-" {
		return rowindex.Live, nil
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return rowindex.Live, fmt.Errorf("want '-' or markedForDeleteAt,localDeletionTime, got %q", s)
	}
	mfda, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return rowindex.Live, err
	}
	ldt, err := strconv.ParseUint(b, 10, 32)
	if err != nil {
		return rowindex.Live, err
	}
	return rowindex.Deletion(mfda, uint32(ldt)), nil
}

// ResultLine is one partition's line of a RESULT file.
type ResultLine struct {
	Key    []byte
	Value  int64 // the Partitions.db value: Rows.db position or ^dataPosition
	Root   int64 // -1 when not indexed
	Blocks int
}

// WriteResult writes lines in the golden RESULT format: a header, then
// key hex, value, root and block count, tab-separated.
func WriteResult(w io.Writer, lines []ResultLine) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# key_hex\tpartitions_db_value\troot\tblocks\n")
	for _, l := range lines {
		fmt.Fprintf(bw, "%x\t%d\t%d\t%d\n", l.Key, l.Value, l.Root, l.Blocks)
	}
	return bw.Flush()
}

// ReadResult parses a RESULT file (WriteResult's format; comment lines
// are skipped). A line that does not parse is a *LineError.
func ReadResult(text []byte) ([]ResultLine, error) {
	var out []ResultLine
	for i, line := range strings.Split(string(text), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := lineFields{fields: strings.Split(line, "\t")}
		var l ResultLine
		if len(f.fields) != 4 {
			f.err = fmt.Errorf("%d fields, want 4", len(f.fields))
		}
		l.Key = parseField(&f, 0, "key", hex.DecodeString)
		l.Value = parseField(&f, 1, "value", parseInt64)
		l.Root = parseField(&f, 2, "root", parseInt64)
		l.Blocks = parseField(&f, 3, "blocks", strconv.Atoi)
		if err := f.err; err != nil {
			return nil, &LineError{Line: i + 1, Reason: "RESULT: " + err.Error()}
		}
		out = append(out, l)
	}
	return out, nil
}

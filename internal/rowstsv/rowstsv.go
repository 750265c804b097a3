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
		fields := strings.Split(text, "\t")
		if fields[0] == "partition" {
			if len(fields) != 5 {
				return nil, &LineError{line, "partition line needs 5 fields, has " + strconv.Itoa(len(fields))}
			}
			p := Partition{Line: line}
			var err error
			if p.Key, err = hex.DecodeString(fields[1]); err != nil {
				return nil, &LineError{line, "bad key hex: " + err.Error()}
			}
			if p.DataPosition, err = strconv.ParseInt(fields[2], 10, 64); err != nil {
				return nil, &LineError{line, "bad data position: " + err.Error()}
			}
			if p.EndPosition, err = strconv.ParseInt(fields[3], 10, 64); err != nil {
				return nil, &LineError{line, "bad end position: " + err.Error()}
			}
			if p.Deletion, err = ParseDeletion(fields[4]); err != nil {
				return nil, &LineError{line, "bad partition deletion: " + err.Error()}
			}
			out.Partitions = append(out.Partitions, p)
			cur = &out.Partitions[len(out.Partitions)-1]
			continue
		}
		if cur == nil {
			return nil, &LineError{line, "block line outside a partition"}
		}
		if len(fields) != 4 {
			return nil, &LineError{line, "block line needs 4 fields, has " + strconv.Itoa(len(fields))}
		}
		var b rowindex.Block
		var err error
		if b.First, err = ParseClustering(fields[0]); err != nil {
			return nil, &LineError{line, "bad first clustering: " + err.Error()}
		}
		if b.Last, err = ParseClustering(fields[1]); err != nil {
			return nil, &LineError{line, "bad last clustering: " + err.Error()}
		}
		if b.Offset, err = strconv.ParseInt(fields[2], 10, 64); err != nil {
			return nil, &LineError{line, "bad offset: " + err.Error()}
		}
		if b.OpenDeletion, err = ParseDeletion(fields[3]); err != nil {
			return nil, &LineError{line, "bad open deletion: " + err.Error()}
		}
		cur.Blocks = append(cur.Blocks, b)
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
		f := strings.Split(line, "\t")
		var l ResultLine
		var err error
		if len(f) != 4 {
			err = fmt.Errorf("%d fields, want 4", len(f))
		}
		if err == nil {
			l.Key, err = hex.DecodeString(f[0])
		}
		if err == nil {
			l.Value, err = strconv.ParseInt(f[1], 10, 64)
		}
		if err == nil {
			l.Root, err = strconv.ParseInt(f[2], 10, 64)
		}
		if err == nil {
			l.Blocks, err = strconv.Atoi(f[3])
		}
		if err != nil {
			return nil, &LineError{Line: i + 1, Reason: "RESULT: " + err.Error()}
		}
		out = append(out, l)
	}
	return out, nil
}

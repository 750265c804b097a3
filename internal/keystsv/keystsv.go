// Package keystsv reads and writes keys.tsv, the plain-text list of
// partitions that the bti tools and tests build indexes from:
//
//	<lowercase hex of the raw partition key>\t<signed decimal position>\n
//
// one partition per line, in the partitioner's decorated-key order. A
// position >= 0 is a Rows.db offset, a negative one ^dataPosition. Files
// whose name ends in .bz2 are decompressed on the fly.
package keystsv

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ErrSyntax is matched (errors.Is) by every *LineError.
var ErrSyntax = errors.New("keystsv: malformed line")

// LineError reports a line that is not "<hex>\t<int64>".
type LineError struct {
	Line   int // 1-based
	Reason string
}

func (e *LineError) Error() string {
	return fmt.Sprintf("keystsv: line %d: %s", e.Line, e.Reason)
}

func (e *LineError) Is(target error) bool { return target == ErrSyntax }

// Reader reads entries one at a time, reusing its key buffer.
type Reader struct {
	s    *bufio.Scanner
	line int
	key  []byte
	pos  int64
	err  error
}

// NewReader reads keys.tsv text from r.
func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(r)
	// A raw key holds at most 65535 bytes (131070 hex digits), but a bad
	// file may have longer lines: allow them so the error can say so.
	s.Buffer(make([]byte, 0, 64<<10), 1<<24)
	return &Reader{s: s}
}

// Next reads the next entry. It returns false at the end or on error.
func (r *Reader) Next() bool {
	if r.err != nil || !r.s.Scan() {
		if r.err == nil {
			if err := r.s.Err(); err != nil {
				r.err = fmt.Errorf("keystsv: after line %d: %w", r.line, err)
			}
		}
		return false
	}
	r.line++
	text := r.s.Bytes()
	tab := bytes.IndexByte(text, '\t')
	if tab < 0 {
		r.err = &LineError{Line: r.line, Reason: "no tab between key and position"}
		return false
	}
	hexKey, posText := text[:tab], bytes.TrimSuffix(text[tab+1:], []byte("\r"))
	if len(hexKey)%2 != 0 {
		r.err = &LineError{Line: r.line, Reason: fmt.Sprintf("key has an odd number (%d) of hex digits", len(hexKey))}
		return false
	}
	n := len(hexKey) / 2
	r.key = slices.Grow(r.key[:0], n)[:n]
	if _, err := hex.Decode(r.key, hexKey); err != nil {
		r.err = &LineError{Line: r.line, Reason: fmt.Sprintf("key is not hex: %v", err)}
		return false
	}
	pos, ok := parseInt64(posText)
	if !ok {
		// strconv decides, and its verdict names the text; only this path
		// converts the bytes to a string (an allocation per line otherwise).
		p, err := strconv.ParseInt(string(posText), 10, 64)
		if err != nil {
			r.err = &LineError{Line: r.line, Reason: fmt.Sprintf("position %q is not a signed 64-bit integer", posText)}
			return false
		}
		pos = p
	}
	r.pos = pos
	return true
}

// parseInt64 parses the decimal text strconv.ParseInt(s, 10, 64) accepts
// in its common form (an optional sign, then digits) without converting
// it to a string. ok is false for anything else, including overflow, and
// the caller then asks strconv.
func parseInt64(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 || len(b) > 18 { // 18 digits cannot overflow
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// Key returns the current raw key; it is valid until the next call to Next.
func (r *Reader) Key() []byte { return r.key }

// Pos returns the current position.
func (r *Reader) Pos() int64 { return r.pos }

// Line returns the 1-based line number of the current entry.
func (r *Reader) Line() int { return r.line }

// Err returns the error that stopped Next, if any.
func (r *Reader) Err() error { return r.err }

// Entry is one line of a keys.tsv file.
type Entry struct {
	Key []byte
	Pos int64
}

// ReadAll reads every entry of r.
func ReadAll(r io.Reader) ([]Entry, error) {
	var out []Entry
	kr := NewReader(r)
	for kr.Next() {
		out = append(out, Entry{Key: bytes.Clone(kr.Key()), Pos: kr.Pos()})
	}
	return out, kr.Err()
}

// Open opens a keys.tsv file for reading, decompressing it on the fly if
// its name ends in .bz2.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".bz2") {
		return bz2File{bzip2.NewReader(f), f}, nil
	}
	return f, nil
}

// bz2File reads decompressed bytes and closes the underlying file.
type bz2File struct {
	io.Reader
	io.Closer
}

// ReadFile reads a keys.tsv file, decompressing it if its name ends in .bz2.
func ReadFile(path string) ([]Entry, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	entries, err := ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return entries, nil
}

// AppendLine appends one keys.tsv line for key and pos.
func AppendLine(dst, key []byte, pos int64) []byte {
	dst = hex.AppendEncode(dst, key)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, pos, 10)
	return append(dst, '\n')
}

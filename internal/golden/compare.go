package golden

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// EnvRequire names the variable under which a missing golden folder fails
// the test instead of skipping it. CI sets it (.ci/run), so a run without
// ../shared/golden cannot pass by skipping the byte-identity tests.
const EnvRequire = "BTI_REQUIRE_GOLDEN"

// EnvOut names the folder Compare writes the bytes it got into on a
// mismatch. Unset, it is testdata/.got inside the test's package directory
// (ignored by git); t.TempDir would be deleted when the test ends.
const EnvOut = "BTI_GOLDEN_OUT"

// Annotator writes an annotated dump of a file, one "from-to  hex  comment"
// line per item, as audit.WriteAnnotated does. It may fail
// on the bytes a broken writer produced; Compare then falls back to hex.
type Annotator func(data []byte, w io.Writer) error

// context is how many dump lines Compare shows on each side of the first
// difference.
const context = 6

// Compare fails tb unless got equals want, the golden bytes of the case
// named name. On a mismatch it reports the first differing offset, both
// files as annotated dumps around it (annotate may be nil: plain hex), and
// writes got to OutDir()/<test name>.got with its annotated dump beside it
// as .got.txt, so the two can be diffed after the run.
func Compare(tb testing.TB, name string, want, got []byte, annotate Annotator) {
	tb.Helper()
	if bytes.Equal(want, got) {
		return
	}
	off := FirstDiff(want, got)
	var msg strings.Builder
	fmt.Fprintf(&msg, "%s: got %d bytes, want %d; first difference at offset %d (0x%x)\n", name, len(got), len(want), off, off)
	wantDump, wantNote := dump(want, annotate)
	gotDump, gotNote := dump(got, annotate)
	fmt.Fprintf(&msg, "--- want (golden), around 0x%x:%s\n%s", off, wantNote, around(wantDump, off))
	fmt.Fprintf(&msg, "+++ got, around 0x%x:%s\n%s", off, gotNote, around(gotDump, off))
	if gotNote != "" {
		gotDump = strings.TrimSpace(gotNote) + "\n" + gotDump
	}
	if path, err := writeGot(tb.Name(), got, gotDump); err != nil {
		fmt.Fprintf(&msg, "could not save the bytes got: %v\n", err)
	} else {
		fmt.Fprintf(&msg, "the bytes got are in %s (annotated: %s.txt)\n", path, path)
	}
	tb.Error(msg.String())
}

// FirstDiff returns the first offset at which a and b differ, or the
// shorter length if one is a prefix of the other.
func FirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// OutDir is where Compare writes what it got: $BTI_GOLDEN_OUT if set, else
// testdata/.got relative to the working directory (the test's package).
func OutDir() string {
	if d := os.Getenv(EnvOut); d != "" {
		return d
	}
	return filepath.Join("testdata", ".got")
}

func writeGot(testName string, got []byte, annotated string) (string, error) {
	dir, err := filepath.Abs(OutDir())
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, unsafeChars.ReplaceAllString(testName, "_")+".got")
	if err := os.WriteFile(path, got, 0o644); err != nil {
		return "", err
	}
	return path, os.WriteFile(path+".txt", []byte(annotated), 0o644)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// dump annotates data, or hex-dumps it 16 bytes a line in the same
// "from-to  hex" shape where annotate is nil or fails; then note says why,
// for the header, since the lines shown are only those near the difference.
func dump(data []byte, annotate Annotator) (lines, note string) {
	if annotate != nil {
		var b strings.Builder
		err := annotate(data, &b)
		if err == nil {
			return b.String(), ""
		}
		return hexLines(data), fmt.Sprintf(" (no annotated dump: %v; plain hex)", err)
	}
	return hexLines(data), ""
}

func hexLines(data []byte) string {
	var b strings.Builder
	for at := 0; at < len(data); at += 16 {
		end := min(at+16, len(data))
		fmt.Fprintf(&b, "%06x-%06x  %s\n", at, end-1, spaced(data[at:end]))
	}
	return b.String()
}

// Hex parses hex written with optional spaces ("40 61 00 38"), the way
// test vectors and docs/format.md write bytes and the dumps print them.
func Hex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		tb.Fatalf("hex %q: %v", s, err)
	}
	return b
}

func spaced(p []byte) string {
	h := hex.EncodeToString(p)
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// around returns the dump lines near the item that covers offset off (or
// the last lines, where the dump ends before off), marking that item with
// ">>". Lines that do not start with a "from-to" range (continuations,
// notes) stay with the item above them.
func around(dump string, off int) string {
	lines := strings.Split(strings.TrimSuffix(dump, "\n"), "\n")
	hit := -1
	for i, l := range lines {
		var from, to int
		if _, err := fmt.Sscanf(l, "%x-%x", &from, &to); err != nil {
			continue
		}
		if from <= off && off <= to || from > off {
			hit = i
			break
		}
	}
	if hit < 0 {
		hit = len(lines) - 1
	}
	var b strings.Builder
	for i := max(0, hit-context); i <= min(len(lines)-1, hit+context); i++ {
		mark := "   "
		if i == hit {
			mark = ">> "
		}
		b.WriteString(mark + lines[i] + "\n")
	}
	return b.String()
}

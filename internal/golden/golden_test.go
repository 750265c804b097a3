package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that keeps what a helper reports. Fatal and
// Skip end the calling goroutine, as the real ones do.
type recorder struct {
	testing.TB
	mu      sync.Mutex
	errors  []string
	fatal   string
	skipped string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestX/case_a" }
func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprint(args...))
}
func (r *recorder) Fatal(args ...any) { r.fatal = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls f with r in its own goroutine, so Fatal and Skip can end it.
func (r *recorder) run(f func(tb testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

// inTreeWithoutGolden makes the working directory a module with no
// ../shared/golden beside it.
func inTreeWithoutGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
}

// Without the folder, Cases and RowsCases skip, unless BTI_REQUIRE_GOLDEN=1
// makes them fail.
func TestMissingFolder(t *testing.T) {
	for _, c := range []struct {
		name, require string
		list          func(tb testing.TB)
	}{
		{"Cases", "", func(tb testing.TB) { Cases(tb) }},
		{"Cases", "1", func(tb testing.TB) { Cases(tb) }},
		{"RowsCases", "", func(tb testing.TB) { RowsCases(tb) }},
		{"RowsCases", "1", func(tb testing.TB) { RowsCases(tb) }},
	} {
		require := c.require
		t.Run(c.name+"/require="+require, func(t *testing.T) {
			inTreeWithoutGolden(t)
			t.Setenv(EnvRequire, require)
			var r recorder
			r.run(c.list)
			if failed := r.fatal != ""; failed != (require == "1") || failed == (r.skipped != "") {
				t.Fatalf("got skip %q, fatal %q", r.skipped, r.fatal)
			}
			if require == "1" && !strings.Contains(r.fatal, EnvRequire) {
				t.Errorf("the failure should name %s: %q", EnvRequire, r.fatal)
			}
		})
	}
}

// annotateBy3 is a stand-in for WriteAnnotated: one item per 3 bytes.
func annotateBy3(data []byte, w io.Writer) error {
	for at := 0; at < len(data); at += 3 {
		end := min(at+3, len(data))
		fmt.Fprintf(w, "%06x-%06x  % x  item %d\n", at, end-1, data[at:end], at/3)
	}
	return nil
}

func TestCompareMismatch(t *testing.T) {
	out := t.TempDir()
	t.Setenv(EnvOut, out)
	want := []byte("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	got := []byte(string(want))
	got[40] = '!'
	var r recorder
	r.run(func(tb testing.TB) { Compare(tb, "case-a", want, got, annotateBy3) })
	if len(r.errors) != 1 {
		t.Fatalf("want one error, got %q", r.errors)
	}
	msg := r.errors[0]
	for _, s := range []string{
		"first difference at offset 40 (0x28)",
		"--- want (golden)",
		">> 000027-000029  44 45 46  item 13", // the golden's item holding offset 40
		">> 000027-000029  44 21 46  item 13", // the same item in got
		"000015-000017  76 77 78  item 7",     // six items of context before
		"000039-00003b  56 57 58  item 19",    // and six after
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	if strings.Contains(msg, "item 6\n") || strings.Contains(msg, "item 20\n") {
		t.Errorf("message shows more than six items of context:\n%s", msg)
	}
	saved, err := os.ReadFile(filepath.Join(out, "TestX_case_a.got"))
	if err != nil || string(saved) != string(got) {
		t.Fatalf("got file: %q, %v", saved, err)
	}
	ann, err := os.ReadFile(filepath.Join(out, "TestX_case_a.got.txt"))
	if err != nil || !strings.Contains(string(ann), "44 21 46  item 13") {
		t.Fatalf("annotated got file: %q, %v", ann, err)
	}
}

func TestCompareShorterAndUnannotated(t *testing.T) {
	t.Setenv(EnvOut, t.TempDir())
	want := make([]byte, 100)
	var r recorder
	r.run(func(tb testing.TB) {
		Compare(tb, "short", want, want[:70], func([]byte, io.Writer) error { return fmt.Errorf("broken") })
	})
	if len(r.errors) != 1 {
		t.Fatalf("want one error, got %q", r.errors)
	}
	msg := r.errors[0]
	for _, s := range []string{"got 70 bytes, want 100", "offset 70", "no annotated dump: broken", ">> 000040-00004f", ">> 000040-000045"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
}

func TestCompareEqual(t *testing.T) {
	var r recorder
	r.run(func(tb testing.TB) { Compare(tb, "same", []byte{1, 2}, []byte{1, 2}, annotateBy3) })
	if len(r.errors) != 0 {
		t.Fatalf("equal inputs reported %q", r.errors)
	}
}

// Hex reads what the dumps print (spaced) and what vectors write (packed),
// and fails the test on anything else.
func TestHex(t *testing.T) {
	if got := Hex(t, "40 61 00 38"); !bytes.Equal(got, []byte{0x40, 0x61, 0x00, 0x38}) {
		t.Errorf("spaced: % x", got)
	}
	if got := Hex(t, spaced([]byte{0xff, 0x01})+"ab"); !bytes.Equal(got, []byte{0xff, 0x01, 0xab}) {
		t.Errorf("mixed: % x", got)
	}
	var r recorder
	r.run(func(tb testing.TB) { Hex(tb, "4g") })
	if !strings.Contains(r.fatal, `hex "4g"`) {
		t.Errorf("not hex: fatal %q", r.fatal)
	}
}

// TestCaseCount lists the shared cases; CI prints its count.
func TestCaseCount(t *testing.T) {
	cases := Cases(t)
	for _, c := range cases {
		for _, p := range []string{c.DBPath, c.KeysPath} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("case %s: %v", c.Name, err)
			}
		}
	}
	t.Logf("golden cases: %d", len(cases))
}

// TestRequireView: a view equal to Cassandra's passes; one that differs
// fails on its first differing field, naming it and both values.
func TestRequireView(t *testing.T) {
	tail := []byte("tail")
	sum := sha256.Sum256(tail)
	want := Partial{AfterKeys: 7, Accepted: true, Root: 10, Count: 3, Cutoff: 4, TailLen: 4, TailSHA256: hex.EncodeToString(sum[:])}
	r := &recorder{TB: t}
	r.run(func(tb testing.TB) { want.RequireView(tb, 10, 3, 4, tail) })
	if r.fatal != "" {
		t.Fatalf("the matching view failed: %s", r.fatal)
	}
	r.run(func(tb testing.TB) { want.RequireView(tb, 10, 3, 5, []byte("tall")) })
	if got := "after 7 keys: cutoff is 5, Cassandra's is 4"; r.fatal != got {
		t.Fatalf("a view with another cutoff reported %q, want %q", r.fatal, got)
	}
	r.fatal = ""
	r.run(func(tb testing.TB) { want.RequireView(tb, 10, 3, 4, []byte("tall")) })
	if !strings.HasPrefix(r.fatal, "after 7 keys: tail sha256 is ") {
		t.Fatalf("a view with other tail bytes reported %q", r.fatal)
	}
}

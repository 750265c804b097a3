package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/partitionindex"
)

// problemPrinter counts problems and prints the first maxReported of them
// to w, one line each, prefixed with the command's name.
type problemPrinter struct {
	w        io.Writer
	prefix   string
	problems int
}

func (p *problemPrinter) report(msg string) bool {
	p.problems++
	if p.problems <= maxReported {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, msg)
	} else if p.problems == maxReported+1 {
		fmt.Fprintf(p.w, "%s(further problems counted, not shown)\n", p.prefix)
	}
	return true
}

// verifyStream checks ix against the keys.tsv at path, read one line at a
// time through an EntryVerifier (the check "bti verify" and "bti verify
// --deep" make), so it holds two Readers and two keys whatever the file's
// length. Each mismatch goes to report as a message naming keys.tsv lines;
// report returns false to stop. It returns the number of keys read; an
// error is a bad keys.tsv line (named), an interruption, or an index that
// could not be read (naming the key and line).
func verifyStream(ix *partitionindex.Index, path string, prog *progress, report func(string) bool) (int64, error) {
	ks, err := openKeyStream(path, ix.Partitioner(), "verifying against", prog)
	if err != nil {
		return 0, err
	}
	defer ks.Close()
	v, err := audit.NewEntryVerifier(ix, func(m audit.Mismatch) bool {
		return report(describeMismatch(m, path, ks.Key().Raw))
	})
	if err != nil {
		return 0, err
	}
	defer v.Close()
	for ks.Next() && !v.Stopped() {
		if err := v.Add(ks.Key(), ks.Pos()); err != nil {
			return ks.Count(), verifyReadError(err, path, ks.Key().Raw)
		}
	}
	if err := ks.Err(); err != nil {
		return ks.Count(), err
	}
	return ks.Count(), verifyReadError(v.Finish(), path, nil)
}

// verifyHeld is verifyStream for the first n keys of a set already in
// memory (the demo, build's early-open views).
func verifyHeld(ix *partitionindex.Index, ks *keySet, n int, report func(string) bool) error {
	err := audit.VerifyEntries(ix, ks.keys[:n], ks.pos[:n], func(m audit.Mismatch) bool {
		var key []byte
		if m.Kind == audit.MismatchGet {
			key = ks.keys[m.Entry].Raw
		}
		return report(describeMismatch(m, ks.name, key))
	})
	var ve *audit.VerifyError
	if errors.As(err, &ve) && ve.Entry >= 0 {
		return verifyReadError(err, ks.name, ks.keys[ve.Entry].Raw)
	}
	return verifyReadError(err, ks.name, nil)
}

// verifyReadError names the key and line of a Get that could not read the
// index, or says the scan could not.
func verifyReadError(err error, name string, key []byte) error {
	var ve *audit.VerifyError
	switch {
	case errors.As(err, &ve) && ve.Entry >= 0:
		return fmt.Errorf("key %s (%s line %d): %w", shortHex(key), name, lineOf(ve.Entry), ve.Err)
	case errors.As(err, &ve):
		return fmt.Errorf("scan: %w", ve.Err)
	}
	return err
}

// describeMismatch says what m means, naming lines of the keys.tsv name;
// key is entry m.Entry's raw key, needed for MismatchGet.
func describeMismatch(m audit.Mismatch, name string, key []byte) string {
	switch m.Kind {
	case audit.MismatchCount:
		return fmt.Sprintf("footer count is %d, %s has %d keys", m.Got, name, m.Want)
	case audit.MismatchFirstKey:
		return fmt.Sprintf("footer first key is %s, want %s", shortHex(m.GotKey), shortHex(m.WantKey))
	case audit.MismatchLastKey:
		return fmt.Sprintf("footer last key is %s, want %s", shortHex(m.GotKey), shortHex(m.WantKey))
	case audit.MismatchGet:
		return fmt.Sprintf("%s line %d: key %s: %s, want position %d", name, lineOf(m.Entry), shortHex(key), describeHit(m.Got, m.Found), m.Want)
	case audit.MismatchScan:
		return fmt.Sprintf("scan entry %d (line %d) is position %d, want %d", m.Entry, lineOf(m.Entry), m.Got, m.Want)
	case audit.MismatchScanLong:
		return fmt.Sprintf("scan yields more than the %d expected positions (extra %d)", m.Want, m.Got)
	case audit.MismatchScanShort:
		return fmt.Sprintf("scan yields %d positions, want %d", m.Got, m.Want)
	}
	return fmt.Sprintf("mismatch %+v", m)
}

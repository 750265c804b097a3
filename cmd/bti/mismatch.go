package main

import (
	"errors"
	"fmt"

	"github.com/bti-go/bti/partitionindex"
)

// verifyKeys checks ix against the first n keys of ks with
// Index.VerifyEntries (the check "bti verify", the demo and build's
// early-open views share), passing each mismatch to report as a message
// naming keys.tsv lines; report returns false to stop. A read error names
// the key and line.
func verifyKeys(ix *partitionindex.Index, ks *keySet, n int, report func(string) bool) error {
	err := ix.VerifyEntries(ks.keys[:n], ks.pos[:n], func(m partitionindex.Mismatch) bool {
		return report(describeMismatch(m, ks))
	})
	var ve *partitionindex.VerifyError
	switch {
	case errors.As(err, &ve) && ve.Entry >= 0:
		i := ve.Entry
		return fmt.Errorf("key %s (%s line %d): %w", shortHex(ks.keys[i].Raw), ks.name, lineOf(i), ve.Err)
	case errors.As(err, &ve):
		return fmt.Errorf("scan: %w", ve.Err)
	}
	return err
}

func describeMismatch(m partitionindex.Mismatch, ks *keySet) string {
	switch m.Kind {
	case partitionindex.MismatchCount:
		return fmt.Sprintf("footer count is %d, %s has %d keys", m.Got, ks.name, m.Want)
	case partitionindex.MismatchFirstKey:
		return fmt.Sprintf("footer first key is %s, want %s", shortHex(m.GotKey), shortHex(m.WantKey))
	case partitionindex.MismatchLastKey:
		return fmt.Sprintf("footer last key is %s, want %s", shortHex(m.GotKey), shortHex(m.WantKey))
	case partitionindex.MismatchGet:
		return fmt.Sprintf("%s line %d: key %s: %s, want position %d", ks.name, lineOf(m.Entry), shortHex(ks.keys[m.Entry].Raw), describeHit(m.Got, m.Found), m.Want)
	case partitionindex.MismatchScan:
		return fmt.Sprintf("scan entry %d (line %d) is position %d, want %d", m.Entry, lineOf(m.Entry), m.Got, m.Want)
	case partitionindex.MismatchScanLong:
		return fmt.Sprintf("scan yields more than the %d expected positions (extra %d)", m.Want, m.Got)
	case partitionindex.MismatchScanShort:
		return fmt.Sprintf("scan yields %d positions, want %d", m.Got, m.Want)
	}
	return fmt.Sprintf("mismatch %+v", m)
}

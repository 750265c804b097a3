package audit

import (
	"bytes"
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// MismatchKind says how an index disagrees with its entries.
type MismatchKind int

const (
	// MismatchCount: the footer's key count (Got) is not len(keys) (Want).
	MismatchCount MismatchKind = iota + 1
	// MismatchFirstKey, MismatchLastKey: the footer's key (GotKey) is not
	// the first or last entry's (WantKey).
	MismatchFirstKey
	MismatchLastKey
	// MismatchGet: Get of entry Entry gives Got (Found) instead of Want.
	MismatchGet
	// MismatchScan: a forward scan's entry Entry is Got instead of Want.
	MismatchScan
	// MismatchScanLong: the scan yields more than Want positions; Got is
	// the first extra one.
	MismatchScanLong
	// MismatchScanShort: the scan yields Got positions, not Want.
	MismatchScanShort
)

// Mismatch is one disagreement VerifyEntries found.
type Mismatch struct {
	Kind            MismatchKind
	Entry           int // the entry concerned (MismatchGet, MismatchScan)
	Got, Want       int64
	Found           bool // MismatchGet: Get found the key (at Got)
	GotKey, WantKey []byte
}

// VerifyError is a read error VerifyEntries met: Entry is the entry whose
// Get failed, or -1 for the scan. Err is usually a
// *partitionindex.CorruptError.
type VerifyError struct {
	Entry int
	Err   error
}

func (e *VerifyError) Error() string {
	if e.Entry < 0 {
		return fmt.Sprintf("scan: %v", e.Err)
	}
	return fmt.Sprintf("entry %d: %v", e.Entry, e.Err)
}

func (e *VerifyError) Unwrap() error { return e.Err }

// VerifyEntries checks the index ix against the entries it was built from
// (keys in order, with their positions), as an EntryVerifier fed with them
// does: the footer's count and first and last keys, that Get finds every
// key at its position, and that a forward scan yields exactly the positions
// in order. It calls report for each mismatch and stops early when report
// returns false. The error is a *VerifyError when the index could not be
// read.
//
// It is the routine behind the demo, "bti build"'s check of early-open
// views and the tests that hold a file's entries; "bti verify" streams its
// keys through an EntryVerifier instead.
func VerifyEntries(ix *partitionindex.Index, keys []partitioner.Key, positions []int64, report func(Mismatch) bool) error {
	v, err := NewEntryVerifier(ix, report)
	if err != nil {
		return err
	}
	defer v.Close()
	for i := range keys {
		if err := v.Add(&keys[i], positions[i]); err != nil {
			return err
		}
		if v.Stopped() {
			return nil
		}
	}
	return v.Finish()
}

// EntryVerifier checks an index against its entries fed one at a time, in
// key order, so a file of any size is verified in constant memory: it holds
// two Readers (one for Get, one for the forward scan it advances beside the
// entries) and a copy of the last key. The mismatches are reported as they
// are found: the first key's with the first entry, each entry's Get and
// scan mismatches with it, and the footer's count and last key and the
// end of the scan at Finish. The scan check stops at its first mismatch
// (the rest would only repeat it, shifted), and when both footer keys are
// wrong only the first is reported.
type EntryVerifier struct {
	ix      *partitionindex.Index
	get     *partitionindex.Reader
	scanRd  *partitionindex.Reader
	scan    *partitionindex.Iterator
	report  func(Mismatch) bool
	n       int64  // entries added
	last    []byte // the last entry's key
	stopped bool   // report returned false
	// scanOff: the scan check stopped (a mismatch, or the scan ended
	// early at entry scanShort, reported at Finish once the total is known).
	scanOff   bool
	scanShort int64
	firstBad  bool // the footer's first key was reported wrong
}

// NewEntryVerifier starts a verification of ix; report is called for every
// mismatch and ends it by returning false. Close releases its Readers
// (Finish does too).
func NewEntryVerifier(ix *partitionindex.Index, report func(Mismatch) bool) (*EntryVerifier, error) {
	get, err := ix.OpenReader()
	if err != nil {
		return nil, err
	}
	scanRd, err := ix.OpenReader()
	if err != nil {
		get.Close()
		return nil, err
	}
	return &EntryVerifier{ix: ix, get: get, scanRd: scanRd, scan: scanRd.Scan(nil, nil), report: report, scanShort: -1}, nil
}

// Stopped reports whether report returned false: further entries are
// ignored and the caller may stop feeding them.
func (v *EntryVerifier) Stopped() bool { return v.stopped }

func (v *EntryVerifier) mismatch(m Mismatch) {
	if !v.stopped && !v.report(m) {
		v.stopped = true
	}
}

// Add checks the next entry: the footer's first key (for the first
// entry), that Get finds key at pos, and that the scan's next position is
// pos. The error is a *VerifyError when the index could not be read.
func (v *EntryVerifier) Add(key *partitioner.Key, pos int64) error {
	if v.stopped {
		return nil
	}
	i := v.n
	v.n++
	v.last = append(v.last[:0], key.Raw...)
	if i == 0 && !bytes.Equal(v.ix.FirstKey(), key.Raw) {
		v.firstBad = true
		v.mismatch(Mismatch{Kind: MismatchFirstKey, GotKey: v.ix.FirstKey(), WantKey: bytes.Clone(key.Raw)})
	}
	got, ok, err := v.get.Get(key)
	if err != nil {
		return &VerifyError{Entry: int(i), Err: err}
	}
	if !ok || got != pos {
		v.mismatch(Mismatch{Kind: MismatchGet, Entry: int(i), Got: got, Found: ok, Want: pos})
	}
	if v.scanOff {
		return nil
	}
	if !v.scan.Next() {
		if err := v.scan.Err(); err != nil {
			return &VerifyError{Entry: -1, Err: err}
		}
		v.scanOff, v.scanShort = true, i
		return nil
	}
	if v.scan.Pos() != pos {
		v.scanOff = true
		v.mismatch(Mismatch{Kind: MismatchScan, Entry: int(i), Got: v.scan.Pos(), Want: pos})
	}
	return nil
}

// Finish checks what only the end can tell: the footer's count and last
// key, and that the scan ends with the entries. It releases the Readers.
func (v *EntryVerifier) Finish() error {
	defer v.Close()
	if v.stopped {
		return nil
	}
	n := v.n
	if v.ix.Count() != n {
		v.mismatch(Mismatch{Kind: MismatchCount, Got: v.ix.Count(), Want: n})
	}
	if n == 0 && len(v.ix.FirstKey()) > 0 {
		v.firstBad = true
		v.mismatch(Mismatch{Kind: MismatchFirstKey, GotKey: v.ix.FirstKey()})
	}
	if !v.firstBad && !bytes.Equal(v.ix.LastKey(), v.last) {
		v.mismatch(Mismatch{Kind: MismatchLastKey, GotKey: v.ix.LastKey(), WantKey: bytes.Clone(v.last)})
	}
	switch {
	case v.scanShort >= 0:
		v.mismatch(Mismatch{Kind: MismatchScanShort, Entry: int(v.scanShort), Got: v.scanShort, Want: n})
	case !v.scanOff:
		if v.scan.Next() {
			v.mismatch(Mismatch{Kind: MismatchScanLong, Entry: int(n), Got: v.scan.Pos(), Want: n})
		} else if err := v.scan.Err(); err != nil {
			return &VerifyError{Entry: -1, Err: err}
		}
	}
	return nil
}

// Close releases the verifier's Readers; it may be called more than once.
func (v *EntryVerifier) Close() {
	if v.get != nil {
		v.get.Close()
		v.scanRd.Close()
		v.get, v.scanRd = nil, nil
	}
}

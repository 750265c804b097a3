package partitionindex

import (
	"bytes"
	"fmt"

	"github.com/bti-go/bti/partitioner"
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
// Get failed, or -1 for the scan. Err is usually a *CorruptError.
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

// VerifyEntries checks the index against the entries it was built from
// (keys in order, with their positions): the footer's count and first and
// last keys, that Get finds every key at its position, and that a forward
// scan yields exactly the positions in order. It calls report for each
// mismatch and stops early when report returns false; the scan check stops
// at its first mismatch (the rest would only repeat it, shifted). The error
// is a *VerifyError when the index could not be read.
//
// It is the one routine behind "bti verify", the demo, "bti build"'s check
// of early-open views and the tests that hold a file's entries.
func (ix *Index) VerifyEntries(keys []partitioner.Key, positions []int64, report func(Mismatch) bool) error {
	if ix.Count() != int64(len(keys)) {
		if !report(Mismatch{Kind: MismatchCount, Got: ix.Count(), Want: int64(len(keys))}) {
			return nil
		}
	}
	var first, last []byte
	if len(keys) > 0 {
		first, last = keys[0].Raw, keys[len(keys)-1].Raw
	}
	if !bytes.Equal(ix.FirstKey(), first) {
		if !report(Mismatch{Kind: MismatchFirstKey, GotKey: ix.FirstKey(), WantKey: first}) {
			return nil
		}
	} else if !bytes.Equal(ix.LastKey(), last) {
		// Only the first footer key is reported when both are wrong, as
		// "bti verify" always did.
		if !report(Mismatch{Kind: MismatchLastKey, GotKey: ix.LastKey(), WantKey: last}) {
			return nil
		}
	}
	rd, err := ix.OpenReader()
	if err != nil {
		return err
	}
	defer rd.Close()
	for i := range keys {
		pos, ok, err := rd.Get(&keys[i])
		if err != nil {
			return &VerifyError{Entry: i, Err: err}
		}
		if !ok || pos != positions[i] {
			if !report(Mismatch{Kind: MismatchGet, Entry: i, Got: pos, Found: ok, Want: positions[i]}) {
				return nil
			}
		}
	}
	it := rd.Scan(nil, nil)
	i := 0
	for it.Next() {
		if i >= len(positions) {
			report(Mismatch{Kind: MismatchScanLong, Entry: i, Got: it.Pos(), Want: int64(len(positions))})
			return nil
		}
		if it.Pos() != positions[i] {
			report(Mismatch{Kind: MismatchScan, Entry: i, Got: it.Pos(), Want: positions[i]})
			return nil
		}
		i++
	}
	if err := it.Err(); err != nil {
		return &VerifyError{Entry: -1, Err: err}
	}
	if i != len(positions) {
		report(Mismatch{Kind: MismatchScanShort, Entry: i, Got: int64(i), Want: int64(len(positions))})
	}
	return nil
}

package partitionindex

import (
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/invariants"
	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/ring"
	"github.com/bti-go/bti/trie"
)

// Options configures a Builder. The zero value builds a Murmur3 index with
// Cassandra's 4096-byte pages.
type Options struct {
	Partitioner partitioner.Partitioner
	// PageSize is for tests only: any value but 0 or 4096 gives files
	// Cassandra did not write (though they read back fine).
	PageSize int
}

// Builder writes a Partitions.db file: call Add for every partition in
// the partitioner's decorated-key order, then Complete. The work is O(n) in
// the total encoded key length, in one pass; memory is bounded by the part of
// the trie not yet written plus three encoded keys.
//
// Each key is encoded once. Its stored prefix is the shortest one that tells
// it apart from both neighbours, so a key goes into the trie only when the
// next key arrives (or at Complete): the builder lags one key behind.
//
// Caller memory: Add copies what it keeps; the key's bytes need only
// live for the duration of the call.
//
// Errors: a refused key (*KeyError) or a failed write leaves the builder
// exactly as before the call, so the caller may retry or Complete with the
// keys accepted so far. Bytes are handed to the sink in batches at the start
// of a later call; a sink error is returned from that call and a retry writes
// the rest. If Complete fails, calling Complete again retries the remaining
// writes; Add after Complete (failed or not) returns ErrFinished.
type Builder struct {
	opts Options
	trie trie.Writer // a value: one allocation less for a small index
	// out holds the file's bytes not yet taken by the sink. The trie
	// appends its nodes to it, and Complete the footer after the trie's
	// last node (the trie writer knows nothing of footers); out hands them
	// over in batches, keeping what the sink refused for a retry.
	out indexfile.Buffer

	count     int64  // Add calls accepted
	firstKey  []byte // starts in firstBuf
	firstBuf  [64]byte
	rawBuf    []byte // decodeRaw's scratch, starts in rawSmall
	rawSmall  [64]byte
	hasLast   bool
	lastDiff  int   // diff point of the pending key with its predecessor
	lastPos   int64 // position of the pending key
	lastHash  byte
	inTrie    bool     // the pending key was added at Complete
	completed bool     // trie completed and footer buffered
	meta      Metadata // what Complete returns, set with completed
	// finishing is set by the first Complete call, failed or not. A
	// Complete that failed may already have finished the trie (its final
	// flush failed), so from then on only Complete may be called: Add
	// and BuildPartial return ErrFinished whichever write failed, instead
	// of accepting a key the finished trie would then refuse forever.
	finishing bool

	keys ring.Ring // encodings of the last keys
	// Murmur3 keys (murmur3.go): the pending (Current) and
	// the trie's last (Previous) key may hold only their token encoded,
	// followed by their raw bytes; lastToken is the pending key's token.
	pendingRaw, previousRaw bool
	lastToken               int64
	rawTmp                  []byte // completePending's copy of the raw bytes
	// bytesKeys encodes ByteOrdered keys over the ring's free slot,
	// escaping only what a key does not share with the previous one.
	bytesKeys bytecomparable.BytesKeyEncoder
	payload   [9]byte // scratch for one payload

	partial partitionfile.EarlyOpen
}

// NewBuilder returns a Builder that writes to w, whose current position is
// taken as the start of the file.
func NewBuilder(w io.Writer, opts Options) *Builder {
	b := &Builder{}
	b.Reset(w, opts)
	return b
}

// Reset starts a new index on w, keeping allocated memory.
func (b *Builder) Reset(w io.Writer, opts Options) {
	b.out.Reset(w, 0, "partitionindex")
	b.trie.Reset(&b.out, trie.Options{PageSize: opts.PageSize})
	b.opts = opts
	b.count = 0
	if cap(b.firstKey) == 0 {
		b.firstKey = b.firstBuf[:0]
		b.rawBuf = b.rawSmall[:0]
	}
	b.firstKey = b.firstKey[:0]
	b.hasLast = false
	b.lastDiff = 0
	b.inTrie = false
	b.completed = false
	b.finishing = false
	b.keys.Reset()
	b.pendingRaw, b.previousRaw = false, false
	b.bytesKeys.Reset()
	b.partial = partitionfile.EarlyOpen{}
}

// Count returns the number of entries accepted.
func (b *Builder) Count() int64 { return b.count }

// Position returns the number of bytes of the file produced so far,
// including bytes not yet handed to the writer (see Flush).
func (b *Builder) Position() int64 { return b.out.Position() }

// Flush hands every buffered byte to the writer. On error the bytes the
// writer did not take stay buffered for the next attempt.
func (b *Builder) Flush() error { return b.out.Flush() }

// Add adds a partition. position >= 0 is the partition's row-index
// (Rows.db) position; a negative position is ^dataPosition, the bitwise
// complement of its Data.db position (make them with RowIndexPosition and
// DataPosition). Keys must come in strictly increasing decorated-key order.
// The key is passed by pointer, so a call copies 8 bytes rather than the
// 80-byte Key; Add neither modifies nor retains it (the builder keeps
// its own encoding), and key must not be nil.
func (b *Builder) Add(key *partitioner.Key, position int64) error {
	if key.Partitioner != partitioner.Murmur3 {
		if key.Partitioner == partitioner.ByteOrdered {
			return b.addBytes(key, position) // its own checks: one call less
		}
		return b.addOther(key, position)
	}
	// A Murmur3 key, most indexes', goes from here to the trie in this one
	// function, token first (murmur3.go): Add's checks and bookkeeping,
	// addTokenFirst's work and addPending's, because each call on the way
	// costs ten instructions per key or more. A warm Add of 1M Murmur3
	// UUID keys (workload.MurmurUUID) took 611.5 instructions through Add,
	// addMurmur3 and addPending (at ffafb13), 547.5 in this one function
	// with the key's slot written as below (70df0df), and 529.2 when the
	// slot is written after the hand-over to the trie and equal tokens go
	// to addSameToken, so that nothing but the builder and the key is held
	// across that call (b2bc3b8); by callgrind as in trie/childlists.go (a
	// //go:noinline wrapper addOne of Add; GODEBUG=asyncpreemptoff=1
	// GOGC=off valgrind --tool=callgrind --toggle-collect='*addOne'; self
	// instructions summed per function over the second of two builds,
	// divided by the key count). Since then the hand-over to the trie is
	// the last thing Add does, so that nothing at all is held across it:
	// the key's slot, the ring and the bookkeeping come first, which is
	// safe only because the trie cannot refuse the key here (below). Add's
	// own instructions per key were 166.3 with the hand-over in the middle
	// (at 723c8c8) and 158.3 with it last, the fixed-size moves below for
	// keys of up to 32 bytes (16 before) and EntryOK (the commit that made
	// this change); for 1M text keys of 1 to 32 bytes (bti gen --kind text
	// --count 1000000 --seed 1 --partitioner murmur3) 185.3 and 158.3, and
	// runtime.memmove's 17.3 and 3.0.
	//
	// Everything else takes addTokenFirst, the general path: the first
	// key, a token not above the pending key's (equal, or refused), an
	// entry CheckEntry may refuse, a key without its hash computed, one
	// longer than room or a slot without room for it, and a full output
	// buffer, which addTokenFirst's trie call hands to the sink before
	// anything changes. Off those, the trie cannot refuse the key (it is
	// not finished, the key follows its last one, and it has no full
	// buffer to hand over), so Add may change everything first.
	const prefix = bytecomparable.LongTokenPrefixLen
	const room = 32 // raw bytes the fixed-size moves take
	raw := key.Raw
	if b.finishing || !b.hasLast || key.Token <= b.lastToken || !key.Hashed || len(raw) > room ||
		b.out.Full() || !partitionfile.EntryOK(b.opts.Partitioner, key, position) {
		return b.addTokenFirst(key, position)
	}
	enc := b.keys.Scratch()
	if cap(enc) < bytecomparable.MaxLongTokenKeyLen(room) {
		return b.addTokenFirst(key, position)
	}
	// The token-first form, 40 <token: 8 bytes> <raw key bytes>, written
	// into a slot with room for the whole encoding of any key up to room
	// bytes (every slot after its first key), so that completing it stays
	// in place: the raw bytes in two overlapping moves of a fixed size.
	s := (*[prefix + room]byte)(enc[:prefix+room])
	bytecomparable.AppendLongTokenPrefix(s[:0], key.Token)
	switch n := len(raw); {
	case n >= 16:
		*(*[16]byte)(s[prefix:]) = [16]byte(raw)
		*(*[16]byte)(s[prefix+n-16:]) = [16]byte(raw[n-16:])
	case n >= 8:
		*(*[8]byte)(s[prefix:]) = [8]byte(raw)
		*(*[8]byte)(s[prefix+n-8:]) = [8]byte(raw[n-8:])
	case n >= 4:
		*(*[4]byte)(s[prefix:]) = [4]byte(raw)
		*(*[4]byte)(s[prefix+n-4:]) = [4]byte(raw[n-4:])
	default:
		for i, c := range raw {
			s[prefix+i] = c
		}
	}
	enc = enc[:prefix+len(raw)]
	diff := tokenDiffPoint(key.Token, b.lastToken)
	if invariants.Enabled {
		b.checkTokenCut(diff)
	}
	// Manually inlined version of addPending(b.keys.Current(), diff) (as
	// addTokenFirst calls it), with the trie call moved last
	// (TestMurmur3PathIsScratchPath ties the two). The payload goes into
	// the fixed array with Put, addPending's Append without the append
	// (TestPut ties the two): Add's own instructions per key were 177.0
	// with Append, 170.3 with Put (the measure above, at 4adb3e1 and the
	// commit that made this change).
	prev := b.keys.Current()
	n, flags := partitionpayload.Put(&b.payload, b.lastHash, b.lastPos)
	cut, shared := prev[:min(max(diff, b.lastDiff), len(prev))], b.lastDiff-1
	b.lastDiff = diff
	// The pending key's slot is now the trie's last key, read by the next
	// call only after the trie has taken it; the slot Commit frees held
	// the trie's previous last key, which the trie reads during this call
	// and nothing writes before the next Add.
	b.keys.CommitLen(len(enc)) // enc is the Scratch slot, written in place
	b.previousRaw, b.pendingRaw = b.pendingRaw, true
	b.lastToken = key.Token
	b.lastHash = byte(key.Hash2) // accepted's, for a hashed key after the first
	b.lastPos = position
	b.count++
	err := b.trie.AddShared(cut, shared, flags, b.payload[:n])
	if invariants.Enabled && err != nil {
		panic(fmt.Sprintf("partitionindex: the trie refused a key Add had checked: %v", err))
	}
	return err
}

// tokenDiffPoint is the 1-based diff point of the encodings of two Murmur3
// keys with different tokens: byte 0 is the separator and token byte j is
// byte 1+j, so 2+j for the first token byte j that differs.
func tokenDiffPoint(token, other int64) int {
	return 2 + bits.LeadingZeros64(uint64(token^other))/8
}

// checkTokenCut panics if the pending key's cut, at the larger of diff and
// its diff point with its predecessor, reaches past the token while its
// slot holds only the token encoded (invariants tag): a cut reaches past
// the token only where a diff point does, next to an equal token, and the
// pending key was completed then.
func (b *Builder) checkTokenCut(diff int) {
	if b.pendingRaw && max(diff, b.lastDiff) > bytecomparable.LongTokenPrefixLen {
		panic(fmt.Sprintf("partitionindex: cutting %d bytes of a key whose slot holds only its token encoded", max(diff, b.lastDiff)))
	}
}

// addTokenFirst is Add's general path for a Murmur3 key (see Add): the
// checks, equal tokens (addSameToken), the pending key to the trie
// (addPending), and the key's token-first form into the ring, with room
// for the encoding of any key up to Add's room bytes, so that the next
// keys take Add's common path. Add holds a manually inlined copy of its
// common case.
func (b *Builder) addTokenFirst(key *partitioner.Key, position int64) error {
	if b.finishing {
		return ErrFinished
	}
	if err := b.checkEntry(key, position); err != nil {
		return err
	}
	if b.hasLast {
		if key.Token <= b.lastToken {
			return b.addSameToken(key, position) // or refuse it
		}
		diff := tokenDiffPoint(key.Token, b.lastToken)
		if invariants.Enabled {
			b.checkTokenCut(diff)
		}
		if err := b.addPending(b.keys.Current(), diff); err != nil {
			return err
		}
	}
	const room = 32 // Add's
	n := len(key.Raw)
	enc := slices.Grow(b.keys.Scratch(), max(bytecomparable.MaxLongTokenKeyLen(n), bytecomparable.MaxLongTokenKeyLen(room)))
	enc = append(bytecomparable.AppendLongTokenPrefix(enc, key.Token), key.Raw...)
	b.keys.Commit(enc)
	b.previousRaw, b.pendingRaw = b.pendingRaw, true
	b.lastToken = key.Token
	b.accepted(key, position)
	return nil
}

// addOther is Add for the keys of the other partitioners (ByteOrdered's go
// to addBytes). Given a Murmur3 key it takes the general path,
// addScratch's, which is how TestMurmur3PathIsScratchPath compares Add's
// Murmur3 path with it.
func (b *Builder) addOther(key *partitioner.Key, position int64) error {
	if key.Partitioner == partitioner.ByteOrdered {
		return b.addBytes(key, position)
	}
	if b.finishing {
		return ErrFinished
	}
	if err := b.checkEntry(key, position); err != nil {
		return err
	}
	if err := b.addScratch(key, position); err != nil {
		return err
	}
	b.accepted(key, position)
	return nil
}

// accepted records key, at position, as the pending key once Add has put
// it in the ring: what its payload needs, and for the first key its raw
// bytes for the footer. It is small enough to be inlined in addOther,
// addBytes and addTokenFirst; Add's common path, for a hashed key after the
// first, writes out its first case.
func (b *Builder) accepted(key *partitioner.Key, position int64) {
	if b.hasLast && key.Hashed {
		b.lastHash = byte(key.Hash2) // HashByte without copying the key
	} else {
		b.acceptedRare(key)
	}
	b.lastPos = position
	b.count++
}

// acceptedRare is accepted's part for the first key, and for a key whose
// hash is not computed yet.
func (b *Builder) acceptedRare(key *partitioner.Key) {
	if !b.hasLast {
		b.firstKey = append(b.firstKey[:0], key.Raw...)
		b.hasLast = true
	}
	b.lastHash = key.HashByte()
}

// Check returns the error Add would return for key with a storable
// position, without adding it: ErrFinished, or a *KeyError for a key from
// another partitioner, too long, or not after the last key added. A
// caller that must refuse a key before it writes anything else about it
// (tableindex, before a partition's row index) checks with it, so that the
// order rule lives here only.
func (b *Builder) Check(key *partitioner.Key) error {
	if b.finishing {
		return ErrFinished
	}
	if err := b.checkEntry(key, 0); err != nil {
		return err
	}
	if b.hasLast {
		raw := b.lastRaw()
		if prev := b.opts.Partitioner.Decorate(raw); partitioner.Compare(prev, *key) >= 0 {
			return b.orderError(raw, key, 0)
		}
	}
	return nil
}

func (b *Builder) checkEntry(key *partitioner.Key, position int64) error {
	if partitionfile.EntryOK(b.opts.Partitioner, key, position) {
		return nil
	}
	return partitionfile.CheckEntry(b.opts.Partitioner, b.count, key, position)
}

// orderError builds the error for a key that does not sort after prev.
func (b *Builder) orderError(prevRaw []byte, key *partitioner.Key, position int64) error {
	return partitionfile.OrderError(b.count, prevRaw, key, position)
}

// addScratch encodes key into the free ring slot, compares it with the
// pending key as plain arrays, and hands the trie the pending key's prefix as
// a sub-slice of its slot. The ring is rotated only once everything
// succeeded, so a failure leaves it untouched.
func (b *Builder) addScratch(key *partitioner.Key, position int64) error {
	enc := key.AppendComparable(b.keys.Scratch())
	if b.hasLast {
		prev := b.keys.Current()
		diff := bytecomparable.DiffPoint(prev, enc)
		if diff > len(enc) || enc[diff-1] < prev[diff-1] {
			// The error carries the refused key's own position (not the
			// pending key's lastPos), as KeyError.Pos documents.
			return b.orderError(b.slotRaw(prev, false), key, position)
		}
		if err := b.addPending(prev, diff); err != nil {
			return err
		}
	}
	b.keys.Commit(enc)
	return nil
}

// addPending hands the trie the pending key, whose encoding (as far as the
// cut reaches) is prev, now that its diff point with the next key is
// known: its stored prefix reaches one byte past both diff points. The
// trie's previous key shares exactly lastDiff-1 bytes with that prefix
// (the full keys differ there, and both cuts reach past it), so the trie
// need not compare them again; before the trie's first key lastDiff is 0,
// and the trie does not read the count.
//
// Add's Murmur3 path holds a manually inlined copy of this function (a
// change here goes there too); TestMurmur3PathIsScratchPath ties the two.
func (b *Builder) addPending(prev []byte, diff int) error {
	p, flags := partitionpayload.Append(b.payload[:0], b.lastHash, b.lastPos)
	err := b.trie.AddShared(prev[:min(max(diff, b.lastDiff), len(prev))], b.lastDiff-1, flags, p)
	if err != nil {
		return err
	}
	b.lastDiff = diff
	return nil
}

// decodeRaw recovers the raw partition key from an encoding in the ring.
// Only error reporting, early open and the footer need it.
//
// The result lives in a scratch buffer valid until the next decodeRaw:
// every caller copies it or uses it at once.
func (b *Builder) decodeRaw(enc []byte) []byte {
	k, err := b.opts.Partitioner.DecodeComparable(b.rawBuf[:0], enc)
	if err != nil {
		return nil // cannot happen for encodings we made
	}
	b.rawBuf = k.Raw[:0]
	return k.Raw
}

// slotRaw returns the raw key of a ring slot: its bytes past the token when
// the slot holds a token-first Murmur3 key (raw), the decoded head of a
// ByteOrdered key, else decodeRaw's. Like decodeRaw's, the result is valid
// until the next call.
func (b *Builder) slotRaw(enc []byte, raw bool) []byte {
	switch {
	case raw:
		return enc[bytecomparable.LongTokenPrefixLen:]
	case b.opts.Partitioner == partitioner.ByteOrdered:
		k, err := bytecomparable.DecodeBytesTokenHead(b.rawBuf[:0], enc)
		if err != nil {
			return nil // cannot happen for heads we made
		}
		b.rawBuf = k[:0]
		return k
	}
	return b.decodeRaw(enc)
}

// lastRaw returns the raw bytes of the pending (most recent) key.
func (b *Builder) lastRaw() []byte {
	return b.slotRaw(b.keys.Current(), b.pendingRaw)
}

// lastTrieRaw returns the raw bytes of the key most recently added to the
// trie, or nil if none.
func (b *Builder) lastTrieRaw() []byte {
	if b.trie.Count() == 0 {
		return nil
	}
	return b.slotRaw(b.keys.Previous(), b.previousRaw)
}

// Complete adds the pending key, finishes the trie and writes the footer
// after its root, the last node (the layout is in doc.go and
// internal/partitionfile.AppendFooter):
//
//	[trie nodes ... root][u16 len][first key][u16 len][last key][i64 firstKeyPos][i64 count][i64 root] It returns the file's Metadata
//
// (key count, size, root position, pages). On a write error, calling
// Complete again retries, and once it succeeds returns the same Metadata.
func (b *Builder) Complete() (Metadata, error) {
	b.finishing = true
	b.partial.Drop() // a pending early-open view never fires now
	// Hand over a full buffer first, as every call does before it
	// produces bytes (the trie's common path leaves it to the next call).
	if b.out.Full() {
		if err := b.out.Flush(); err != nil {
			return Metadata{}, err
		}
	}
	if b.hasLast && !b.inTrie {
		enc := b.keys.Current() // complete wherever lastDiff reaches (murmur3.go)
		p, flags := partitionpayload.Append(b.payload[:0], b.lastHash, b.lastPos)
		if err := b.trie.Add(enc[:min(b.lastDiff, len(enc))], flags, p); err != nil {
			return Metadata{}, err
		}
		b.inTrie = true
	}
	if !b.completed {
		// The trie hands full batches to the sink while it writes its
		// last part and leaves the rest in b.out. If a hand-over fails,
		// the trie is complete all the same and a retry goes on here.
		root, err := b.trie.Complete()
		if err != nil {
			return Metadata{}, err
		}
		firstKeyPos := b.trie.Position()
		b.out.B = b.appendFooter(b.out.B, firstKeyPos, b.trie.Count(), root)
		b.meta = b.metadata(root, firstKeyPos)
		b.completed = true
	}
	// The rest of the trie and the footer, in one batch.
	if err := b.out.Flush(); err != nil {
		return Metadata{}, err
	}
	return b.meta, nil
}

func (b *Builder) appendFooter(dst []byte, firstKeyPos, count, root int64) []byte {
	var first, last []byte
	if b.hasLast {
		first, last = b.firstKey, b.lastRaw()
	}
	return partitionfile.AppendFooter(dst, first, last, firstKeyPos, count, root)
}

// Package keygen generates deterministic sets of partition keys and index
// positions for tests, benchmarks and the bti tool, in the spirit of the
// golden cases' genkeys.py (same kinds and position model, not the same
// bytes):
//
//	keys := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 1000, Seed: 1}
//	entries, err := keys.Generate()
//
// Keys come out sorted in the partitioner's decorated-key order
// (partitioner.Compare) and free of duplicates. Keys and Generate hold the
// whole set in memory (up to MaxMemory); Stream gives the same keys and
// positions one at a time for a set of any size, spilling to files. The same Config always gives
// the same keys and positions: both come from math/rand/v2's PCG, seeded
// from Config.Seed.
//
// Positions model what a BTI writer records: two increasing streams,
// row-index positions (>= 0) and ^dataPosition (< 0), whose magnitudes grow
// from about 1 to about 2^40 over the set, plus about 3% outliers of any bit
// length up to 62, so that every payload size (1..8 bytes) occurs in sets of
// a few thousand keys.
package keygen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unsafe"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
)

// Kind is the shape of the generated keys.
type Kind uint8

const (
	// Int32 keys are 4-byte big-endian integers.
	Int32 Kind = iota
	// Int64 keys are 8-byte big-endian integers.
	Int64
	// UUID keys are 16 random bytes with the version-4 and IETF-variant bits set.
	UUID
	// Text keys are ASCII strings over [a-zA-Z0-9_-.:/ ].
	Text
	// Blob keys are random bytes biased towards 0x00, 0xFF, 0x01 and 0xFE,
	// so the byte-comparable escaping of zero bytes is exercised.
	Blob
)

var kindNames = [...]string{Int32: "int32", Int64: "int64", UUID: "uuid", Text: "text", Blob: "blob"}

// String returns the name ParseKind accepts.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ErrKind is returned by ParseKind for a name it does not know.
var ErrKind = errors.New("keygen: unknown key kind (want int32, int64, uuid, text or blob)")

// ParseKind parses "int32", "int64", "uuid", "text" or "blob".
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if strings.EqualFold(s, name) {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrKind, s)
}

// ErrTooFew is returned when the key space cannot yield Count distinct keys:
// Count exceeds Capacity (for example 1000 text keys of length 1, or 2^32+1
// int32 keys), or the draws ran out of budget.
var ErrTooFew = errors.New("keygen: cannot generate that many distinct keys")

// ErrTooLarge is returned when the set would not fit MaxMemory.
var ErrTooLarge = errors.New("keygen: key set too large to generate in memory")

// MaxMemory bounds the memory a key set may need. Keys are drawn at random
// and must come out sorted by token, so the whole set is held and sorted in
// memory: MemoryEstimate bytes, 120 per UUID key (88 for the decorated key
// and its position, 16 for its bytes as drawn and 16 more while Keys packs
// them in order), so about 35 million UUID keys fit. A larger request is
// refused with ErrTooLarge rather than left to die of an out-of-memory
// fatal error (which no recover catches) on a machine that has less.
// Stream, which spills to disk, has no such limit.
const MaxMemory = 4 << 30

// keyOverhead is what each key costs besides its bytes: the decorated
// partitioner.Key and its position.
const keyOverhead = int64(unsafe.Sizeof(partitioner.Key{})) + 8

// Config describes a key set. The zero value (with a Count) generates
// Murmur3 int32 keys with seed 0.
type Config struct {
	Partitioner partitioner.Partitioner
	Kind        Kind
	Count       int
	Seed        uint64
	// PrefixBytes puts the same random blob of this many bytes in front of
	// every key.
	PrefixBytes int
	// KeyLenMin and KeyLenMax bound the length of a Text or Blob key after
	// the prefix; both zero means 1..32. Other kinds ignore them.
	KeyLenMin, KeyLenMax int
	// PositionsIncreasing drops the outliers, so that row-index positions
	// and data positions each strictly increase with key order, as an
	// sstable writer records them (audit.PositionsIncreasing).
	PositionsIncreasing bool
}

// Stream constants tell apart the PCG streams of keys and positions, so the
// positions do not depend on how many draws the keys needed.
const (
	keyStream      = 0x6b65797374726561 // "keystrea"
	positionStream = 0x706f736974696f6e // "position"
)

func (c Config) lenRange() (lo, hi int) {
	if c.KeyLenMin == 0 && c.KeyLenMax == 0 {
		return 1, 32
	}
	return c.KeyLenMin, c.KeyLenMax
}

func (c Config) validate() error {
	if err := c.validateShape(); err != nil {
		return err
	}
	if need := c.MemoryEstimate(); need > MaxMemory {
		return fmt.Errorf("%w: %d %v keys need about %.1f GiB (%d bytes per key), the limit is %d GiB (keygen.MaxMemory): the whole set is sorted in memory",
			ErrTooLarge, c.Count, c.Kind, float64(need)/(1<<30), need/int64(c.Count), MaxMemory>>30)
	}
	return nil
}

// validateShape checks everything validate does but the memory limit,
// which only the in-memory Keys has.
func (c Config) validateShape() error {
	switch {
	case c.Count < 0:
		return fmt.Errorf("keygen: negative count %d", c.Count)
	case c.Kind > Blob:
		return fmt.Errorf("%w: %v", ErrKind, c.Kind)
	case c.Partitioner > partitioner.Random:
		return fmt.Errorf("keygen: unknown partitioner %v", c.Partitioner)
	case c.PrefixBytes < 0 || c.PrefixBytes > partitioner.MaxKeyLength:
		return fmt.Errorf("keygen: prefix of %d bytes, want 0..%d", c.PrefixBytes, partitioner.MaxKeyLength)
	}
	lo, hi := c.lenRange()
	if c.Kind == Text || c.Kind == Blob {
		if lo < 0 || hi < lo {
			return fmt.Errorf("keygen: bad key length range %d..%d", lo, hi)
		}
		if c.PrefixBytes+hi > partitioner.MaxKeyLength {
			return fmt.Errorf("keygen: keys of up to %d bytes (prefix %d + %d), at most %d fit", c.PrefixBytes+hi, c.PrefixBytes, hi, partitioner.MaxKeyLength)
		}
	} else if c.PrefixBytes+c.fixedLen() > partitioner.MaxKeyLength {
		return fmt.Errorf("keygen: prefix of %d bytes leaves no room for %v keys", c.PrefixBytes, c.Kind)
	}
	if capacity := c.Capacity(); uint64(c.Count) > capacity {
		return fmt.Errorf("%w: %d requested, but %s offers only %d distinct keys", ErrTooFew, c.Count, c.describe(), capacity)
	}
	return nil
}

// describe names the key space for messages: "int32", "text of 1..3 bytes
// after a 2-byte prefix".
func (c Config) describe() string {
	s := c.Kind.String()
	if c.Kind == Text || c.Kind == Blob {
		lo, hi := c.lenRange()
		s += fmt.Sprintf(" of %d..%d bytes", lo, hi)
	}
	if c.PrefixBytes > 0 {
		s += fmt.Sprintf(" after a %d-byte prefix", c.PrefixBytes)
	}
	return s
}

// Capacity is the number of distinct non-empty keys c's kind, prefix and
// length range can make (saturating at math.MaxUint64): 2^32 for Int32,
// 2^122 (saturated) for UUID, sum of 68^n or 256^n over the lengths for
// Text and Blob. A Count above it can never be met.
func (c Config) Capacity() uint64 {
	var n uint64
	switch c.Kind {
	case Int32:
		n = 1 << 32
	case Int64, UUID:
		return math.MaxUint64
	case Text, Blob:
		base := uint64(256)
		if c.Kind == Text {
			base = uint64(len(textAlphabet))
		}
		lo, hi := c.lenRange()
		pow := uint64(1) // base^l, saturated
		for l := 0; l <= hi; l++ {
			if l >= lo {
				n = satAdd(n, pow)
			}
			if pow > math.MaxUint64/base {
				pow = math.MaxUint64
			} else {
				pow *= base
			}
		}
		if lo == 0 && c.PrefixBytes == 0 {
			n-- // the empty key is not a partition key
		}
	}
	return n
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// MemoryEstimate is about how many bytes Keys and Positions hold at the
// peak for c: per key, the decorated key and its position plus the raw
// bytes (prefix and the mean length) twice, as drawn and as packed.
func (c Config) MemoryEstimate() int64 {
	keyLen := int64(c.PrefixBytes + c.fixedLen())
	if c.Kind == Text || c.Kind == Blob {
		lo, hi := c.lenRange()
		keyLen = int64(c.PrefixBytes) + int64(lo+hi+1)/2
	}
	return int64(c.Count) * (keyOverhead + 2*keyLen)
}

func (c Config) fixedLen() int {
	switch c.Kind {
	case Int32:
		return 4
	case Int64:
		return 8
	default:
		return 16
	}
}

// Generate returns the keys of Keys with positions from Positions, as
// keys.tsv entries in file order. The entries' Key slices share one backing
// array; do not append to them.
func (c Config) Generate() ([]keystsv.Entry, error) {
	keys, err := c.Keys()
	if err != nil {
		return nil, err
	}
	pos := c.Positions(len(keys))
	out := make([]keystsv.Entry, len(keys))
	for i, k := range keys {
		out[i] = keystsv.Entry{Key: k.Raw, Pos: pos[i]}
	}
	return out, nil
}

// Keys returns Count distinct keys decorated by c.Partitioner, sorted by
// partitioner.Compare. Duplicates drawn are dropped and replaced by further
// draws; after 50*Count+1000 draws it gives up with ErrTooFew. The Raw
// slices lie back to back in key order in one array (see pack); do not
// append to them.
func (c Config) Keys() ([]partitioner.Key, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	g := c.newGen()
	keys := make([]partitioner.Key, 0, c.Count)
	budget := 50*c.Count + 1000
	var batch []partitioner.Key
	for len(keys) < c.Count {
		need := c.Count - len(keys)
		if len(keys) == 0 {
			// The first round draws into keys' own capacity: a second
			// Count-sized slice would double the peak memory.
			batch = keys[:0]
		} else {
			if len(batch) > 0 && &batch[0] == &keys[0] {
				batch = nil // still the first round's: keys' own memory
			}
			batch = slices.Grow(batch[:0], need)
		}
		for range need {
			if budget == 0 {
				return nil, c.outOfDraws(len(keys))
			}
			budget--
			raw := g.key()
			if len(raw) == 0 {
				continue // Cassandra has no empty partition keys
			}
			batch = append(batch, c.Partitioner.Decorate(raw))
		}
		slices.SortFunc(batch, partitioner.Compare)
		keys = mergeUnique(keys, batch)
	}
	pack(keys)
	return keys, nil
}

// outOfDraws is the error of a set whose draw budget ran out with got
// distinct keys.
func (c Config) outOfDraws(got int) error {
	return fmt.Errorf("%w: %d %v keys of %d+%d..%d bytes (got %d)", ErrTooFew, c.Count, c.Kind, c.PrefixBytes, c.KeyLenMin, c.KeyLenMax, got)
}

// pack copies the keys' bytes back to back, in key order, into one array.
// Drawn in random order and then sorted, they would lie scattered over the
// draw chunks, so a consumer walking the set in order (a builder benchmark,
// bti build's input) would pay a cache miss per key for reading its input.
// An sstable writer reads a key it has just serialized, from cache; packed
// keys keep benchmarks measuring the builder, not the input's layout.
func pack(keys []partitioner.Key) {
	total := 0
	for _, k := range keys {
		total += len(k.Raw)
	}
	arena := make([]byte, 0, total)
	for i := range keys {
		start := len(arena)
		arena = append(arena, keys[i].Raw...)
		keys[i].Raw = arena[start:len(arena):len(arena)]
	}
}

// mergeUnique merges the sorted batch into the sorted, duplicate-free keys
// and drops duplicates (within batch and against keys). It works in place:
// keys has room for batch (cap(keys) >= len(keys)+len(batch)), and batch
// is either keys[:0] itself (the first round) or a separate slice.
func mergeUnique(keys, batch []partitioner.Key) []partitioner.Key {
	same := func(a, b partitioner.Key) bool { return partitioner.Compare(a, b) == 0 }
	if len(keys) == 0 {
		// The first round: batch is keys[:len(batch)].
		return slices.CompactFunc(batch, same)
	}
	// Merge from the back, so no element of keys is overwritten before it
	// was moved: the write index k stays >= i, the read index of keys.
	out := keys[:len(keys)+len(batch)]
	i, j := len(keys)-1, len(batch)-1
	for k := len(out) - 1; j >= 0; k-- {
		if i >= 0 && partitioner.Compare(keys[i], batch[j]) > 0 {
			out[k] = keys[i]
			i--
		} else {
			out[k] = batch[j]
			j--
		}
	}
	return slices.CompactFunc(out, same)
}

// gen draws raw keys into large shared chunks, so a million keys cost a few
// dozen allocations rather than a million.
type gen struct {
	cfg    Config
	rng    *rand.Rand
	prefix []byte
	arena  []byte
}

const chunkSize = 1 << 20

// newGen returns the generator of c's key stream, its shared prefix drawn.
// Keys and Stream both start here, so they see the same draws.
func (c Config) newGen() *gen {
	g := &gen{cfg: c, rng: rand.New(rand.NewPCG(c.Seed, keyStream))}
	g.prefix = g.blob(nil, c.PrefixBytes)
	return g
}

// alloc returns n bytes from the arena, zeroed.
func (g *gen) alloc(n int) []byte {
	if cap(g.arena)-len(g.arena) < n {
		g.arena = make([]byte, 0, max(chunkSize, n))
	}
	start := len(g.arena)
	g.arena = g.arena[:start+n]
	return g.arena[start : start+n : start+n]
}

func (g *gen) key() []byte {
	k := g.alloc(len(g.prefix) + g.keyLen())
	g.fill(k)
	return k
}

// appendKey is key drawing into dst's memory instead of the arena: the
// same random draws, so the same key.
func (g *gen) appendKey(dst []byte) []byte {
	n := len(g.prefix) + g.keyLen()
	k := slices.Grow(dst[:0], n)[:n]
	g.fill(k)
	return k
}

// keyLen draws the length of the next key after the prefix (Text and Blob
// draw it first, before the bytes).
func (g *gen) keyLen() int {
	c := g.cfg
	if c.Kind == Text || c.Kind == Blob {
		lo, hi := c.lenRange()
		return lo + g.rng.IntN(hi-lo+1)
	}
	return c.fixedLen()
}

// fill draws k's bytes after the prefix and copies the prefix in front.
func (g *gen) fill(k []byte) {
	c := g.cfg
	copy(k, g.prefix)
	s := k[len(g.prefix):]
	switch c.Kind {
	case Int32, Int64, UUID:
		for i := 0; i < len(s); i += 8 {
			v := g.rng.Uint64()
			for j := i; j < len(s) && j < i+8; j++ {
				s[j] = byte(v)
				v >>= 8
			}
		}
		if c.Kind == UUID {
			s[6] = s[6]&0x0F | 0x40 // version 4
			s[8] = s[8]&0x3F | 0x80 // IETF variant
		}
	case Text:
		for i := range s {
			s[i] = textAlphabet[g.rng.IntN(len(textAlphabet))]
		}
	case Blob:
		g.blob(s[:0], len(s))
	}
}

const textAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/ "

// blob appends n random bytes biased towards 0x00/0xFF/0x01/0xFE.
func (g *gen) blob(dst []byte, n int) []byte {
	for range n {
		var b byte
		switch r := g.rng.IntN(100); {
		case r < 10:
			b = 0x00
		case r < 15:
			b = 0xFF
		case r < 18:
			b = 0x01
		case r < 20:
			b = 0xFE
		default:
			b = byte(g.rng.Uint32())
		}
		dst = append(dst, b)
	}
	return dst
}

// Positions returns n index positions for a set generated with seed: two
// increasing streams (about 35% row-index positions >= 0, the rest
// ^dataPosition < 0) whose magnitudes grow from about 1 to about 2^40 over
// the set, and about 3% outliers of a random bit length up to 62. No position
// is math.MinInt64 (Cassandra's "not found").
func Positions(n int, seed uint64) []int64 { return positions(n, seed, true) }

// Positions returns the n positions of the set c describes: Positions, or
// IncreasingPositions with PositionsIncreasing.
func (c Config) Positions(n int) []int64 { return positions(n, c.Seed, !c.PositionsIncreasing) }

// IncreasingPositions is Positions without the outliers: both streams
// strictly increase, magnitudes still reach about 2^40 (payload sizes 1..6).
func IncreasingPositions(n int, seed uint64) []int64 { return positions(n, seed, false) }

func positions(n int, seed uint64, outliers bool) []int64 {
	ps := newPositionStream(n, seed, outliers)
	out := make([]int64, n)
	for i := range out {
		out[i] = ps.Next()
	}
	return out
}

// PositionStream yields the positions of Positions (or IncreasingPositions)
// one at a time, in O(1) memory: position i depends only on the stream's
// draws before it and on i/(n-1), so a set too large for an n-sized slice
// gets the same values.
type PositionStream struct {
	rng      *rand.Rand
	n, i     int
	last     [2]int64 // by stream: 0 data, 1 row index
	outliers bool
}

// PositionStream returns the stream of c.Positions(n).
func (c Config) PositionStream(n int) *PositionStream {
	return newPositionStream(n, c.Seed, !c.PositionsIncreasing)
}

func newPositionStream(n int, seed uint64, outliers bool) *PositionStream {
	return &PositionStream{rng: rand.New(rand.NewPCG(seed, positionStream)), n: n, last: [2]int64{-1, -1}, outliers: outliers}
}

// Next returns the next position. Calls past the n-th continue the model
// beyond the end of the set (magnitudes above 2^40).
func (p *PositionStream) Next() int64 {
	rng, n, i := p.rng, p.n, p.i
	p.i++
	stream := 0
	if rng.Float64() < 0.35 {
		stream = 1
	}
	frac := 0.5
	if n > 1 {
		frac = float64(i) / float64(n-1)
	}
	var mag int64
	if rng.Float64() < 0.03 && p.outliers {
		bits := rng.IntN(63) // 0..62
		if bits > 0 {
			mag = int64(rng.Uint64()&(1<<bits-1)) | 1<<(bits-1)
		}
	} else {
		target := int64(math.Exp2(40*frac) * (1 + 0.5*rng.Float64()))
		mag = max(p.last[stream]+1+rng.Int64N(65), target)
		mag = min(mag, 1<<62)
		p.last[stream] = mag
	}
	if stream == 1 {
		return mag
	}
	return ^mag
}

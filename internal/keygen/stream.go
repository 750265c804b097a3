package keygen

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/bti-go/bti/partitioner"
)

// DefaultStreamMemory is what Stream holds for keys when StreamOptions
// leaves Memory zero.
const DefaultStreamMemory = 512 << 20

// StreamOptions bounds what Stream holds in memory and says where it may
// spill.
type StreamOptions struct {
	// Dir is an existing directory for the spill files. Stream removes
	// every file it creates there before it returns, whatever the outcome
	// (a process killed outright leaves them: the caller names Dir so
	// that a leftover says what it is).
	Dir string
	// Memory is about the most Stream holds for keys at once, in bytes;
	// zero means DefaultStreamMemory. A set whose MemoryEstimate is at
	// most half of it is generated in memory by Keys, without files.
	Memory int64
	// Buckets caps the number of spill files drawn into at once; zero
	// means 1024. Fewer buckets than the set needs make each one larger
	// than a sort, so it is sorted in chunks and merged: slower, but
	// still bounded.
	Buckets int
}

// SpillError is a failure to write, read or remove a spill file: the
// disk, not the Config, is what went wrong.
type SpillError struct {
	Path string
	Err  error
}

func (e *SpillError) Error() string { return fmt.Sprintf("keygen: spill file %s: %v", e.Path, e.Err) }

func (e *SpillError) Unwrap() error { return e.Err }

// Stream calls emit with each key of the set Keys returns and its position
// (the PositionStream of the set's size), in key order, and stops at the
// first error emit returns, returning it unchanged. The key slice is valid
// only during the call.
//
// Stream gives exactly what Keys and Positions give, but has no MaxMemory
// limit: above the in-memory size it replays Keys' rounds of draws into
// spill files, one per range of the decorated order (bucket), and keeps
// each bucket sorted and free of duplicates between rounds, so it holds
// about opts.Memory/2 for the keys being sorted plus a write buffer per
// bucket, and never the whole set. On disk it holds the set once, about
// one byte more per key than the keys' bytes, each bucket's file removed
// as soon as its keys were emitted. Cancelling ctx stops it, with ctx's
// error, within a few thousand draws or keys emitted, or after the
// bucket being sorted or merged.
//
// Errors: those of Keys for a Config that cannot give its Count (except
// ErrTooLarge), *SpillError for a spill file, ctx.Err(), or emit's.
func (c Config) Stream(ctx context.Context, opts StreamOptions, emit func(key []byte, pos int64) error) error {
	if err := c.validateShape(); err != nil {
		return err
	}
	memory := opts.Memory
	if memory <= 0 {
		memory = DefaultStreamMemory
	}
	chunk := min(memory/2, maxChunk)
	if est := c.MemoryEstimate(); est <= chunk && est <= MaxMemory {
		keys, err := c.Keys()
		if err != nil {
			return err
		}
		ps := c.PositionStream(len(keys))
		for i, k := range keys {
			if i%cancelStride == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := emit(k.Raw, ps.Next()); err != nil {
				return err
			}
		}
		return nil
	}
	buckets := opts.Buckets
	if buckets <= 0 {
		buckets = maxBuckets
	}
	s := newSpill(c, opts.Dir, memory, chunk, buckets)
	err := s.run(ctx, emit)
	if rerr := s.removeAll(); err == nil {
		err = rerr
	}
	return err
}

// maxChunk keeps every offset into a sort's arena within an entry's uint32.
const maxChunk = 1 << 31

// Bucket limits. maxBuckets bounds the open spill files (and their write
// buffers) while drawing; a bucket larger than a sort's memory is sorted
// in chunks and merged, at most mergeFanIn files at a time, so neither a
// skewed split nor a tiny Memory breaks the bound.
const (
	maxBuckets   = 1024
	sampleDraws  = 1 << 16
	mergeFanIn   = 16
	minBuffer    = 4 << 10
	maxBuffer    = 64 << 10
	runBuffer    = 256 << 10
	cancelStride = 1 << 14 // draws or keys between checks of ctx
)

// spill replays Keys through bucket files. A spill file is a sequence of
// records, uvarint(len(key)) then the raw key bytes: the decorated key is
// recomputed from the raw one when it is read back, which costs a hash but
// halves the disk traffic of fixed-size keys.
type spill struct {
	cfg    Config
	chunk  int64    // bytes a sort holds: its keys and entries
	splits []uint64 // bucket i holds order prefixes in [splits[i-1], splits[i])
	bucket []bucket
	bufLen int // write buffer of each bucket's draws file
	live   map[string]bool

	// Reused across buckets, so the heap stays at one sort's worth.
	arena   []byte
	entries []entry
	scratch []entry              // radixSort's other half
	digits  *[1 << radixBits]int // radixSort's counts
	key     []byte
	last    []byte
	pending int // length read ahead by readChunk, or -1
	rbuf    *bufio.Reader
	wbuf    *bufio.Writer
	runs    int // run files named so far
}

type bucket struct {
	name   string // path of its files without the suffix: DIR/bucket-0007
	sorted string // sorted, duplicate-free keys; "" while there are none
	count  int64  // keys in sorted

	draws      string // this round's draws, as drawn
	f          *os.File
	w          *bufio.Writer
	drawn      int64 // records in draws
	drawnBytes int64 // their key bytes
}

// entry is a key of a sort: its order prefix, which decides most
// comparisons alone, and where its bytes lie in the arena.
type entry struct {
	prefix uint64
	off, n uint32
}

const entrySize = 16

// entryCost is what an entry costs a sort: itself and its place in the
// radix sort's scratch copy.
const entryCost = 2 * entrySize

func newSpill(c Config, dir string, memory, chunk int64, buckets int) *spill {
	s := &spill{cfg: c, chunk: chunk, live: map[string]bool{}, pending: -1}
	perKey := entryCost + c.keyBytes()                   // what a key costs a sort
	n := (int64(c.Count)*perKey*5/4 + chunk - 1) / chunk // a quarter spare for uneven buckets
	s.splits = c.sampleSplits(int(min(max(n, 1), int64(buckets))))
	s.bucket = make([]bucket, len(s.splits)+1)
	for i := range s.bucket {
		s.bucket[i].name = filepath.Join(dir, fmt.Sprintf("bucket-%04d", i))
	}
	s.bufLen = int(min(max(memory/8/int64(len(s.bucket)), minBuffer), maxBuffer))
	return s
}

// keyBytes is the mean length of a key, prefix included.
func (c Config) keyBytes() int64 {
	if c.Kind == Text || c.Kind == Blob {
		lo, hi := c.lenRange()
		return int64(c.PrefixBytes) + int64(lo+hi+1)/2
	}
	return int64(c.PrefixBytes + c.fixedLen())
}

// orderPrefix maps k to 64 bits that never decrease along
// partitioner.Compare: the Murmur3 token with its sign flipped, the high
// half of the Random token, or the 8 bytes after the shared prefix of a
// ByteOrdered key (zero-padded). Bucket boundaries and most comparisons of
// a sort are on these.
func (c Config) orderPrefix(k partitioner.Key) uint64 {
	switch k.Partitioner {
	case partitioner.Murmur3:
		return uint64(k.Token) ^ 1<<63
	case partitioner.Random:
		return k.RandomToken.Hi // the minimum token (the empty key) never occurs
	}
	var b [8]byte
	copy(b[:], k.Raw[c.PrefixBytes:])
	return binary.BigEndian.Uint64(b[:])
}

// compare orders two keys by partitioner.Compare, given their order
// prefixes.
func (c Config) compare(pa uint64, a []byte, pb uint64, b []byte) int {
	if pa != pb {
		return cmp.Compare(pa, pb)
	}
	if c.Partitioner == partitioner.Random {
		// Equal high halves: the rest of the token decides (rare).
		return partitioner.Compare(c.Partitioner.Decorate(a), c.Partitioner.Decorate(b))
	}
	// Murmur3: equal prefixes are equal tokens; ByteOrdered: the key is
	// the token.
	return bytes.Compare(a, b)
}

// sampleSplits picks n-1 bucket boundaries at the quantiles of the order
// prefixes of the first draws of c's own key stream. Draws are independent,
// so the first ones are a fair sample of all rounds' draws, whatever the
// kind (uniform tokens, text over 68 symbols, blobs biased to 0x00): the
// buckets get about equal shares. Equal quantiles (a key space with few
// prefixes) are merged, so there may be fewer buckets.
func (c Config) sampleSplits(n int) []uint64 {
	if n <= 1 {
		return nil
	}
	g := c.newGen()
	p := c.Partitioner
	var key []byte
	sample := make([]uint64, 0, min(c.Count, sampleDraws))
	for range cap(sample) {
		key = g.appendKey(key)
		if len(key) > 0 {
			sample = append(sample, c.orderPrefix(p.Decorate(key)))
		}
	}
	if len(sample) == 0 {
		return nil
	}
	slices.Sort(sample)
	var splits []uint64
	for i := 1; i < n; i++ {
		v := sample[i*len(sample)/n]
		if v > sample[0] && (len(splits) == 0 || v > splits[len(splits)-1]) {
			splits = append(splits, v)
		}
	}
	return splits
}

func (s *spill) bucketOf(prefix uint64) *bucket {
	i, found := slices.BinarySearch(s.splits, prefix)
	if found {
		i++ // a boundary opens its bucket
	}
	return &s.bucket[i]
}

// run replays Keys' rounds, then emits the buckets in order.
func (s *spill) run(ctx context.Context, emit func([]byte, int64) error) error {
	c := s.cfg
	g := c.newGen()
	budget := 50*c.Count + 1000
	unique := int64(0)
	for unique < int64(c.Count) {
		if err := s.draw(ctx, g, c.Count-int(unique), &budget, unique); err != nil {
			return err
		}
		unique = 0
		for i := range s.bucket {
			if err := s.settle(ctx, &s.bucket[i]); err != nil {
				return err
			}
			unique += s.bucket[i].count
		}
	}
	return s.emit(ctx, emit)
}

// draw is one round of Keys: need draws, each spending one unit of the
// budget (an empty key too), appended to the draws file of its bucket.
func (s *spill) draw(ctx context.Context, g *gen, need int, budget *int, unique int64) error {
	p := s.cfg.Partitioner
	for i := range need {
		if i%cancelStride == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if *budget == 0 {
			return s.cfg.outOfDraws(int(unique))
		}
		*budget--
		s.key = g.appendKey(s.key)
		if len(s.key) == 0 {
			continue // Cassandra has no empty partition keys
		}
		b := s.bucketOf(s.cfg.orderPrefix(p.Decorate(s.key)))
		if b.f == nil {
			if err := s.openDraws(b); err != nil {
				return err
			}
		}
		if err := writeRecord(b.w, s.key); err != nil {
			return &SpillError{b.draws, err}
		}
		b.drawn++
		b.drawnBytes += int64(len(s.key))
	}
	for i := range s.bucket {
		b := &s.bucket[i]
		if b.f == nil {
			continue
		}
		err := b.w.Flush()
		if cerr := b.f.Close(); err == nil {
			err = cerr
		}
		b.f = nil
		if err != nil {
			return &SpillError{b.draws, err}
		}
	}
	return nil
}

// openDraws creates b's draws file at its first draw of a round: a late
// round draws few keys, and most buckets get none.
func (s *spill) openDraws(b *bucket) error {
	path := b.name + ".draws"
	f, err := s.create(path)
	if err != nil {
		return err
	}
	b.draws, b.f, b.drawn, b.drawnBytes = path, f, 0, 0
	if b.w == nil {
		b.w = bufio.NewWriterSize(f, s.bufLen)
	} else {
		b.w.Reset(f)
	}
	return nil
}

// settle folds a bucket's draws into its sorted file: the draws are sorted
// and deduplicated a chunk at a time (one chunk, written as the sorted file
// itself, when the bucket fits), and the chunks and the old sorted file are
// merged.
func (s *spill) settle(ctx context.Context, b *bucket) error {
	if b.draws == "" {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.Open(b.draws)
	if err != nil {
		return &SpillError{b.draws, err}
	}
	defer f.Close()
	s.reader(f)
	s.reserve(b)
	var runs []string
	if b.sorted != "" {
		runs = append(runs, b.sorted)
	}
	left := b.drawn
	for left > 0 {
		n, err := s.readChunk(b.draws, left)
		if err != nil {
			return err
		}
		left -= int64(n)
		s.sortChunk()
		path := b.name + ".sorted"
		if left > 0 || len(runs) > 0 {
			path = s.runName(b)
		}
		if err := s.writeChunk(path); err != nil {
			return err
		}
		if left == 0 && len(runs) == 0 {
			b.sorted, b.count = path, int64(len(s.entries))
		}
		runs = append(runs, path)
	}
	if err := s.remove(b.draws); err != nil {
		return err
	}
	b.draws = ""
	if len(runs) > 1 {
		path, count, err := s.merge(ctx, runs, b)
		if err != nil {
			return err
		}
		b.sorted, b.count = path, count
	}
	return nil
}

// reserve sizes the sort's arena and entries for b's draws, within the
// chunk, in the proportion of b's key bytes to its entries. They are
// reused from bucket to bucket, and only grown, with a tenth to spare, so
// buckets of about equal size allocate them once.
func (s *spill) reserve(b *bucket) {
	keyBytes, entryBytes := b.drawnBytes, b.drawn*entryCost
	wantArena, wantEntries := keyBytes, b.drawn
	if keyBytes+entryBytes > s.chunk {
		wantArena = s.chunk * keyBytes / (keyBytes + entryBytes)
		wantEntries = max((s.chunk-wantArena)/entryCost, 1)
	}
	if int64(cap(s.arena)) < wantArena {
		s.arena = make([]byte, 0, min(wantArena*11/10, s.chunk))
	}
	if int64(cap(s.entries)) < wantEntries {
		s.entries = make([]entry, 0, min(wantEntries*11/10, max(s.chunk/entryCost, 1)))
	}
}

// readChunk reads up to left records into the arena and entries, as many
// as their capacity holds (at least one).
func (s *spill) readChunk(path string, left int64) (int, error) {
	c := s.cfg
	p := c.Partitioner
	s.arena, s.entries = s.arena[:0], s.entries[:0]
	for int64(len(s.entries)) < left {
		n := s.pending
		if n < 0 {
			var err error
			if n, err = s.readLen(path); err != nil {
				return 0, err
			}
		}
		s.pending = -1
		if len(s.entries) > 0 && (len(s.entries) == cap(s.entries) || len(s.arena)+n > cap(s.arena)) {
			s.pending = n // the next chunk's first key
			return len(s.entries), nil
		}
		off := len(s.arena)
		s.arena = slices.Grow(s.arena, n)[:off+n]
		if _, err := io.ReadFull(s.rbuf, s.arena[off:]); err != nil {
			return 0, &SpillError{path, truncated(err)}
		}
		k := s.arena[off:]
		s.entries = append(s.entries, entry{prefix: c.orderPrefix(p.Decorate(k)), off: uint32(off), n: uint32(n)})
	}
	return len(s.entries), nil
}

// readLen reads a record's length from the read buffer.
func (s *spill) readLen(path string) (int, error) {
	n, err := binary.ReadUvarint(s.rbuf)
	if err != nil {
		return 0, &SpillError{path, truncated(err)}
	}
	if n > partitioner.MaxKeyLength {
		return 0, &SpillError{path, fmt.Errorf("record of %d bytes, longer than any key: the file is corrupt", n)}
	}
	return int(n), nil
}

// truncated names an end of file inside a spill file as the corruption it
// is: Stream always reads exactly the records it wrote.
func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("ends before its last record: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// sortChunk sorts the entries by partitioner.Compare and drops duplicates.
func (s *spill) sortChunk() {
	c, arena := s.cfg, s.arena
	full := func(a, b entry) int {
		return c.compare(a.prefix, arena[a.off:a.off+a.n], b.prefix, arena[b.off:b.off+b.n])
	}
	if len(s.entries) < radixMin {
		slices.SortFunc(s.entries, full)
	} else {
		if cap(s.scratch) < cap(s.entries) {
			// As large as entries, so that swapping them keeps what
			// reserve sized.
			s.scratch = make([]entry, cap(s.entries))
		}
		if s.digits == nil {
			s.digits = new([1 << radixBits]int)
		}
		sorted, spare := radixSort(s.entries, s.scratch[:len(s.entries)], s.digits)
		s.entries, s.scratch = sorted, spare[:cap(spare)]
		// Equal prefixes (rare but for short ByteOrdered keys) are
		// ordered by the whole key.
		for i := 0; i < len(s.entries); {
			j := i + 1
			for j < len(s.entries) && s.entries[j].prefix == s.entries[i].prefix {
				j++
			}
			if j-i > 1 {
				slices.SortFunc(s.entries[i:j], full)
			}
			i = j
		}
	}
	s.entries = slices.CompactFunc(s.entries, func(a, b entry) bool {
		return a.prefix == b.prefix && full(a, b) == 0
	})
}

// Radix sort parameters: below radixMin entries a comparison sort is
// cheaper than clearing the digit counts.
const (
	radixBits = 16
	radixMin  = 4096
)

// radixSort sorts a by prefix, stably, least significant 16 bits first,
// skipping the digits that every entry shares (the high ones, within a
// bucket). It moves the entries between a and tmp and returns the slice
// that holds them sorted, and the other. A bucket's prefixes are nearly
// uniform, so this is linear where a comparison sort, calling the key
// comparison 20-odd times a key, took most of a large set's time.
func radixSort(a, tmp []entry, count *[1 << radixBits]int) (sorted, spare []entry) {
	const mask = 1<<radixBits - 1
	for shift := 0; shift < 64; shift += radixBits {
		clear(count[:])
		for _, e := range a {
			count[e.prefix>>shift&mask]++
		}
		if count[a[0].prefix>>shift&mask] == len(a) {
			continue // one digit for all: nothing moves
		}
		sum := 0
		for d, n := range count {
			count[d] = sum
			sum += n
		}
		for _, e := range a {
			d := e.prefix >> shift & mask
			tmp[count[d]] = e
			count[d]++
		}
		a, tmp = tmp, a
	}
	return a, tmp
}

// writeChunk writes the sorted entries' keys to a new file at path.
func (s *spill) writeChunk(path string) error {
	w, f, err := s.writer(path)
	if err != nil {
		return err
	}
	for _, e := range s.entries {
		if err := writeRecord(w, s.arena[e.off:e.off+e.n]); err != nil {
			f.Close()
			return &SpillError{path, err}
		}
	}
	return s.closeWriter(path, w, f)
}

// writeRecord writes one record. The length goes through the writer's
// own free space (AvailableBuffer), so nothing escapes to the heap.
func writeRecord(w *bufio.Writer, key []byte) error {
	if w.Available() < binary.MaxVarintLen64 {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if _, err := w.Write(binary.AppendUvarint(w.AvailableBuffer(), uint64(len(key)))); err != nil {
		return err
	}
	_, err := w.Write(key)
	return err
}

// runName names a new run file of b.
func (s *spill) runName(b *bucket) string {
	s.runs++
	return fmt.Sprintf("%s.run-%d", b.name, s.runs)
}

// cursor reads one sorted file during a merge.
type cursor struct {
	path   string
	f      *os.File
	r      *bufio.Reader
	key    []byte
	prefix uint64
	done   bool
}

func (s *spill) next(cu *cursor) error {
	n, err := binary.ReadUvarint(cu.r)
	if errors.Is(err, io.EOF) {
		cu.done = true
		return nil
	}
	if err != nil {
		return &SpillError{cu.path, err}
	}
	if n > partitioner.MaxKeyLength {
		return &SpillError{cu.path, fmt.Errorf("record of %d bytes, longer than any key: the file is corrupt", n)}
	}
	cu.key = slices.Grow(cu.key[:0], int(n))[:n]
	if _, err := io.ReadFull(cu.r, cu.key); err != nil {
		return &SpillError{cu.path, truncated(err)}
	}
	cu.prefix = s.cfg.orderPrefix(s.cfg.Partitioner.Decorate(cu.key))
	return nil
}

// merge merges the sorted runs of b into one sorted file, dropping keys
// that occur in more than one, mergeFanIn files at a time (each pass
// removes its inputs), and returns it with its key count.
func (s *spill) merge(ctx context.Context, runs []string, b *bucket) (string, int64, error) {
	var count int64
	for len(runs) > 1 {
		k := min(len(runs), mergeFanIn)
		out := s.runName(b)
		n, err := s.mergeRuns(ctx, runs[:k], out)
		if err != nil {
			return "", 0, err
		}
		runs = append(runs[k:], out)
		count = n
	}
	return runs[0], count, nil
}

func (s *spill) mergeRuns(ctx context.Context, runs []string, out string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	curs := make([]cursor, len(runs))
	defer func() {
		for i := range curs {
			if curs[i].f != nil {
				curs[i].f.Close()
			}
		}
	}()
	for i, path := range runs {
		f, err := os.Open(path)
		if err != nil {
			return 0, &SpillError{path, err}
		}
		curs[i] = cursor{path: path, f: f, r: bufio.NewReaderSize(f, maxBuffer)}
		if err := s.next(&curs[i]); err != nil {
			return 0, err
		}
	}
	w, f, err := s.writer(out)
	if err != nil {
		return 0, err
	}
	var count int64
	var lastPrefix uint64
	c := s.cfg
	for {
		min := -1
		for i := range curs {
			cu := &curs[i]
			if !cu.done && (min < 0 || c.compare(cu.prefix, cu.key, curs[min].prefix, curs[min].key) < 0) {
				min = i
			}
		}
		if min < 0 {
			break
		}
		cu := &curs[min]
		if count == 0 || c.compare(lastPrefix, s.last, cu.prefix, cu.key) != 0 {
			if err := writeRecord(w, cu.key); err != nil {
				f.Close()
				return 0, &SpillError{out, err}
			}
			s.last = append(s.last[:0], cu.key...)
			lastPrefix = cu.prefix
			count++
		}
		if err := s.next(cu); err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := s.closeWriter(out, w, f); err != nil {
		return 0, err
	}
	for i := range curs {
		curs[i].f.Close()
		curs[i].f = nil
		if err := s.remove(runs[i]); err != nil {
			return 0, err
		}
	}
	return count, nil
}

// emit reads the buckets' sorted files in order, calling emit with each
// key and the next position, and removes each file once read.
func (s *spill) emit(ctx context.Context, emit func([]byte, int64) error) error {
	ps := s.cfg.PositionStream(s.cfg.Count)
	var done int64
	for i := range s.bucket {
		b := &s.bucket[i]
		if b.sorted == "" {
			continue
		}
		f, err := os.Open(b.sorted)
		if err != nil {
			return &SpillError{b.sorted, err}
		}
		s.reader(f)
		for range b.count {
			if done%cancelStride == 0 && ctx.Err() != nil {
				f.Close()
				return ctx.Err()
			}
			done++
			n, err := s.readLen(b.sorted)
			if err == nil {
				s.key = slices.Grow(s.key[:0], n)[:n]
				_, err = io.ReadFull(s.rbuf, s.key)
				err = truncated(err)
			}
			if err != nil {
				f.Close()
				return &SpillError{b.sorted, err}
			}
			if err := emit(s.key, ps.Next()); err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
		if err := s.remove(b.sorted); err != nil {
			return err
		}
		b.sorted = ""
	}
	return nil
}

// reader points the shared read buffer at f.
func (s *spill) reader(f *os.File) {
	if s.rbuf == nil {
		s.rbuf = bufio.NewReaderSize(f, runBuffer)
	} else {
		s.rbuf.Reset(f)
	}
	s.pending = -1
}

// writer creates path and points the shared write buffer at it.
func (s *spill) writer(path string) (*bufio.Writer, *os.File, error) {
	f, err := s.create(path)
	if err != nil {
		return nil, nil, err
	}
	if s.wbuf == nil {
		s.wbuf = bufio.NewWriterSize(f, runBuffer)
	} else {
		s.wbuf.Reset(f)
	}
	return s.wbuf, f, nil
}

func (s *spill) closeWriter(path string, w *bufio.Writer, f *os.File) error {
	err := w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &SpillError{path, err}
	}
	return nil
}

// create creates a spill file, recorded so that removeAll finds it.
func (s *spill) create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, &SpillError{path, err}
	}
	s.live[path] = true
	return f, nil
}

func (s *spill) remove(path string) error {
	delete(s.live, path)
	if err := os.Remove(path); err != nil {
		return &SpillError{path, err}
	}
	return nil
}

// removeAll closes and removes every spill file still there: the exit path
// of an error or a cancellation.
func (s *spill) removeAll() error {
	for i := range s.bucket {
		if f := s.bucket[i].f; f != nil {
			f.Close()
		}
	}
	var first error
	for path := range s.live {
		if err := os.Remove(path); err != nil && first == nil {
			first = &SpillError{path, err}
		}
	}
	clear(s.live)
	return first
}

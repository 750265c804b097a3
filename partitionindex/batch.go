package partitionindex

import (
	"encoding/binary"
	"slices"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// Result is GetBatch's answer for one key: what Get returns for it.
type Result struct {
	Pos int64
	OK  bool
	Err error
}

// batchChunk is how many keys GetBatch encodes and hands to one
// trie.Walker.ExactBatch call. The walker keeps a fixed number of walks in
// flight and refills a lane from the chunk as soon as its walk ends, so the
// lanes run dry only at a chunk's end: a chunk many times the lane count
// keeps that drain rare, and one small enough keeps the scratch in L1.
const batchChunk = 128

// batchState is a handle's scratch for GetBatch: the probes of one chunk
// and the encodings they walk.
type batchState struct {
	probes [batchChunk]trie.Probe
	lane   [batchChunk]int // key index of each probe
	enc    []byte          // the probes' keys that are not Murmur3, back to back
	ends   [batchChunk]int // end of each such probe's key in enc (-1: a Murmur3 key, in tok)
	tok    [batchChunk][tokenPrefixLen]byte
}

// GetBatch looks up every key of keys and appends one Result per key, in
// order, to dst: the same answers as calling Get for each key, but with the
// memory misses of several walks overlapped (trie.Walker.ExactBatch), which on an index larger than
// the caches gives several times Get's throughput. Use it when many keys are
// known up front (a multi-key read, a merge probing another sstable). Keys
// may come in any order. It allocates nothing when dst has room for the
// results (and, for keys that are not Murmur3, once the handle's scratch has
// grown to the longest batch of encodings).
func (r *Reader) GetBatch(dst []Result, keys []partitioner.Key) []Result {
	return r.getBatch(dst, keys, false)
}

// GetBatchCold is GetBatch for an index from Open that is mostly outside
// the page cache (the first lookups after a restart, a rarely read
// sstable). There a walk's next node costs a page fault that holds the
// thread until the read is done, so GetBatch's prefetches overlap nothing;
// GetBatchCold instead asks the kernel to read each walk's next page ahead
// (madvise MADV_WILLNEED, trie.Walker.ExactBatchCold), so the reads of
// several walks (32 at a time) are in flight at once. It makes a system
// call for each page the walks of a call reach that the call has not asked
// for yet, so on an index in memory it is slower than GetBatch: use it when
// the caller knows the index is cold. The answers are GetBatch's.
func (r *Reader) GetBatchCold(dst []Result, keys []partitioner.Key) []Result {
	return r.getBatch(dst, keys, true)
}

// getBatch is GetBatch, or with cold GetBatchCold.
func (r *Reader) getBatch(dst []Result, keys []partitioner.Key, cold bool) []Result {
	bs := r.batchState()
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), batchChunk)]
		keys = keys[len(chunk):]
		base := len(dst)
		dst = slices.Grow(dst, len(chunk))[:base+len(chunk)] // every result is set below
		n := 0
		bs.enc = bs.enc[:0]
		whole := false // some key is encoded whole, into enc
		for i := range chunk {
			k := &chunk[i] // Keys are 80 bytes: do not copy them
			if err := r.checkKey(k); err != nil {
				dst[base+i] = Result{Err: err}
				continue
			}
			p := &bs.probes[n]
			if k.Partitioner == partitioner.Murmur3 {
				putTokenPrefix(&bs.tok[n], k.Token)
				p.Key, p.Partial = bs.tok[n][:], true
				bs.ends[n] = -1
			} else {
				bs.enc = k.AppendComparable(bs.enc)
				bs.ends[n] = len(bs.enc)
				whole = true
			}
			// The hash byte, which the walk checks at the leaf while
			// its line is in cache (exactResult's check). A key
			// decorated without its hash (Hashed false) is checked
			// after the walk instead, so that the hash is computed
			// only for a hit, as Get does.
			p.Check, p.CheckFlags = byte(k.Hash2), 0
			if k.Hashed {
				p.CheckFlags = flagHasHashByte
			}
			bs.lane[n] = i
			n++
		}
		if whole {
			// Slice the whole encodings out only now: appending may have
			// moved enc.
			start := 0
			for j := 0; j < n; j++ {
				if bs.ends[j] >= 0 {
					bs.probes[j].Key, bs.probes[j].Partial = bs.enc[start:bs.ends[j]], false
					start = bs.ends[j]
				}
			}
		}
		if cold {
			r.walker.ExactBatchCold(bs.probes[:n])
		} else {
			r.walker.ExactBatch(bs.probes[:n])
		}
		for j := 0; j < n; j++ {
			p := &bs.probes[j]
			var res Result
			switch {
			case p.OK && p.CheckFlags != 0 && p.Flags >= flagHasHashByte && len(p.Payload) > 8:
				// A hit whose hash byte the walk checked: exactResult's
				// leading case without the check.
				res.Pos, res.OK = int64(binary.BigEndian.Uint64(p.Payload[1:]))>>(64-8*uint(p.Flags-7)), true
			case p.Mismatch && len(p.Payload) > 8:
				// The hash byte differs: exactResult's miss.
			case p.More:
				res.Pos, res.OK, res.Err = r.get(&chunk[bs.lane[j]]) // the walk reached the raw key bytes
			default:
				// Everything else as Get: no candidate, an error, a
				// payload near the trie's end or without a hash byte, or
				// a key whose hash the walk did not check.
				res.Pos, res.OK, res.Err = exactResult(&chunk[bs.lane[j]], p.Node, p.OK || p.Mismatch, p.Flags, p.Payload, p.Err)
			}
			dst[base+bs.lane[j]] = res
			p.Key, p.Payload = nil, nil // keep no reference to the index's memory
		}
	}
	return dst
}

// batchState returns the handle's batch scratch, allocating it on first use
// (about 17 KB: handles that never batch do not pay for it).
func (r *Reader) batchState() *batchState {
	if r.batch == nil {
		r.batch = new(batchState)
	}
	return r.batch
}

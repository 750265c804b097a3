package trie

// Probe is one exact lookup of a batch (Walker.ExactBatch). The caller sets
// Key and Partial; ExactBatch sets the rest.
type Probe struct {
	Key     []byte // the key, or with Partial a prefix of it
	Partial bool   // Key is a prefix: answer as ExactPrefix does

	Node    int64  // as Exact/ExactPrefix return them
	OK      bool   //
	More    bool   // Partial only: the walk needs the byte after Key
	Err     error  //
	Flags   uint8  // after a hit: the node's payload, as Walker.Payload
	Payload []byte //
}

// ExactBatch answers every probe exactly as Exact (or ExactPrefix, for a
// Partial probe) answers it, but keeps batchLanes walks in flight at once.
//
// A walk over a large index is a chain of dependent cache misses, so the
// batch's throughput comes from overlapping the chains of several walks.
// The lanes take turns: a lane's turn decodes the node its last turn
// prefetched and prefetches the one it visits next, so by the time its turn
// comes round again, batchLanes-1 other turns later, that miss has had time
// to complete. A lane whose walk ends writes its probe's answer and at once
// takes the next probe (asynchronous memory access chaining, AMAC): the
// lanes never wait for the slowest walk of a group, so as many misses stay
// in flight at the end of a batch as in its middle, until the probes run
// out.
//
// On amd64 the prefetch is PREFETCHT0 (Go has no intrinsic; see
// prefetch_amd64.s), which retires at once; elsewhere it is a load, and the
// processor's reorder window bounds the overlap. A trie with a jump table
// starts each probe below it, as Exact does. ExactBatch allocates nothing.
func (w *Walker) ExactBatch(probes []Probe) { w.exactBatch(probes, false) }

// ExactBatchCold is ExactBatch for a trie whose bytes are mostly not in
// memory yet: a file mapping outside the page cache. There a walk's next
// node costs a page fault, and a fault holds its thread until the read is
// done, so a prefetch (which a fault cancels) overlaps nothing. Instead,
// whenever a lane learns where its next node lies, ExactBatchCold asks the
// kernel to read that page ahead (madvise MADV_WILLNEED, which for a file
// mapping starts the read and returns), so the reads of all the lanes are
// in flight together and the lane's next turn finds its page read or
// arriving. That is a system call per node step: on a trie already in
// memory it is several times slower than ExactBatch. Elsewhere than on
// unix it is ExactBatch.
func (w *Walker) ExactBatchCold(probes []Probe) { w.exactBatch(probes, true) }

// exactBatch is ExactBatch, or with cold ExactBatchCold.
func (w *Walker) exactBatch(probes []Probe, cold bool) {
	var lanes [batchLanes]lane
	n, next := 0, 0
	f := w.t.src.File
	whole := w.t.src.Tail == nil // every readable node lies in f
	var touch byte               // the prefetches' results, kept in w.touch at the end
	// Prefetches wait in pf until a few have gathered: a call spills the
	// loop's live values, so one call per pfFlush turns instead of one or
	// two per turn keeps the decoding in registers; the delay is a few
	// turns of the batchLanes a miss has to complete in.
	var pf [max(pfFlush+2, batchLanes)]int64 // offsets in f
	npf := 0
	for n < batchLanes && next < len(probes) {
		l := &lanes[n]
		l.pos, l.k = w.startProbe(&probes[next])
		l.i = next
		if c := l.pos; cold && whole && c >= 0 && c < int64(len(f)) {
			pf[npf], npf = c, npf+1
		} else {
			w.prefetchNode(c)
		}
		n, next = n+1, next+1
	}
	for n > 0 {
		for x := 0; x < n; {
			if npf >= min(pfFlush, n) {
				if cold {
					willNeed(f, pf[:npf])
				} else {
					touch ^= prefetchOffsets(f, pf[:npf])
				}
				npf = 0
			}
			l := &lanes[x]
			p := &probes[l.i]
			pos, k := l.pos, l.k
			b := eos
			if k < len(p.Key) {
				b = int(p.Key[k])
			} else if p.Partial {
				p.More = true
				goto done
			}
			if b == eos || !whole || pos < 0 || pos >= int64(len(f)) {
				goto general // eos, an early-open view, or an unreadable node
			}
			// The steps of the node types a partition index of hashed
			// keys consists of: a manually inlined version of exactFile's
			// loop body (walkfile.go), which FuzzExactFastPath ties to the
			// general decoder through checkBatch. Anything irregular goes
			// to general, exactStep, which gives exact's answer and error.
			{
				seg := f[pos:]
				h := seg[0]
				flags := h & 0xF
				switch nodeType(h >> 4) {
				case payloadOnly:
					if flags != 0 {
						p.Node, p.OK, p.Flags, p.Payload = pos, true, flags, seg[1:]
					}
					goto done
				case singleNoPayload4, singleNoPayload12:
					first, d := 0, int64(flags)
					if nodeType(h>>4) == singleNoPayload4 {
						if len(seg) < 2 {
							goto general
						}
						first = int(seg[1])
					} else {
						if len(seg) < 3 {
							goto general
						}
						first, d = int(seg[2]), d<<8|int64(seg[1])
					}
					if b != first {
						goto done // one child, no payload: never a candidate
					}
					if d == 0 || d > pos {
						goto general
					}
					l.pos, l.k, l.wait = pos-d, k+1, false
				case sparse8:
					if len(seg) < 2 {
						goto general
					}
					n := int(seg[1])
					ppos := 2 + 2*n
					if len(seg) < ppos {
						goto general
					}
					if !l.wait && far(pos, ppos-1) {
						// The transitions and pointers run past the lines
						// the lane prefetched: fetch the last one and come
						// back to this node on the lane's next turn.
						pf[npf], npf = pos+int64(ppos)-1, npf+1
						l.wait = true
						x++
						continue
					}
					found := searchSparse(seg[2:2+n], b)
					if found < 0 {
						// No child for b (a byte): a candidate only if
						// the node has no children and a payload.
						if n == 0 && flags != 0 {
							p.Node, p.OK, p.Flags, p.Payload = pos, true, flags, seg[ppos:]
						}
						goto done
					}
					d := int64(seg[ppos-n+found])
					if d == 0 || d > pos {
						goto general
					}
					l.pos, l.k, l.wait = pos-d, k+1, false
				case dense12, dense16, dense24:
					if len(seg) < 3 {
						goto general
					}
					first, n := int(seg[1]), int(seg[2])+1
					t := nodeType(h >> 4)
					var ppos, width int // width: bytes per slot
					switch t {
					case dense12:
						ppos, width = 3+(3*n+1)/2, 2 // read12 reads two bytes
					case dense16:
						ppos, width = 3+2*n, 2
					default:
						ppos, width = 3+3*n, 3
					}
					if len(seg) < ppos {
						goto general
					}
					si := b - first
					if si < 0 || si >= n {
						goto done // no slot for b, in a node with children
					}
					at := 3 + 3*si/2 // the slot's first byte
					if t != dense12 {
						at = 3 + width*si
					}
					if !l.wait && (far(pos, at) || far(pos, at+width-1)) {
						// A wide node: b's slot lies beyond the lines the
						// lane prefetched. Fetch it (a slot may straddle
						// two lines) and decode the node again on the
						// lane's next turn, when the slot is there.
						pf[npf], pf[npf+1], npf = pos+int64(at), pos+int64(at+width-1), npf+2
						l.wait = true
						x++
						continue
					}
					var d uint64 // denseSlot, written here
					switch t {
					case dense12:
						d = read12(seg[3:], si)
					case dense16:
						d = uint64(seg[at])<<8 | uint64(seg[at+1])
					default:
						d = uint64(seg[at])<<16 | uint64(seg[at+1])<<8 | uint64(seg[at+2])
					}
					if d == 0 {
						goto done // a hole: no child for b
					}
					if d > uint64(pos) {
						goto general
					}
					l.pos, l.k, l.wait = pos-int64(d), k+1, false
				default:
					goto general
				}
				// prefetchNode for a node in f (every child lies below
				// its parent, so l.pos is in f).
				c := l.pos
				pf[npf], npf = c, npf+1
				if e := c + nodeHead - 1; e&^63 != c&^63 && e < int64(len(f)) {
					pf[npf], npf = e, npf+1
				}
				x++
				continue
			}
		general:
			// One step of any node through the general decoder; the lane
			// stays in the round.
			{
				c, err := w.exactStep(pos, b)
				if err != nil {
					p.Err = err
					goto done
				}
				if c < 0 {
					if w.flags != 0 {
						p.Node, p.OK, p.Flags, p.Payload = pos, true, w.flags, w.payload
					}
					goto done
				}
				l.pos, l.k, l.wait = c, k+1, false
				w.prefetchNode(c)
				x++
				continue
			}
		done:
			if next < len(probes) {
				// Refill: the lane takes the next probe at once.
				c, k := w.startProbe(&probes[next])
				l.pos, l.k, l.i, l.wait = c, k, next, false
				next++
				x++
				if whole && c >= 0 && c < int64(len(f)) {
					pf[npf], npf = c, npf+1
					if e := c + nodeHead - 1; e&^63 != c&^63 && e < int64(len(f)) {
						pf[npf], npf = e, npf+1
					}
				} else {
					w.prefetchNode(c)
				}
				continue
			}
			n--
			lanes[x] = lanes[n]
		}
	}
	w.touch ^= touch
}

// batchLanes is how many walks ExactBatch keeps in flight.
const batchLanes = 16

// pfFlush is how many prefetches ExactBatch gathers before it issues them.
const pfFlush = 4

// nodeHead is how many bytes from a node's position prefetchNode fetches
// the lines of: a leaf's header, hash byte and position (10 bytes), a
// single's 2 or 3, a SPARSE_8 of up to 7 children. A wider node's step
// fetches the rest itself.
const nodeHead = 16

// far reports whether the byte off bytes into the node at pos lies outside
// the lines prefetchNode fetched for it.
func far(pos int64, off int) bool {
	line := (pos + int64(off)) &^ 63
	return line != pos&^63 && line != (pos+nodeHead-1)&^63
}

// lane is one walk of ExactBatch in flight.
type lane struct {
	pos  int64 // the node the walk visits next
	k    int   // key bytes consumed
	i    int   // the probe
	wait bool  // the node's far bytes were prefetched on the lane's last turn
}

// startProbe resets p's answer and returns where its walk starts: the root,
// or where the jump table sends it.
func (w *Walker) startProbe(p *Probe) (pos int64, k int) {
	p.Node, p.OK, p.More, p.Err, p.Flags, p.Payload = -1, false, false, nil, 0, nil
	if j := w.t.jump; j != nil && j.covers(p.Key) {
		n := len(j.prefix)
		if e := j.next[int(p.Key[n])<<8|int(p.Key[n+1])]; e != 0 {
			return int64(e) - 1, j.depth
		}
	}
	return w.t.root, 0
}

// prefetchNode starts the misses of the lines holding the first nodeHead
// bytes of the node at pos (two lines when they straddle one), when they
// are readable.
func (w *Walker) prefetchNode(pos int64) {
	seg, _ := w.t.src.segment(pos)
	if len(seg) == 0 {
		return
	}
	w.touch ^= prefetch(&seg[0])
	if e := min(nodeHead, len(seg)) - 1; (pos+int64(e))&^63 != pos&^63 {
		w.touch ^= prefetch(&seg[e])
	}
}

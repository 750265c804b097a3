package trie

// Probe is one exact lookup of a batch (Walker.ExactBatch). The caller sets
// Key, Partial and, if it wants the check, Check and CheckFlags; ExactBatch
// sets the rest.
type Probe struct {
	Key     []byte // the key, or with Partial a prefix of it
	Partial bool   // Key is a prefix: answer as ExactPrefix does
	// With CheckFlags not 0, a hit whose payload flags are CheckFlags or
	// more and whose payload starts with a byte other than Check is no
	// hit: OK is false and Mismatch true, Node, Flags and Payload are the
	// hit's. (The partition index checks its hash byte this way while the
	// leaf is in cache, instead of reading it again after the batch.)
	Check      byte
	CheckFlags uint8

	Node     int64  // as Exact/ExactPrefix return them
	OK       bool   //
	More     bool   // Partial only: the walk needs the byte after Key
	Err      error  //
	Mismatch bool   // a hit that failed the check (OK is false)
	Flags    uint8  // after a hit: the node's payload, as Walker.Payload
	Payload  []byte //
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
// mapping starts the read and returns), once per page and call, so the
// reads of all the lanes are in flight together and the lane's next turn
// finds its page read or arriving. It keeps coldLanes walks in flight, more
// than ExactBatch, because a read from storage takes far longer than a
// cache miss. That is a system call per new page a walk reaches: on a trie
// already in memory it is several times slower than ExactBatch. Elsewhere
// than on unix it is ExactBatch without prefetches.
func (w *Walker) ExactBatchCold(probes []Probe) { w.exactBatch(probes, true) }

const (
	// batchLanes is how many walks ExactBatch keeps in flight.
	batchLanes = 16
	// coldLanes is how many walks ExactBatchCold keeps in flight.
	coldLanes = 32
	// pfFlush is how many prefetches the lane loop gathers before it
	// returns to have them issued (see batchRun.turns).
	pfFlush = 4
	// nodeHead is how many bytes from a node's position a lane prefetches
	// the lines of: a leaf's header, hash byte and position (10 bytes), a
	// single's 2 or 3, a SPARSE_8 of up to 7 children. A wider node's step
	// fetches the rest itself.
	nodeHead = 16
)

// lane is one walk of a batch in flight.
type lane struct {
	key     []byte // the probe's Key
	pos     int64  // the node the walk visits next
	k       int    // key bytes consumed
	i       int    // the probe
	partial bool   // the probe's Partial
	wait    uint8  // the node's far bytes prefetched on the lane's last turns: 0 none, 1 what a first look needs, 2 a SPARSE pointer too
}

// batchRun is one ExactBatch call in progress: the lanes, and the
// prefetches the lane loop has gathered for exactBatch to issue.
type batchRun struct {
	probes []Probe
	f      []byte // the file, or nil for a trie with a tail: then every step is general
	jump   *jumpTable
	root   int64
	lanes  [coldLanes]lane
	n      int                    // lanes in flight
	x      int                    // the lane whose turn is next
	next   int                    // the next probe to start
	pf     [pfFlush - 1 + 4]int64 // below pfFlush, then a turn's most: four SPARSE transition lines
	npf    int                    // prefetches gathered in pf (offsets in f)
	cold   bool                   // ExactBatchCold: pf goes to pages, not to prefetchOffsets
	pages  willNeedPages
	touch  byte // the prefetches' results, kept in w.touch at the end
}

// The events on which the lane loop returns to exactBatch.
const (
	batchFlush   = iota // pf holds pfFlush or more prefetches (or one per lane left)
	batchGeneral        // lane x needs a general step
	batchDone           // no lane is in flight
)

// exactBatch is ExactBatch, or with cold ExactBatchCold. The lane loop
// (turns) makes no call; what needs one, issuing the gathered prefetches
// and a general step, it returns here for, and then goes on where it left.
func (w *Walker) exactBatch(probes []Probe, cold bool) {
	r := batchRun{probes: probes, jump: w.t.jump, root: w.t.root, cold: cold}
	if w.t.src.Tail == nil {
		r.f = w.t.src.File
	}
	lanes := batchLanes
	if cold {
		lanes = coldLanes
	}
	for r.n < lanes && r.next < len(probes) {
		r.start(&r.lanes[r.n])
		r.n++
		if r.npf >= pfFlush {
			r.issue()
		}
	}
	r.issue() // the last lanes' first nodes, before their first turns
	for r.n > 0 {
		switch r.turns() {
		case batchFlush:
			r.issue()
		case batchGeneral:
			w.generalTurn(&r)
		}
	}
	w.touch ^= r.touch
}

// issue issues the gathered prefetches: PREFETCHT0, or for a cold batch
// MADV_WILLNEED for the pages not asked for yet.
func (r *batchRun) issue() {
	if r.cold {
		r.pages.ask(r.f, r.pf[:r.npf])
	} else {
		r.touch ^= prefetchOffsets(r.f, r.pf[:r.npf])
	}
	r.npf = 0
}

// generalTurn is lane r.x's turn through the general decoder: one
// exactStep for a node the lane loop does not decode, an irregular one, or
// the end of a whole key (eos); the lane then goes on in the lane loop.
func (w *Walker) generalTurn(r *batchRun) {
	l := &r.lanes[r.x]
	p := &r.probes[l.i]
	b := eos
	if l.k < len(l.key) {
		b = int(l.key[l.k])
	}
	c, err := w.exactStep(l.pos, b)
	switch {
	case err != nil:
		p.Err = err
	case c < 0:
		if w.flags != 0 {
			flags, payload := w.Payload()
			p.hit(l.pos, flags, payload)
		}
	default:
		l.pos, l.k, l.wait = c, l.k+1, 0
		r.pushNode(c)
		r.x++
		return
	}
	r.finish()
}

// hit records a hit at node with the node's payload, applying the check.
func (p *Probe) hit(node int64, flags uint8, payload []byte) {
	p.Node, p.Flags, p.Payload = node, flags, payload
	if p.CheckFlags != 0 && flags >= p.CheckFlags && len(payload) > 0 && payload[0] != p.Check {
		p.Mismatch = true
		return
	}
	p.OK = true
}

// start resets the answer of probe r.next and starts its walk in l: from
// the root, or where the jump table sends it (as exactFile starts).
func (r *batchRun) start(l *lane) {
	p := &r.probes[r.next]
	p.Node, p.OK, p.More, p.Err, p.Mismatch, p.Flags, p.Payload = -1, false, false, nil, false, 0, nil
	l.key, l.partial, l.i, l.wait = p.Key, p.Partial, r.next, 0
	l.pos, l.k = r.root, 0
	if j, v := r.jump, r.jump.entry(p.Key); v >= 0 {
		l.pos, l.k = int64(j.next[v])-1, j.depth
	}
	r.next++
	r.pushNode(l.pos)
}

// finish ends lane r.x's walk: the lane takes the next probe, or leaves
// the loop when there is none.
func (r *batchRun) finish() {
	if r.next < len(r.probes) {
		r.start(&r.lanes[r.x])
		r.x++
		return
	}
	r.n--
	r.lanes[r.x] = r.lanes[r.n]
}

// pushNode gathers the prefetches of the lines holding the first nodeHead
// bytes of the node at pos (two lines when they straddle one), when it lies
// in f.
func (r *batchRun) pushNode(pos int64) {
	if uint64(pos) >= uint64(len(r.f)) {
		return
	}
	r.pf[r.npf] = pos
	r.npf++
	if e := pos + nodeHead - 1; e&^63 != pos&^63 && e < int64(len(r.f)) {
		r.pf[r.npf] = e
		r.npf++
	}
}

// far reports whether the byte off bytes into the node at pos lies outside
// the lines pushNode gathered for it.
func far(pos int64, off int) bool {
	line := (pos + int64(off)) &^ 63
	return line != pos&^63 && line != (pos+nodeHead-1)&^63
}

// turns runs lane turns, round robin from lane r.x, until pf holds pfFlush
// prefetches (or as many as there are lanes), a lane needs a general step,
// or no lane is left, and returns which. It makes no call in any turn: each turn's node step is a manually
// inlined version of exactStep (walker.go; the same types and checks as
// exactFile's loop, walkfile.go), and a lane's refill is start's code
// written out. Anything it does not decode (another type, an irregular
// node, eos) it returns for, and exactBatch takes one general step
// (generalTurn). TestHotLoopsMatchGeneral and FuzzExactFastPath tie it to
// exactWalk.
func (r *batchRun) turns() int {
	f, probes := r.f, r.probes
	x, npf := r.x, r.npf
	// With fewer lanes than pfFlush left, a lane's turn comes round again
	// before pfFlush prefetches gather: issue them after as many turns.
	flushAt := min(pfFlush, r.n)
	for {
		if npf >= flushAt {
			r.x, r.npf = x, npf
			return batchFlush
		}
		if x >= r.n {
			if r.n == 0 {
				r.x, r.npf = 0, npf
				return batchDone
			}
			x = 0
		}
		l := &r.lanes[x]
		pos, k := l.pos, l.k
		var b int
		if k < len(l.key) {
			b = int(l.key[k])
		} else if l.partial {
			probes[l.i].More = true
			goto done
		} else {
			// eos: a general step.
			r.x, r.npf = x, npf
			return batchGeneral
		}
		if uint64(pos) >= uint64(len(f)) {
			r.x, r.npf = x, npf
			return batchGeneral
		}
		{
			seg := f[pos:]
			h := seg[0]
			flags := h & 0xF
			var c int64 // the child the step descends to
			switch t := nodeType(h >> 4); t {
			case payloadOnly:
				if flags != 0 {
					probes[l.i].hit(pos, flags, seg[1:])
				}
				goto done
			case singleNoPayload4, singleNoPayload12:
				first, d, fits := singleChild(t, seg)
				if !fits {
					goto general
				}
				if b != first {
					goto done // one child, no payload: never a candidate
				}
				if d == 0 || d > pos {
					goto general
				}
				c = pos - d
			case sparse8, sparse12, sparse16:
				if len(seg) < 2 {
					goto general
				}
				n := int(seg[1])
				ppos := sparseFixed(t, n)
				if len(seg) < ppos {
					goto general
				}
				// pushNode gathered the node's lines up to head. A first
				// look fetches the rest of the fixed part up to fetched:
				// all of it when that is at most four more lines, else the
				// transitions (at most four lines: n < 256), and then the
				// pointer the search finds.
				head := (pos + nodeHead - 1) &^ 63
				fetched := max(head, (pos+int64(ppos)-1)&^63) // a small node may end in the line before head
				if fetched-head > 4*64 {
					fetched = max(head, (pos+1+int64(n))&^63)
				}
				if l.wait == 0 && fetched != head {
					for ln := head + 64; ln <= fetched; ln += 64 {
						r.pf[npf] = ln
						npf++
					}
					l.wait = 1
					goto later
				}
				found := searchSparse(seg[2:2+n], b)
				if found < 0 {
					// No child for b (a byte): a candidate only if the node
					// has no children and a payload.
					if n == 0 && flags != 0 {
						probes[l.i].hit(pos, flags, seg[ppos:])
					}
					goto done
				}
				if l.wait < 2 {
					// found's pointer (up to two bytes) lies beyond the
					// lines fetched so far: fetch it, search again on the
					// lane's next turn (from lines in cache by then).
					at, width := int64(2+n+found), int64(1) // the pointer's first byte, its bytes read
					switch t {
					case sparse12:
						at, width = int64(2+n+3*found/2), 2 // read12 reads two bytes
					case sparse16:
						at, width = at+int64(found), 2
					}
					if e := pos + at + width - 1; e&^63 > fetched {
						r.pf[npf], r.pf[npf+1] = pos+at, e
						npf += 2
						l.wait = 2
						goto later
					}
				}
				d := int64(sparseSlot(t, seg, n, found))
				if d == 0 || d > pos {
					goto general
				}
				c = pos - d
			case dense12, dense16, dense24:
				if len(seg) < 3 {
					goto general
				}
				first, n := int(seg[1]), int(seg[2])+1
				if len(seg) < denseFixed(t, n) {
					goto general
				}
				si := b - first
				if si < 0 || si >= n {
					goto done // no slot for b, in a node with children
				}
				at, width := 3+2*si, 2 // the slot's first byte, its bytes read
				switch t {
				case dense12:
					at = 3 + 3*si/2 // read12 reads two bytes
				case dense24:
					at, width = 3+3*si, 3
				}
				if l.wait == 0 && (far(pos, at) || far(pos, at+width-1)) {
					// A wide node: b's slot lies beyond the lines the lane
					// prefetched. Fetch it (a slot may straddle two lines)
					// and decode the node again on the lane's next turn.
					r.pf[npf], r.pf[npf+1] = pos+int64(at), pos+int64(at+width-1)
					npf += 2
					l.wait = 1
					goto later
				}
				d := denseSlot(t, seg, si)
				if d == 0 {
					goto done // a hole: no child for b
				}
				if d > uint64(pos) {
					goto general
				}
				c = pos - int64(d)
			default:
				goto general
			}
			l.pos, l.k, l.wait = c, k+1, 0
			goto push
		}
	general:
		r.x, r.npf = x, npf
		return batchGeneral
	done:
		// The lane takes the next probe (start, written here), or leaves.
		if r.next < len(probes) {
			p := &probes[r.next]
			p.Node, p.OK, p.More, p.Err, p.Mismatch, p.Flags, p.Payload = -1, false, false, nil, false, 0, nil
			l.key, l.partial, l.i, l.wait = p.Key, p.Partial, r.next, 0
			l.pos, l.k = r.root, 0
			if j, v := r.jump, r.jump.entry(p.Key); v >= 0 {
				l.pos, l.k = int64(j.next[v])-1, j.depth
			}
			r.next++
			goto push
		}
		r.n--
		r.lanes[x] = r.lanes[r.n]
		flushAt = min(pfFlush, r.n)
		continue
	later:
		// The lane comes back to this node on its next turn, when the
		// lines just gathered have had the other lanes' turns to arrive.
		x++
		continue
	push:
		// The lane's next node, l.pos: pushNode, written here.
		if c := l.pos; uint64(c) < uint64(len(f)) {
			r.pf[npf] = c
			npf++
			if e := c + nodeHead - 1; e&^63 != c&^63 && e < int64(len(f)) {
				r.pf[npf] = e
				npf++
			}
		}
		x++
	}
}

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

	pos int64 // the node the walk visits next
	k   int   // key bytes consumed
}

// ExactBatch answers every probe exactly as Exact (or ExactPrefix, for a
// Partial probe) answers it, but walks the probes together: round by round,
// each unfinished probe moves one node down and then prefetches the node it
// will visit next. That starts the probe's next cache miss, and since the
// following probes' steps do not depend on it, the misses of several walks
// overlap instead of coming one after the other. A walk over a large index
// is a chain of dependent misses, so this is where the batch's throughput
// comes from. On amd64 the prefetch is PREFETCHT0 (Go has no intrinsic; see
// prefetch_amd64.s), which retires at once, so several misses per probe can
// be in flight; elsewhere it is a load, and the processor's reorder window
// bounds the overlap. A trie with a jump table starts each probe below it,
// as Exact does. ExactBatch allocates nothing.
func (w *Walker) ExactBatch(probes []Probe) {
	for len(probes) > 0 {
		n := min(len(probes), maxLanes)
		w.exactLanes(probes[:n])
		probes = probes[n:]
	}
}

// maxLanes bounds the walks ExactBatch interleaves at once (more overlap
// nothing: the processor tracks only so many misses).
const maxLanes = 64

// exactLanes walks up to maxLanes probes together. live lists the unfinished
// ones; a finished probe is swapped out, so a round visits only live lanes.
func (w *Walker) exactLanes(probes []Probe) {
	if w.t.src.Tail == nil {
		w.exactLanesFile(probes)
		return
	}
	var live [maxLanes]uint8
	for i := range probes {
		p := &probes[i]
		p.Node, p.OK, p.More, p.Err, p.Flags, p.Payload = -1, false, false, nil, 0, nil
		p.pos, p.k = w.t.root, 0
		live[i] = uint8(i)
	}
	for n := len(probes); n > 0; {
		for j := 0; j < n; {
			if w.stepProbe(&probes[live[j]]) {
				n--
				live[j] = live[n]
				continue
			}
			j++
		}
	}
}

// stepProbe moves p one node down (the body of exact's loop) and reports
// whether its walk is over.
func (w *Walker) stepProbe(p *Probe) bool {
	b := eos
	if p.k < len(p.Key) {
		b = int(p.Key[p.k])
	} else if p.Partial {
		p.More = true
		return true
	}
	seg, _ := w.t.src.segment(p.pos)
	next, err := w.exactStep(p.pos, seg, b)
	if err != nil {
		p.Err = err
		return true
	}
	if next < 0 {
		if w.flags != 0 {
			p.Node, p.OK, p.Flags, p.Payload = p.pos, true, w.flags, w.payload
		}
		return true
	}
	p.pos, p.k = next, p.k+1
	if seg, _ := w.t.src.segment(next); len(seg) != 0 {
		w.touch ^= prefetch(&seg[0]) // start the miss now; the next round decodes the node
	}
	return false
}

// exactLanesFile is exactLanes over a complete file. A round steps every
// live lane through the node types exactFile decodes, written into the loop
// as there (no call, so nothing is spilled around one), and then prefetches
// the node each lane visits next. A lane that meets any other type or an
// irregular case leaves the round robin and is answered by Exact (or
// ExactPrefix) afterwards: its walk is a function of the bytes, so the
// answer is the one Exact gives.
func (w *Walker) exactLanesFile(probes []Probe) {
	f := w.t.src.File
	j := w.t.jump
	var live, slow [maxLanes]uint8
	var at [maxLanes]int64 // each lane's p.pos, kept here during the rounds
	var ks [maxLanes]int   // and its p.k
	nslow := 0
	for i := range probes {
		p := &probes[i]
		p.Node, p.OK, p.More, p.Err, p.Flags, p.Payload = -1, false, false, nil, 0, nil
		pos, k := w.t.root, 0
		if j != nil && j.covers(p.Key) {
			n := len(j.prefix)
			if e := j.next[int(p.Key[n])<<8|int(p.Key[n+1])]; e != 0 {
				pos, k = int64(e)-1, j.depth
				if pos >= 128 && pos+32 < int64(len(f)) {
					w.touch ^= prefetchSpan(f[pos-128 : pos+33])
				}
			}
		}
		at[i], ks[i] = pos, k
		live[i] = uint8(i)
	}
	for n := len(probes); n > 0; {
		for x := 0; x < n; {
			i := live[x]
			p := &probes[i]
			pos, k := at[i], ks[i]
			if k >= len(p.Key) || pos < 0 || pos >= int64(len(f)) {
				goto slowLane // eos, a partial key's end, or an unreadable node
			}
			{
				b := int(p.Key[k])
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
							goto slowLane
						}
						first = int(seg[1])
					} else {
						if len(seg) < 3 {
							goto slowLane
						}
						first, d = int(seg[2]), d<<8|int64(seg[1])
					}
					if b != first {
						goto done // one child, no payload: never a candidate
					}
					if d == 0 || d > pos {
						goto slowLane
					}
					at[i], ks[i] = pos-d, k+1
				case sparse8:
					if len(seg) < 2 {
						goto slowLane
					}
					n := int(seg[1])
					ppos := 2 + 2*n
					if len(seg) < ppos {
						goto slowLane
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
						goto slowLane
					}
					at[i], ks[i] = pos-d, k+1
				case dense12, dense16, dense24:
					if len(seg) < 3 {
						goto slowLane
					}
					first, n := int(seg[1]), int(seg[2])+1
					var ppos int
					var d uint64
					si := b - first
					if nodeType(h>>4) == dense12 {
						ppos = 3 + (3*n+1)/2
						if len(seg) < ppos {
							goto slowLane
						}
						if si >= 0 && si < n {
							d = read12(seg[3:], si)
						}
					} else if nodeType(h>>4) == dense16 {
						ppos = 3 + 2*n
						if len(seg) < ppos {
							goto slowLane
						}
						if si >= 0 && si < n {
							d = uint64(seg[3+2*si])<<8 | uint64(seg[4+2*si])
						}
					} else {
						ppos = 3 + 3*n
						if len(seg) < ppos {
							goto slowLane
						}
						if si >= 0 && si < n {
							d = uint64(seg[3+3*si])<<16 | uint64(seg[4+3*si])<<8 | uint64(seg[5+3*si])
						}
					}
					if d == 0 {
						goto done // a byte without a child, in a node with children
					}
					if d > uint64(pos) {
						goto slowLane
					}
					at[i], ks[i] = pos-int64(d), k+1
				default:
					goto slowLane
				}
			}
			x++
			continue
		slowLane:
			slow[nslow] = live[x]
			nslow++
		done:
			n--
			live[x] = live[n]
		}
		// Start the misses of the nodes the next round reads.
		for x := 0; x < n; x++ {
			w.touch ^= prefetch(&f[at[live[x]]])
		}
	}
	for _, i := range slow[:nslow] {
		p := &probes[i]
		p.Node, p.OK, p.More, p.Err = w.exact(p.Key, p.Partial)
		if p.OK {
			p.Flags, p.Payload = w.Payload()
		}
	}
}

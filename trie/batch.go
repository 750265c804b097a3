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

	pos int64  // the node the walk visits next
	seg []byte // its segment bytes (nil when unreadable)
	k   int    // key bytes consumed
	hdr byte   // what prefetch returned (see ExactBatch)
}

// ExactBatch answers every probe exactly as Exact (or ExactPrefix, for a
// Partial probe) answers it, but walks the probes together: round by round,
// each unfinished probe moves one node down and then prefetches the node it
// will visit next. That starts the probe's next cache miss, and since the
// following probes' steps do not depend on it, the misses of several walks
// overlap instead of coming one after the other. A walk over a large index
// is a chain of dependent misses, so this is where the batch's throughput
// comes from. On amd64 the prefetch is PREFETCHT0 (Go has no intrinsic; see
// prefetch_amd64.s), which retires at once, so up to one miss per probe is
// in flight; elsewhere it is a load of the header byte, and the processor's
// reorder window bounds the overlap. ExactBatch allocates nothing.
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
	var live [maxLanes]uint8
	root := w.t.root
	rootSeg, _ := w.t.src.segment(root)
	for i := range probes {
		p := &probes[i]
		p.Node, p.OK, p.More, p.Err, p.Flags, p.Payload = -1, false, false, nil, 0, nil
		p.pos, p.seg, p.k = root, rootSeg, 0
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
	next, err := w.exactStep(p.pos, p.seg, b)
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
	p.seg, _ = w.t.src.segment(next)
	if len(p.seg) != 0 {
		p.hdr = prefetch(&p.seg[0]) // start the miss now; the next round decodes the node
	}
	return false
}

package trie

import (
	"bytes"
	"math/rand"
	"testing"
)

// refExact is Exact as the general decoder answers it (the walk before the
// inline fast paths): the oracle the fast paths are checked against.
func refExact(t *Trie, key []byte) (node int64, ok bool, err error) {
	var nv nodeView
	if err := nv.load(&t.src, t.root); err != nil {
		return -1, false, err
	}
	for k := 0; ; k++ {
		b := keyByte(key, k)
		i := nv.search(b)
		if i < 0 {
			if (b == eos || nv.n == 0) && nv.flags != 0 {
				return nv.pos, true, nil
			}
			return -1, false, nil
		}
		c := nv.child(i)
		if c < 0 {
			if c == badPointer {
				return -1, false, corrupt(nv.pos, reasonBadPointer)
			}
			return -1, false, corrupt(nv.pos, reasonMissingChild)
		}
		if err := nv.load(&t.src, c); err != nil {
			return -1, false, err
		}
	}
}

// refCeiling is Ceiling as the general decoder answers it.
func refCeiling(t *Trie, key []byte) (atKey, greater int64, err error) {
	w := t.Walker()
	atKey, greater = -1, none
	if err := w.nv.load(&t.src, t.root); err != nil {
		return -1, -1, err
	}
	for k := 0; ; k++ {
		b := keyByte(key, k)
		i := w.nv.search(b)
		greater = w.nv.greaterTransition(i, greater)
		if greater == badPointer {
			return -1, -1, corrupt(w.nv.pos, reasonBadPointer)
		}
		if i < 0 {
			if (b == eos || w.nv.n == 0) && w.nv.flags != 0 {
				atKey = w.nv.pos
			}
			break
		}
		if err := w.descend(w.nv.child(i)); err != nil {
			return -1, -1, err
		}
	}
	if greater != none {
		if greater, err = w.goMin(greater); err != nil {
			return -1, -1, err
		}
	}
	return atKey, greater, nil
}

// checkExactPaths checks that Exact, its payload and ExactPrefix (cut at
// every length) agree with refExact and Trie.Payload for key.
func checkExactPaths(t *testing.T, tr *Trie, key []byte) {
	t.Helper()
	wantNode, wantOK, wantErr := refExact(tr, key)
	w := tr.Walker()
	node, ok, err := w.Exact(key)
	if node != wantNode || ok != wantOK || !sameError(err, wantErr) {
		t.Fatalf("Exact(%x) = %d %v %v, the general decoder says %d %v %v", key, node, ok, err, wantNode, wantOK, wantErr)
	}
	if ok {
		flags, payload := w.Payload()
		wantFlags, wantPayload, err := tr.Payload(node)
		if err != nil || flags != wantFlags || !bytes.Equal(payload, wantPayload) {
			t.Fatalf("Exact(%x): payload %x/%x, Trie.Payload %x/%x %v", key, flags, payload, wantFlags, wantPayload, err)
		}
	}
	type exactAnswer struct {
		node int64
		ok   bool
	}
	checkPrefixCuts(t, "ExactPrefix", key, exactAnswer{wantNode, wantOK}, wantErr, func(cut []byte) (exactAnswer, bool, error) {
		node, ok, more, err := w.ExactPrefix(cut)
		return exactAnswer{node, ok}, more, err
	})
	wantAt, wantGreater, wantErr := refCeiling(tr, key)
	if at, greater, err := w.Ceiling(key); at != wantAt || greater != wantGreater || !sameError(err, wantErr) {
		t.Fatalf("Ceiling(%x) = %d %d %v, the general decoder says %d %d %v", key, at, greater, err, wantAt, wantGreater, wantErr)
	}
	checkPrefixCuts(t, "CeilingPrefix", key, [2]int64{wantAt, wantGreater}, wantErr, func(cut []byte) ([2]int64, bool, error) {
		at, greater, more, err := w.CeilingPrefix(cut)
		return [2]int64{at, greater}, more, err
	})
}

// checkPrefixCuts feeds lookup, one of Walker's *Prefix methods, every cut
// of key and checks that each cut it answers (more false) gets want and
// wantErr, the whole key's answer: a walk that stops inside the cut answers
// for every key that starts with it.
func checkPrefixCuts[A comparable](t *testing.T, name string, key []byte, want A, wantErr error, lookup func(cut []byte) (got A, more bool, err error)) {
	t.Helper()
	for j := 0; j <= len(key); j++ {
		got, more, err := lookup(key[:j])
		if more {
			continue
		}
		if got != want || !sameError(err, wantErr) {
			t.Fatalf("%s(%x) of %x = %+v %v, the whole key gives %+v %v", name, key[:j], key, got, err, want, wantErr)
		}
	}
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// FuzzExactFastPath: arbitrary bytes, root and key; the hand-inlined hot
// loops (exactFile, ceilingFile, the batch lane loop) must answer exactly as
// the general decoder, errors included.
func FuzzExactFastPath(f *testing.F) {
	c := fileC()
	f.Add(c[:0x17], uint32(0x15), bop("ab"), false)
	d := fileD()
	f.Add(d[:0x1E], uint32(0x1C), []byte{0x40, 0x52}, true)
	chain, root := deepChain(30)
	f.Add(chain, uint32(root), []byte("xxxxxxxx"), false)
	// SPARSE_8 and DENSE_12/16/24 nodes over leaves.
	f.Add([]byte{0x01, 0x02, 0x03, 0x52, 0x10, 0x20, 0x03, 0x02}, uint32(4), []byte{0x20}, false)
	f.Add([]byte{0x01, 0x02, 0xA1, 0x10, 0x01, 0x00, 0x20, 0x10}, uint32(2), []byte{0x11}, true)
	f.Add([]byte{0x01, 0x02, 0xB1, 0x10, 0x01, 0x00, 0x02, 0x00, 0x00, 0x07}, uint32(2), []byte{0x10}, false)
	f.Add([]byte{0x01, 0x02, 0xC1, 0x10, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00}, uint32(2), []byte{0x10}, false)
	// A hashed-key trie, which gets a jump table.
	hashed := hashedEntries(rand.New(rand.NewSource(1)), 600)
	data, hroot := buildTrie(f, hashed, buildOpts{})
	f.Add(data, uint32(hroot), hashed[17].key, false)
	// The Writer's output with 64-byte pages: wide pointers, more types.
	var tiny bytes.Buffer
	tw := NewWriter(&tiny, Options{PageSize: 64})
	for _, e := range randomEntries(rand.New(rand.NewSource(4)), 200, 5, []byte("abcx")) {
		if err := tw.Add(e.key, e.flags, e.payload); err != nil {
			f.Fatal(err)
		}
	}
	troot, err := tw.Complete()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tiny.Bytes(), uint32(troot), []byte("abca"), false)
	f.Fuzz(func(t *testing.T, data []byte, root uint32, key []byte, split bool) {
		src := Source{File: data}
		if split && len(data) > 1 {
			cut := int(root>>16) % len(data)
			src = Source{File: data[:cut], Cutoff: int64(cut), Tail: data[cut:]}
		}
		tr, err := New(src, int64(root%(uint32(len(data))+1)))
		if err != nil {
			return
		}
		checkExactPaths(t, tr, key)
		if tj := tr.WithJumpTable(); tj.JumpTable() {
			checkExactPaths(t, tj, key)
			sameWalks(t, tj, tr, key)
		}
		// A batch of walks of different lengths that share prefixes, some
		// partial: each must get its single walk's answer.
		var keys [][]byte
		for j := 0; j <= len(key); j += 1 + j/2 {
			keys = append(keys, key[:j], append(key[j:j:j], key...))
		}
		checkBatch(t, tr, keys)
		// The hot loops against the general walks they mirror
		// (hotloop_test.go), on these bytes and with a jump table.
		if tr.src.Tail == nil {
			crossCheck(t, tr, keys)
			if tj := tr.WithJumpTable(); tj.JumpTable() {
				crossCheck(t, tj, keys)
			}
		}
	})
}

// checkBatch checks that ExactBatch and ExactBatchCold answer each key,
// whole and (every other one) as a prefix, exactly as Exact and ExactPrefix
// do.
func checkBatch(t *testing.T, tr *Trie, keys [][]byte) {
	t.Helper()
	checkBatchMode(t, tr, keys, false)
	checkBatchMode(t, tr, keys, true)
}

func checkBatchMode(t *testing.T, tr *Trie, keys [][]byte, cold bool) {
	t.Helper()
	w := tr.Walker()
	probes := make([]Probe, len(keys))
	for i, k := range keys {
		probes[i] = Probe{Key: k, Partial: i%2 == 1}
	}
	if cold {
		w.ExactBatchCold(probes)
	} else {
		w.ExactBatch(probes)
	}
	for i, p := range probes {
		var node int64
		var ok, more bool
		var err error
		if p.Partial {
			node, ok, more, err = w.ExactPrefix(p.Key)
		} else {
			node, ok, err = w.Exact(p.Key)
		}
		if more {
			if !p.More || p.Err != nil {
				t.Fatalf("probe %d (%x): batch more=%v err=%v, ExactPrefix asks for more", i, p.Key, p.More, p.Err)
			}
			continue
		}
		if p.More || p.Node != node || p.OK != ok || !sameError(p.Err, err) {
			t.Fatalf("probe %d (%x, partial %v): batch %d %v more=%v %v, single walk %d %v %v", i, p.Key, p.Partial, p.Node, p.OK, p.More, p.Err, node, ok, err)
		}
		if ok {
			flags, payload := w.Payload()
			if p.Flags != flags || !bytes.Equal(p.Payload, payload) {
				t.Fatalf("probe %d (%x): batch payload %x/%x, single walk %x/%x", i, p.Key, p.Flags, p.Payload, flags, payload)
			}
		}
	}
}

// More probes than ExactBatch keeps in flight (batchLanes, coldLanes for
// ExactBatchCold): each lane that
// finishes takes the next probe, and walks of different lengths finish out
// of order, so answers must land at their probe's index whatever order the
// walks end in. Every count around the lane count, and a long batch of
// mixed lengths (stops at the root, deep hits, misses, partial keys).
func TestExactBatchRefill(t *testing.T) {
	d := fileD()
	tr, err := New(Source{File: d[:0x1E]}, 0x1C)
	if err != nil {
		t.Fatal(err)
	}
	var keys [][]byte
	for a := 0; a < 256; a += 3 {
		for _, b := range []byte{0x00, 0x10, 0x52, 0xFF} {
			keys = append(keys, []byte{0x40, byte(a), b}, []byte{byte(a)}, nil, []byte{0x40, byte(a), b, 0x40, 0x40})
		}
	}
	if len(keys) <= 4*batchLanes {
		t.Fatalf("only %d keys", len(keys))
	}
	for _, n := range []int{0, 1, batchLanes - 1, batchLanes, batchLanes + 1, 2*batchLanes + 3, coldLanes - 1, coldLanes, coldLanes + 1, 2*coldLanes + 3} {
		checkBatch(t, tr, keys[:n])
	}
	hashed := hashedEntries(rand.New(rand.NewSource(2)), 3000)
	data, root := buildTrie(t, hashed, buildOpts{})
	ht, err := New(Source{File: data}, int64(root))
	if err != nil {
		t.Fatal(err)
	}
	var hk [][]byte
	for i, e := range hashed {
		switch i % 4 {
		case 0:
			hk = append(hk, e.key)
		case 1:
			hk = append(hk, e.key[:len(e.key)/2])
		case 2:
			hk = append(hk, append(append([]byte(nil), e.key...), 0x33))
		default:
			hk = append(hk, e.key[:1])
		}
	}
	checkBatch(t, ht, hk)
	if tj := ht.WithJumpTable(); tj.JumpTable() {
		checkBatch(t, tj, hk)
	}
	checkBatch(t, tr, keys)
}

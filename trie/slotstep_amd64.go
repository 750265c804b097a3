package trie

// slotStepFile is slotStep(s, pos, b) after starting to load the lines
// 128, 64 and 1 byte below pos in f (when they lie in f), in one call of
// assembly (slotstep_amd64.s). Those are the lines the node's leaves lie
// in (the writer lays a node out right after its children), so a hit's
// leaf is on its way while the slot is read instead of a second cache miss
// that waits for the slot's pointer. They are prefetches (PREFETCHT0),
// which unlike loads do not hold up the end of a walk: a miss, which never
// reads a leaf, does not wait for them (with loads, misses through slots
// took 129-157 ns instead of 88-92, bti bench --benchmark lookup
// --jump-slots, one fork, at c4dc527 and the first version of this). Then
// the slot's 32 transitions are compared with b at once
// (SSE2), the first one not below b taken (the transitions increase and
// the pads, 0xFF, are below no byte, so that is where slotSearch's count
// lands), and its pointer. touch is not written: a prefetch keeps no bytes.
// With the prefetch written in Go around a call of assembly, a hit took
// 385.9 instructions and a miss 275.9 (at 7e5ca32), against 353.4 and
// 248.6 before there was a prefetch (at 723c8c8), and 308.1 and 199.1 in
// this one call (at 385856d) (callgrind, 20,000 probes of 1M Murmur3 UUID
// keys through a //go:noinline wrapper of Reader.Get, driver /tmp/ldrv of
// the issue-22 note of 2026-12-06). TestSlotStepFile compares it with
// slotStep on every slot shape and byte.
//
//go:noescape
func slotStepFile(s *jumpSlot, f []byte, pos int64, b int, touch *byte) int64

// ceilingSlotStepFile is ceilingSlotStep(s, pos, greater, b) after
// slotStepFile's prefetch, in one call of assembly as slotStepFile is: the
// prefetch, the slot's transitions compared with b at once, then the
// pointers of the slot above b (ceiling's greater branch) and of b's own.
// touch is not written. A ceiling walk with slots took 460.8 instructions
// with the prefetch in Go around the Go step, 377.5 with this (callgrind,
// 20,000 CeilingCandidates of absent keys on 1M Murmur3 UUID keys, driver
// /tmp/ldrv of the issue-22 note of 2026-12-06, at 3263188 and the commit
// that made this change). TestCeilingSlotStepFile compares it with
// ceilingSlotStep on every slot shape, byte and pointer kind.
//
//go:noescape
func ceilingSlotStepFile(s *jumpSlot, f []byte, pos, greater int64, b int, touch *byte) (next, gr int64)

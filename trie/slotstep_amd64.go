package trie

// slotStepFile is slotStep(s, pos, b) after touchBelow(f, pos), in one
// call of assembly (slotstep_amd64.s): PREFETCHT0 of the lines below the
// node, where its leaves lie, so that a hit's leaf is on its way while the
// slot is read; then the slot's 32 transitions compared with b at once
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
// touchBelow(f, pos), in one call of assembly as slotStepFile is: the
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

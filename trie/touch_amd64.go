package trie

// touchAround starts loading the lines 128 and 64 bytes below position c
// in f and 32 above it, when they lie in f, and returns 0 (touch_amd64.s).
// The writer lays a node out right after its children, so the leaf the
// next step reads usually lies just below the node a DENSE step or the
// jump table sends the walk to, and its transitions may spill into the
// line above: starting those cache misses as soon as c is known overlaps
// them with c's own. They are prefetches (PREFETCHT0), as in the slot
// steps (slotStepFile), because a load holds up the end of a walk until
// its line arrives, so that a miss, which stops at the node and never
// reads its leaves, waited for them (the portable version, touch_other.go,
// still does).
//
//go:noescape
func touchAround(f []byte, c int64) byte

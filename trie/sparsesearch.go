package trie

// A SPARSE node's search on the walks' hot paths. searchSparse, the binary
// search every decoder uses, branches on each comparison of the key byte
// with a transition, and those branches go either way at random: on a
// million Murmur3 keys a hit's search in the SPARSE_8 node below the jump
// table mispredicted 2.7 branches (callgrind --branch-sim, at ffafb13), and
// with the bounds moved by masks instead of branches, the exit at the found
// slot still 1.1 (at 8d50c5a, whose masked searchSparse cost GetBatch 42
// instructions per key for 1.65 mispredicts fewer, and was undone).
// searchIncreasing compares the byte with up to 32 transitions at once
// (SSE2 on amd64) and counts those below it, which is where binary search
// lands when the transitions strictly increase, as a written trie's always
// do. It checks that they do in the same pass, and answers notIncreasing
// when they do not, or when the node is out of its range (more than 32
// transitions, eos, fewer than increasingSpan bytes from the first
// transition to the segment's end), so that the caller falls back to
// searchSparse: on any bytes the walks find what they found with
// searchSparse alone (TestSearchIncreasing, and the fast-path tests over
// damaged tries). exactFile and ceilingFile call it for every SPARSE node,
// then searchSparse on notIncreasing, written out in each: a function
// doing both is not inlined, and a call costs the loops every register
// (Go keeps none across a call).

// notIncreasing is searchIncreasing's answer for transitions that do not
// strictly increase: no answer of searchSparse (those lie in -33..32 here),
// and an int on 32-bit platforms too.
const notIncreasing = 1 << 30

// maxIncreasing is the most transitions searchIncreasing searches, and
// increasingSpan the bytes it reads from the first transition on.
const (
	maxIncreasing  = 32
	increasingSpan = maxIncreasing + 1
)

package trie

// touchPrefetches: amd64's touchAround prefetches and returns 0.
const touchPrefetches = true

//go:build !amd64

package trie

// touchPrefetches: the portable touchAround reads the bytes and returns them.
const touchPrefetches = false

package partitionindex

import "github.com/bti-go/bti/trie"

// countNodeTypes adds the node at pos and every node below it to into, by
// Cassandra's type name. It recurses: the exhaustive test's tries hold keys
// of at most a few bytes, and a child pointer that does not point strictly
// backwards is counted by trie.Trie.Shape, not followed, so the walk ends.
func countNodeTypes(tr *trie.Trie, pos int64, into map[string]int64) error {
	var s trie.Shape
	if err := tr.Shape(pos, &s); err != nil {
		return err
	}
	into[trie.TypeName(s.Type)]++
	for _, c := range s.Children {
		if err := countNodeTypes(tr, c.Pos, into); err != nil {
			return err
		}
	}
	return nil
}

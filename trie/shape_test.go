package trie

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countShapes adds the node at pos and every node below it to byType,
// through the tools' accessor Shape. It recurses: the tries it is used on
// are small and well formed (a bad pointer fails the test).
func countShapes(t testing.TB, tr *Trie, pos int64, byType *[16]int64) {
	t.Helper()
	var s Shape
	require.NoError(t, tr.Shape(pos, &s))
	require.Zero(t, s.BadPointers, "node @%x", pos)
	byType[s.Type]++
	for _, c := range s.Children {
		countShapes(t, tr, c.Pos, byType)
	}
}

// TestShapeWorkedC reads every node of docs/format.md §10.3's trie through
// Shape: the facts an audit checks beyond what a lookup decodes.
func TestShapeWorkedC(t *testing.T) {
	tr, _ := openIndex(t, fileC())
	var s Shape
	require.NoError(t, tr.Shape(0x0F, &s))
	assert.Equal(t, Shape{Pos: 0x0F, Header: 0xA0, Type: uint8(dense12), FixedSize: 6, Slots: 2,
		Children: []Child{{Transition: 0x61, Pos: 0x06}, {Transition: 0x62, Pos: 0x0C}}}, s)
	require.NoError(t, tr.Shape(0x06, &s))
	assert.Equal(t, Shape{Pos: 0x06, Header: 0x50, Type: uint8(sparse8), FixedSize: 6, Slots: 2,
		Children: []Child{{Transition: 0x00, Pos: 0x00}, {Transition: 0x62, Pos: 0x03}}}, s)
	require.NoError(t, tr.Shape(0x03, &s))
	assert.Equal(t, Shape{Pos: 0x03, Header: 0x08, Type: uint8(payloadOnly), Flags: 8, FixedSize: 1, Children: []Child{}}, s)

	var byType [16]int64
	countShapes(t, tr, tr.Root(), &byType)
	assert.Equal(t, [16]int64{payloadOnly: 3, singleNoPayload4: 1, sparse8: 1, dense12: 1}, byType)

	// A DENSE_12 whose first slot is empty and whose odd 12-bit value leaves
	// a non-zero low nibble; a pointer 0x30 back from 3 is counted, not kept.
	tr = mustNew(t, []byte{0x08, 1, 2, 0xA0, 'a', 1, 0x00, 0x00, 0x30}, 3)
	require.NoError(t, tr.Shape(3, &s))
	assert.Equal(t, 1, s.Holes)
	assert.True(t, s.EdgeHole)
	assert.Equal(t, 1, s.BadPointers)
	assert.Empty(t, s.Children)
	assert.Equal(t, 2, s.Slots)
}

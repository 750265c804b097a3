package rowindex_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/faultsink"
	"github.com/bti-go/bti/internal/refrows"
	"github.com/bti-go/bti/rowindex"
)

// TestCompleteEndsTheFile pins the writer's file-level verbs: Complete
// refuses a partition left unfinished, hands every byte over (retrying
// after a failed write), and after it Add and FinishPartition return
// ErrFinished; Reset starts a new file that is byte for byte a fresh
// writer's, and ResetPartition abandons a partition without ending the file;
// on both paths.
func TestCompleteEndsTheFile(t *testing.T) {
	cols, blocks := wideBlocks(40)
	want := cleanBuild(t, cols, blocks, 10, buildpath.Scratch)
	for _, path := range buildpath.All {
		sink := &failOnce{}
		w := refrows.New(path, sink, rowindex.Options{Columns: cols})
		addPartitions(t, w, blocks, 10)
		// A partition begun and abandoned leaves its blocks out of the file
		// (they were all pending: nothing of its trie was written).
		if err := w.Add(&blocks[0]); err != nil {
			t.Fatal(path, err)
		}
		if err := w.Complete(); !errors.Is(err, rowindex.ErrUnfinished) {
			t.Fatalf("%s: Complete with an unfinished partition: %v", path, err)
		}
		w.ResetPartition()

		sink.fail = true
		if err := w.Complete(); !errors.Is(err, faultsink.ErrDisk) {
			t.Fatalf("%s: Complete on a failing sink: %v", path, err)
		}
		if err := w.Complete(); err != nil {
			t.Fatalf("%s: retried Complete: %v", path, err)
		}
		if !bytes.Equal(sink.out.Bytes(), want) {
			t.Fatal(path, "the completed file differs from a clean build")
		}
		if err := w.Add(&blocks[0]); !errors.Is(err, rowindex.ErrFinished) {
			t.Fatalf("%s: Add after Complete: %v", path, err)
		}
		if _, err := w.FinishPartition([]byte("k"), 0, 1, rowindex.Live); !errors.Is(err, rowindex.ErrFinished) {
			t.Fatalf("%s: FinishPartition after Complete: %v", path, err)
		}

		var again bytes.Buffer
		w.Reset(&again, rowindex.Options{Columns: cols})
		addPartitions(t, w, blocks, 10)
		if err := w.Complete(); err != nil {
			t.Fatal(path, err)
		}
		if !bytes.Equal(again.Bytes(), want) {
			t.Fatal(path, "a writer Reset after Complete writes other bytes")
		}
	}
}

// failOnce fails its next Write after fail is set, then works.
type failOnce struct {
	out  bytes.Buffer
	fail bool
}

func (s *failOnce) Write(p []byte) (int, error) {
	if s.fail {
		s.fail = false
		return 0, faultsink.ErrDisk
	}
	return s.out.Write(p)
}

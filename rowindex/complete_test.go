package rowindex_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/rowindex"
)

// TestCompleteEndsTheFile pins the writer's file-level verbs: Complete
// refuses a partition left unfinished, hands every byte over (retrying
// after a failed write), and after it Add and FinishPartition return
// ErrFinished; Reset starts a new file that is byte for byte a fresh
// writer's, and ResetPartition abandons a partition without ending the file.
func TestCompleteEndsTheFile(t *testing.T) {
	cols, blocks := wideBlocks(40)
	want := cleanBuild(t, cols, blocks, 10, buildpath.Scratch)

	sink := &failOnce{}
	w := rowindex.NewWriter(sink, rowindex.Options{Columns: cols})
	for i, b := range blocks {
		if err := w.Add(b); err != nil {
			t.Fatal(err)
		}
		if (i+1)%10 == 0 {
			if _, err := w.FinishPartition([]byte{byte(i)}, int64(i), b.Offset+1, rowindex.Live); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A partition begun and abandoned leaves its blocks out of the file
	// (they were all pending: nothing of its trie was written).
	if err := w.Add(blocks[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Complete(); !errors.Is(err, rowindex.ErrUnfinished) {
		t.Fatalf("Complete with an unfinished partition: %v", err)
	}
	w.ResetPartition()

	sink.fail = true
	if err := w.Complete(); !errors.Is(err, errDisk) {
		t.Fatalf("Complete on a failing sink: %v", err)
	}
	if err := w.Complete(); err != nil {
		t.Fatalf("retried Complete: %v", err)
	}
	if !bytes.Equal(sink.out.Bytes(), want) {
		t.Fatal("the completed file differs from a clean build")
	}
	if err := w.Add(blocks[0]); !errors.Is(err, rowindex.ErrFinished) {
		t.Fatalf("Add after Complete: %v", err)
	}
	if _, err := w.FinishPartition([]byte("k"), 0, 1, rowindex.Live); !errors.Is(err, rowindex.ErrFinished) {
		t.Fatalf("FinishPartition after Complete: %v", err)
	}

	var again bytes.Buffer
	w.Reset(&again, rowindex.Options{Columns: cols})
	for i, b := range blocks {
		if err := w.Add(b); err != nil {
			t.Fatal(err)
		}
		if (i+1)%10 == 0 {
			if _, err := w.FinishPartition([]byte{byte(i)}, int64(i), b.Offset+1, rowindex.Live); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Complete(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), want) {
		t.Fatal("a writer Reset after Complete writes other bytes")
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
		return 0, errDisk
	}
	return s.out.Write(p)
}

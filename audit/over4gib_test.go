package audit

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/over4gib"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// The check on files past 4 GiB and on positions past 2^32: partitionindex's
// TestOver4GiB and TestPastUint32Positions build such files and read them
// back, and ran this check on them before it moved here. The keys and
// positions are theirs, from package internal/over4gib.

// buildOver4 writes the n keys with pad bytes of padding to path on the
// given builder path and returns what Complete reported.
func buildOver4(t *testing.T, path string, n int64, pad int, p buildpath.Path) partitionindex.Metadata {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := over4gib.NewKeys(pad)
	b := workload.NewPathBuilder(f, partitionindex.Options{Partitioner: partitioner.ByteOrdered}, p)
	for i := range n {
		key := partitioner.ByteOrdered.Decorate(keys.Raw(i))
		if err := b.Add(&key, over4gib.Pos(i)); err != nil {
			t.Fatalf("Add key %d: %v", i, err)
		}
	}
	meta, err := b.Complete()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return meta
}

// checkOver4 maps the file and requires CheckPartitions, with increasing
// positions, to find its n entries and nothing wrong.
func checkOver4(t *testing.T, path string, n int64) *Report {
	t.Helper()
	ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rep, err := CheckPartitions(ix, Options{Positions: PositionsIncreasing})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Entries != n {
		t.Fatalf("CheckPartitions: %d entries (want %d), %d problems, first: %v", rep.Entries, n, rep.ProblemCount, rep.Problems[:min(len(rep.Problems), 5)])
	}
	return rep
}

// TestCheckPastUint32Positions: a small file whose positions all lie past
// 2^33 (their payloads take 5 bytes) passes, on both builder paths.
func TestCheckPastUint32Positions(t *testing.T) {
	const n, pad = 20_000, 24
	dir := t.TempDir()
	for _, p := range buildpath.All {
		path := filepath.Join(dir, p.String()+".db")
		buildOver4(t, path, n, pad, p)
		checkOver4(t, path, n)
	}
}

// TestCheckOver4GiB builds partitionindex's TestOver4GiB file (130M keys
// of 33 bytes, 4,646,141,634 bytes by its count) and checks it: every node
// offset, pointer and padding run past 2^32 goes through the scan and the
// walk. It needs the file's size on disk and, by TestOver4GiB's timings at
// 3d73acb (a scratch build 7m51s, the check 7m43s on two shared cores),
// about a quarter of an hour; run with BTI_LONG=1 (BTI_LONG_KEYS,
// BTI_LONG_PAD and BTI_LONG_DIR as for TestOver4GiB).
func TestCheckOver4GiB(t *testing.T) {
	if os.Getenv("BTI_LONG") != "1" {
		t.Skip("writes a 4.6 GB index and checks it, about 15 minutes; run with BTI_LONG=1 (BTI_LONG_DIR sets the directory, default /work/tmp)")
	}
	n, pad, custom := over4gib.Size(t)
	dir := over4gib.TempDir(t, "bti-audit-over4gib-")
	path := filepath.Join(dir, "Partitions.db")
	start := time.Now()
	meta := buildOver4(t, path, n, pad, buildpath.Scratch)
	t.Logf("built %d keys, %d bytes, in %v", n, meta.Size, time.Since(start).Round(time.Second))
	if meta.Size <= 1<<32 && !custom {
		t.Fatalf("the index is %d bytes, not past 4 GiB", meta.Size)
	}
	start = time.Now()
	rep := checkOver4(t, path, n)
	t.Logf("CheckPartitions: %d nodes, %d entries in %v", rep.Nodes, rep.Entries, time.Since(start).Round(time.Second))
}

package audit

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// The check on files past 4 GiB and on positions past 2^32: partitionindex's
// TestOver4GiB and TestPastUint32Positions build such files and read them
// back, and ran this check on them before it moved here. The keys and
// positions are theirs (partitionindex/over4gib_test.go documents them):
// ByteOrdered keys in pairs, BE64(i>>1) ‖ pad ‖ byte(i&1), and positions
// 2^33 + 16i, a Rows.db offset for every third key and a Data.db offset
// for the others, each kind increasing with the key.

const (
	over4BasePos = int64(1) << 33
	over4Step    = 16
)

// buildOver4 writes the n keys with pad bytes of padding to path on the
// given builder path and returns what Complete reported.
func buildOver4(t *testing.T, path string, n int64, pad int, p buildpath.Path) partitionindex.Metadata {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw := make([]byte, 8+pad+1)
	for j := range pad {
		raw[8+j] = byte(0x41 + j%26) // no 00 or FF: the encoding is the pad itself
	}
	b := workload.NewPathBuilder(f, partitionindex.Options{Partitioner: partitioner.ByteOrdered}, p)
	for i := range n {
		binary.BigEndian.PutUint64(raw, uint64(i>>1))
		raw[len(raw)-1] = byte(i & 1)
		key := partitioner.ByteOrdered.Decorate(raw)
		pos := partitionindex.DataPosition(over4BasePos + over4Step*i)
		if i%3 == 0 {
			pos = partitionindex.RowIndexPosition(over4BasePos + over4Step*i)
		}
		if err := b.Add(&key, pos); err != nil {
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
	n := envInt64(t, "BTI_LONG_KEYS", 130_000_000)
	pad := int(envInt64(t, "BTI_LONG_PAD", 24))
	dir := os.Getenv("BTI_LONG_DIR")
	if dir == "" {
		dir = os.TempDir()
		if _, err := os.Stat("/work"); err == nil {
			dir = "/work/tmp" // the shared machine's big disk; /tmp may be small
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(dir, "bti-audit-over4gib-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	path := filepath.Join(dir, "Partitions.db")
	start := time.Now()
	meta := buildOver4(t, path, n, pad, buildpath.Scratch)
	t.Logf("built %d keys, %d bytes, in %v", n, meta.Size, time.Since(start).Round(time.Second))
	if meta.Size <= 1<<32 && os.Getenv("BTI_LONG_KEYS") == "" {
		t.Fatalf("the index is %d bytes, not past 4 GiB", meta.Size)
	}
	start = time.Now()
	rep := checkOver4(t, path, n)
	t.Logf("CheckPartitions: %d nodes, %d entries in %v", rep.Nodes, rep.Entries, time.Since(start).Round(time.Second))
}

// envInt64 reads a positive integer from the environment, or def.
func envInt64(t *testing.T, name string, def int64) int64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return v
}

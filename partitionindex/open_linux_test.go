package partitionindex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
)

// residentBytes is how much of data is in the page cache (mincore), the
// number fincore prints for the file.
func residentBytes(t *testing.T, data []byte) int64 {
	t.Helper()
	page := os.Getpagesize()
	vec := make([]byte, (len(data)+page-1)/page)
	if len(data) == 0 {
		return 0
	}
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	var n int64
	for _, v := range vec {
		if v&1 != 0 {
			n += int64(page)
		}
	}
	return n
}

// evict drops the file from the page cache (posix_fadvise DONTNEED) and
// reports whether it left: some file systems keep the pages regardless.
func evict(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Logf("fadvise: %v", err)
		return false
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(data)
	return residentBytes(t, data) < st.Size()/16
}

// Open reads what one lookup needs, not the file: on a cold index, Open
// and one Get leave at most 2 MiB of it in the page cache (issue 20), and
// far less than the file. WarmUpBytes then brings in the tail it names.
func TestOpenColdReadsLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 400,000 keys; skipped under -short")
	}
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 400_000, Seed: 7}
	entries, err := cfg.Generate()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "Partitions.db")
	if err := os.WriteFile(path, buildIndex(t, cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !evict(t, path) {
		t.Skip("this file system keeps the file in the page cache after POSIX_FADV_DONTNEED")
	}
	ix, err := Open(path, OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ix.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	probe := entries[len(entries)/3]
	dk := partitioner.Murmur3.Decorate(probe.Key)
	if pos, ok, err := r.Get(&dk); err != nil || !ok || pos != probe.Pos {
		t.Fatalf("Get = %d, %v, %v; want %d", pos, ok, err, probe.Pos)
	}
	got := residentBytes(t, ix.data)
	t.Logf("file %d bytes; resident after Open and one Get: %d bytes (jump table: %v)", st.Size(), got, ix.trie.JumpTable())
	if got > 2<<20 || got > st.Size()/4 {
		t.Errorf("Open and one Get left %d of %d bytes in the page cache, want <= min(2 MiB, a quarter of the file)", got, st.Size())
	}
	r.Close()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	if !evict(t, path) {
		t.Skip("could not evict the file a second time")
	}
	const warm = 1 << 20
	ix, err = Open(path, OpenOptions{Partitioner: partitioner.Murmur3, WarmUpBytes: warm})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	page := os.Getpagesize()
	start := (len(ix.data) - warm) / page * page // mincore takes a page-aligned start
	tail := ix.data[start:]
	if res := residentBytes(t, tail); res < warm {
		t.Errorf("WarmUpBytes %d left %d bytes of the tail resident, want at least that", warm, res)
	}
}

// A warm-up larger than the file reads it all and opens it as usual.
func TestOpenWarmUpWholeFile(t *testing.T) {
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 5000, Seed: 3}
	path := filepath.Join(t.TempDir(), "Partitions.db")
	if err := os.WriteFile(path, buildIndex(t, cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(path, OpenOptions{WarmUpBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Count() != int64(cfg.Count) {
		t.Errorf("Count = %d, want %d", ix.Count(), cfg.Count)
	}
}

// buildIndex builds an index of cfg's keys in memory.
func buildIndex(tb testing.TB, cfg keygen.Config) []byte {
	tb.Helper()
	entries, err := cfg.Generate()
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: cfg.Partitioner})
	for _, e := range entries {
		if err := addRaw(b, e.Key, e.Pos); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := b.Complete(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

package partitionindex

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/keystsv"
	"github.com/bti-go/bti/partitioner"
)

// goldenDir holds the cases Cassandra's own writer produced (see its README).
const goldenDir = "../../shared/golden"

type goldenCase struct {
	name     string
	part     partitioner.Partitioner
	entries  []keystsv.Entry
	want     []byte // Cassandra's Partitions.db
	partials []goldenPartial
}

type goldenPartial struct {
	afterKeys                int
	accepted                 bool
	root, count, cutoff, tln int64
	tailSHA                  string
}

func loadGolden(t testing.TB) []goldenCase {
	t.Helper()
	dirs, err := os.ReadDir(goldenDir)
	if os.IsNotExist(err) {
		t.Skipf("golden cases not found at %s (the shared folder beside the repository); skipping", goldenDir)
	}
	require.NoError(t, err)
	var cases []goldenCase
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(goldenDir, d.Name())
		c := goldenCase{name: d.Name()}
		switch {
		case strings.HasPrefix(d.Name(), "murmur3"):
			c.part = partitioner.Murmur3
		case strings.HasPrefix(d.Name(), "byteordered"):
			c.part = partitioner.ByteOrdered
		default:
			t.Fatalf("golden case %s: unknown partitioner prefix", d.Name())
		}
		keys := filepath.Join(dir, "keys.tsv")
		if _, err := os.Stat(keys); err != nil {
			keys += ".bz2"
		}
		c.entries, err = keystsv.ReadFile(keys)
		require.NoError(t, err)
		c.want, err = os.ReadFile(filepath.Join(dir, "Partitions.db"))
		require.NoError(t, err)
		c.partials = readPartials(t, filepath.Join(dir, "partials.tsv"))
		cases = append(cases, c)
	}
	require.NotEmpty(t, cases)
	return cases
}

func readPartials(t testing.TB, path string) []goldenPartial {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []goldenPartial
	s := bufio.NewScanner(f)
	for line := 0; s.Scan(); line++ {
		if line == 0 {
			continue // header
		}
		cols := strings.Split(s.Text(), "\t")
		require.Len(t, cols, 7, "%s line %d", path, line+1)
		p := goldenPartial{accepted: cols[1] == "true"}
		p.afterKeys, err = strconv.Atoi(cols[0])
		require.NoError(t, err)
		if p.accepted {
			for i, dst := range []*int64{&p.root, &p.count, &p.cutoff, &p.tln} {
				*dst, err = strconv.ParseInt(cols[2+i], 10, 64)
				require.NoError(t, err)
			}
			p.tailSHA = cols[6]
		}
		out = append(out, p)
	}
	require.NoError(t, s.Err())
	return out
}

// buildGolden builds c on the given path, taking partial views where the
// case says Cassandra did and checking each one.
func buildGolden(t *testing.T, c goldenCase, path Path) []byte {
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: c.part, Path: path})
	next := 0
	for i, e := range c.entries {
		require.NoError(t, b.Add(e.Key, e.Pos), "key %d", i)
		if next < len(c.partials) && c.partials[next].afterKeys == i+1 {
			checkPartial(t, c, b, &buf, c.partials[next])
			next++
		}
	}
	require.Equal(t, len(c.partials), next, "every partial request was made")
	_, err := b.Complete()
	require.NoError(t, err)
	return buf.Bytes()
}

func checkPartial(t *testing.T, c goldenCase, b *Builder, buf *bytes.Buffer, want goldenPartial) {
	var got *PartialIndex
	accepted, err := b.BuildPartial(0, 0, func(p *PartialIndex) { got = p })
	require.NoError(t, err)
	require.Equal(t, want.accepted, accepted, "after %d keys: accepted", want.afterKeys)
	if !accepted {
		return
	}
	require.NoError(t, b.Flush())
	require.Nil(t, got, "a view is never handed out inside BuildPartial")
	b.MarkDataSynced(0)
	b.MarkRowIndexSynced(0)
	b.MarkPartitionIndexSynced(b.Position())
	require.NotNil(t, got, "view ready once all files are synced")
	sum := sha256.Sum256(got.Tail)
	require.Equal(t, want.root, got.Root, "after %d keys: root", want.afterKeys)
	require.Equal(t, want.count, got.Count, "after %d keys: count", want.afterKeys)
	require.Equal(t, want.cutoff, got.Cutoff, "after %d keys: cutoff", want.afterKeys)
	require.Equal(t, want.tln, int64(len(got.Tail)), "after %d keys: tail length", want.afterKeys)
	require.Equal(t, want.tailSHA, hex.EncodeToString(sum[:]), "after %d keys: tail sha256", want.afterKeys)

	// The view finds exactly the keys that reached the trie.
	ix, err := got.NewIndex(buf.Bytes())
	require.NoError(t, err)
	r, err := ix.OpenReader()
	require.NoError(t, err)
	defer r.Close()
	inView := want.afterKeys - 1
	for i, e := range c.entries[:want.afterKeys] {
		pos, ok, err := r.Get(c.part.Decorate(e.Key))
		require.NoError(t, err)
		if i < inView {
			require.True(t, ok, "key %d in the view", i)
			require.Equal(t, e.Pos, pos, "key %d in the view", i)
		}
	}
	var n int
	for it := r.Scan(nil, nil); it.Next(); n++ {
		require.Equal(t, c.entries[n].Pos, it.Pos(), "iteration entry %d", n)
	}
	require.Equal(t, inView, n, "view iterates its keys")
}

func TestGoldenBuild(t *testing.T) {
	for _, c := range loadGolden(t) {
		for _, path := range []Path{PathScratch, PathReference} {
			t.Run(c.name+"/"+path.String(), func(t *testing.T) {
				got := buildGolden(t, c, path)
				if !bytes.Equal(c.want, got) {
					t.Fatalf("built %d bytes, Cassandra wrote %d; first difference at offset %d", len(got), len(c.want), firstDiff(got, c.want))
				}
			})
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestGoldenRead(t *testing.T) {
	for _, c := range loadGolden(t) {
		t.Run(c.name, func(t *testing.T) {
			ix, err := NewIndex(c.want, c.part)
			require.NoError(t, err)
			require.Equal(t, int64(len(c.entries)), ix.Count())
			r, err := ix.OpenReader()
			require.NoError(t, err)
			defer r.Close()
			for i, e := range c.entries {
				pos, ok, err := r.Get(c.part.Decorate(e.Key))
				require.NoError(t, err)
				require.True(t, ok, "key %d %x", i, e.Key)
				require.Equal(t, e.Pos, pos, "key %d %x", i, e.Key)
			}
			if len(c.entries) > 0 {
				require.Equal(t, c.entries[0].Key, ix.FirstKey())
				require.Equal(t, c.entries[len(c.entries)-1].Key, ix.LastKey())
			}
			var n int
			for it := r.Scan(nil, nil); it.Next(); n++ {
				require.Equal(t, c.entries[n].Pos, it.Pos(), "entry %d", n)
			}
			require.Equal(t, len(c.entries), n)
		})
	}
}

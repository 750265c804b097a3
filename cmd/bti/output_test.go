//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childEnv makes the test binary a child that runs bti on its arguments
// and exits with its status; childFsizeEnv, if set, is the RLIMIT_FSIZE the
// child sets first: a file-size limit is how the tests fill a disk without
// touching a device or mounting anything.
const (
	childEnv      = "BTI_TEST_CHILD"
	childFsizeEnv = "BTI_TEST_CHILD_FSIZE"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if v := os.Getenv(childFsizeEnv); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bad", childFsizeEnv, v)
				os.Exit(100)
			}
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				fmt.Fprintln(os.Stderr, "setrlimit:", err)
				os.Exit(100)
			}
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// btiChild runs bti in a child process whose files may not grow beyond
// fsize bytes (0: no limit) and whose standard output is stdout (nil: a
// pipe, returned in the result).
func btiChild(t *testing.T, fsize int, stdout *os.File, args ...string) result {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if fsize > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", childFsizeEnv, fsize))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdout != nil {
		cmd.Stdout = stdout
	}
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	require.NotEqual(t, 100, code, errb.String())
	return result{code, out.String(), errb.String()}
}

// smallKeys writes a keys.tsv of n ByteOrdered keys into dir and returns
// its path and the index built from it (through a fresh regular file).
func smallKeys(t *testing.T, dir string, n int) (string, []byte) {
	t.Helper()
	keys := filepath.Join(dir, "keys.tsv")
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%08x\t%d\n", i, i*3)
	}
	writeFile(t, keys, b.String())
	ref := filepath.Join(t.TempDir(), "ref.db")
	requireCode(t, 0, bti("build", "--in", keys, "--out", ref, "--partitioner", "byteordered"))
	data := []byte(readFile(t, ref))
	require.NotEmpty(t, data)
	return keys, data
}

// TestOutToStdout: "--out -" writes the index to standard output and
// creates no file named "-".
func TestOutToStdout(t *testing.T) {
	dir := t.TempDir()
	keys, want := smallKeys(t, dir, 100)
	t.Chdir(dir)
	r := bti("build", "--in", keys, "--out", "-", "--partitioner", "byteordered")
	requireCode(t, 0, r)
	assert.True(t, r.stdout == string(want), "stdout is not the index")
	assert.Equal(t, []string{"keys.tsv"}, listDir(t, dir), "no file named -")

	r = bti("build", "--in", keys, "--out", "-", "--partitioner", "byteordered", "--stats", "json")
	requireCode(t, 2, r)
	assert.Contains(t, r.stderr, "--stats prints to standard output")
	assert.Empty(t, r.stdout)

	r = bti("gen", "--kind", "uuid", "--count", "50", "--out", "-")
	requireCode(t, 0, r)
	assert.Equal(t, 50, strings.Count(r.stdout, "\n"))
	assert.Equal(t, []string{"keys.tsv"}, listDir(t, dir))
}

// TestOutFIFO: a FIFO is written in place (its reader gets the index) and
// stays a FIFO; renaming over it would have made it a regular file.
func TestOutFIFO(t *testing.T) {
	dir := t.TempDir()
	keys, want := smallKeys(t, dir, 100)
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	// A second name for the FIFO, outside dir, so the test can unblock its
	// reader even if bti replaced "pipe" (as it once did).
	backdoor := filepath.Join(t.TempDir(), "pipe")
	require.NoError(t, os.Link(fifo, backdoor))
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo) // blocks until bti opens it for writing
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	r := bti("build", "--in", keys, "--out", fifo, "--partitioner", "byteordered")
	// A reader still waiting in open gets EOF; with no reader left, the
	// non-blocking open fails (ENXIO) and does nothing.
	if w, err := os.OpenFile(backdoor, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	requireCode(t, 0, r)
	assert.True(t, bytes.Equal(want, <-got), "the FIFO's reader did not get the index")
	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeNamedPipe, st.Mode().Type(), "the FIFO was replaced")
	assert.ElementsMatch(t, []string{"keys.tsv", "pipe"}, listDir(t, dir))
}

// linkedKeys writes smallKeys' 100 keys to dir/keys.tsv and a symbolic
// link dir/sym.tsv to it, and returns both paths and the index bytes.
func linkedKeys(t *testing.T, dir string) (keys, sym string, want []byte) {
	t.Helper()
	keys, want = smallKeys(t, dir, 100)
	sym = filepath.Join(dir, "sym.tsv")
	require.NoError(t, os.Symlink("keys.tsv", sym))
	return keys, sym, want
}

// TestOutIsInput: an output that is the input, directly or through a
// symbolic link, a hard link or a link to a link, is refused with exit
// status 2 before anything is written; the input is untouched.
func TestOutIsInput(t *testing.T) {
	dir := t.TempDir()
	keys, sym, _ := linkedKeys(t, dir)
	orig := readFile(t, keys)
	hard := filepath.Join(dir, "hard.tsv")
	require.NoError(t, os.Link(keys, hard))
	symsym := filepath.Join(dir, "symsym.tsv")
	require.NoError(t, os.Symlink(sym, symsym))
	names := []string{"hard.tsv", "keys.tsv", "sym.tsv", "symsym.tsv"}
	for _, tc := range []struct{ in, out string }{
		{keys, keys}, {keys, sym}, {keys, hard}, {keys, symsym}, {sym, keys}, {hard, sym},
	} {
		t.Run(filepath.Base(tc.in)+"->"+filepath.Base(tc.out), func(t *testing.T) {
			requireFails(t, "bti: cannot write "+tc.out+": it is the input "+tc.in+" (the same file)", "build", "--in", tc.in, "--out", tc.out, "--partitioner", "byteordered")
			assert.Equal(t, orig, readFile(t, keys), "the input was changed")
			assert.ElementsMatch(t, names, listDir(t, dir), "a temporary file was left")
			st, err := os.Lstat(sym)
			require.NoError(t, err)
			assert.Equal(t, fs.ModeSymlink, st.Mode().Type(), "the link was replaced")
		})
	}
}

// TestOutStdoutIsInput: "--out -" with standard output redirected to the
// input (">>" keeps the file, so the build would append the index to its own
// keys) is refused with exit status 2 before anything is written, as cat
// refuses "input file is output file", also when the input is named
// through a link; standard output redirected elsewhere is written.
func TestOutStdoutIsInput(t *testing.T) {
	dir := t.TempDir()
	keys, sym, want := linkedKeys(t, dir)
	orig := readFile(t, keys)
	for _, in := range []string{keys, sym} {
		f, err := os.OpenFile(keys, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		r := btiChild(t, 0, f, "build", "--in", in, "--out", "-", "--partitioner", "byteordered")
		require.NoError(t, f.Close())
		requireCode(t, 2, r, in)
		assert.Equal(t, "bti: cannot write standard output: it is the input "+in+" (the same file); refusing to overwrite it\n", r.stderr)
		assert.Equal(t, orig, readFile(t, keys), "the input was changed")
	}
	out := filepath.Join(dir, "out.db")
	f, err := os.Create(out)
	require.NoError(t, err)
	r := btiChild(t, 0, f, "build", "--in", keys, "--out", "-", "--partitioner", "byteordered")
	require.NoError(t, f.Close())
	requireCode(t, 0, r)
	assert.True(t, readFile(t, out) == string(want), "standard output did not get the index")
}

// TestOutErrorsNameThePath: a directory is refused, a missing directory
// reported, and both messages name the path as typed, not a temporary file.
func TestOutErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	smallKeys(t, dir, 10)
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("outdir", 0o755))
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"build", "--in", "keys.tsv", "--out", "outdir"}, "bti: cannot write outdir: it is a directory\n"},
		{[]string{"build", "--in", "keys.tsv", "--out", "outdir/"}, "bti: cannot write outdir/: it is a directory\n"},
		{[]string{"build", "--in", "keys.tsv", "--out", "nodir/x.db"}, "bti: cannot create nodir/x.db: no such file or directory\n"},
		{[]string{"build", "--in", "keys.tsv", "--out", "keys.tsv/x.db"}, "bti: cannot write keys.tsv/x.db: not a directory\n"},
		{[]string{"gen", "--kind", "uuid", "--count", "5", "--out", "outdir"}, "bti: cannot write outdir: it is a directory\n"},
		{[]string{"gen", "--kind", "uuid", "--count", "5", "--out", "nodir/x.tsv"}, "bti: cannot create nodir/x.tsv: no such file or directory\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := bti(append(tc.args, "--partitioner", "byteordered")...)
			requireCode(t, 2, r)
			assert.Equal(t, tc.msg, r.stderr)
			assert.NotContains(t, r.stderr, ".tmp")
			assert.Empty(t, listDir(t, "outdir"))
			assert.ElementsMatch(t, []string{"keys.tsv", "outdir"}, listDir(t, "."))
		})
	}
}

// TestOutReplacesRegularFile: an existing regular file is replaced whole
// (documented in "bti build -h"), through a symbolic link the target is
// replaced and the link kept.
func TestOutReplacesRegularFile(t *testing.T) {
	dir := t.TempDir()
	keys, want := smallKeys(t, dir, 100)
	out := filepath.Join(dir, "Partitions.db")
	writeFile(t, out, strings.Repeat("old ", 1000))
	requireCode(t, 0, bti("build", "--in", keys, "--out", out, "--partitioner", "byteordered"))
	assert.True(t, readFile(t, out) == string(want))

	target := filepath.Join(dir, "target.db")
	writeFile(t, target, "old")
	link := filepath.Join(dir, "link.db")
	require.NoError(t, os.Symlink("target.db", link))
	requireCode(t, 0, bti("build", "--in", keys, "--out", link, "--partitioner", "byteordered"))
	assert.True(t, readFile(t, target) == string(want))
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, st.Mode().Type(), "the link was replaced by a file")
	assert.ElementsMatch(t, []string{"keys.tsv", "Partitions.db", "target.db", "link.db"}, listDir(t, dir))

	// A link to nowhere is refused rather than replaced by a file.
	dangling := filepath.Join(dir, "dangling.db")
	require.NoError(t, os.Symlink("missing/x.db", dangling))
	requireFails(t, "cannot write "+dangling+": it is a symbolic link to a missing file", "build", "--in", keys, "--out", dangling, "--partitioner", "byteordered")

	r := bti("build", "-h")
	assert.Contains(t, r.stdout, "an existing one is overwritten, as by cp")
}

// TestOutPermissions: new files are created 0666 less the umask, as
// os.Create does (they were 0600 whatever the umask); a replaced file
// keeps its mode.
func TestOutPermissions(t *testing.T) {
	dir := t.TempDir()
	keys, _ := smallKeys(t, dir, 10)
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}, {0o002, 0o664}} {
		syscall.Umask(tc.umask)
		out := filepath.Join(dir, fmt.Sprintf("new-%03o.db", tc.umask))
		requireCode(t, 0, bti("build", "--in", keys, "--out", out, "--partitioner", "byteordered"))
		st, err := os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, tc.want, st.Mode().Perm(), "build under umask %03o", tc.umask)

		gen := filepath.Join(dir, fmt.Sprintf("gen-%03o.tsv", tc.umask))
		requireCode(t, 0, bti("gen", "--kind", "int32", "--count", "10", "--out", gen))
		st, err = os.Stat(gen)
		require.NoError(t, err)
		assert.Equal(t, tc.want, st.Mode().Perm(), "gen under umask %03o", tc.umask)
	}

	syscall.Umask(0o022)
	out := filepath.Join(dir, "existing.db")
	writeFile(t, out, "old")
	require.NoError(t, os.Chmod(out, 0o640))
	requireCode(t, 0, bti("build", "--in", keys, "--out", out, "--partitioner", "byteordered"))
	st, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), st.Mode().Perm(), "the replaced file's mode was not kept")
	assert.NotEqual(t, "old", readFile(t, out))
}

// TestOutDiskFull: a write that fails (here: RLIMIT_FSIZE in a child
// process, as a full disk would) is a clear error naming the output, exit
// status 2, and leaves the old file and no temporary file.
func TestOutDiskFull(t *testing.T) {
	dir := t.TempDir()
	keys, want := smallKeys(t, dir, 3000)
	const limit = 4096
	require.Greater(t, len(want), limit)
	out := filepath.Join(dir, "Partitions.db")
	writeFile(t, out, "old")
	r := btiChild(t, limit, nil, "build", "--in", keys, "--out", out, "--partitioner", "byteordered")
	requireCode(t, 2, r)
	assert.Equal(t, "bti: writing "+out+": file too large\n", r.stderr)
	assert.Equal(t, "old", readFile(t, out))
	assert.ElementsMatch(t, []string{"keys.tsv", "Partitions.db"}, listDir(t, dir))

	// gen streams its output: the failure comes mid-way.
	gen := filepath.Join(dir, "gen.tsv")
	r = btiChild(t, limit, nil, "gen", "--kind", "uuid", "--count", "3000", "--out", gen)
	requireCode(t, 2, r)
	assert.Equal(t, "bti: writing "+gen+": file too large\n", r.stderr)
	assert.ElementsMatch(t, []string{"keys.tsv", "Partitions.db"}, listDir(t, dir))

	// The same child under a limit the file fits writes it.
	r = btiChild(t, 1<<20, nil, "build", "--in", keys, "--out", out, "--partitioner", "byteordered")
	requireCode(t, 0, r)
	assert.True(t, readFile(t, out) == string(want))
}

// TestGenOut: gen --out writes the same bytes as standard output.
func TestGenOut(t *testing.T) {
	dir := t.TempDir()
	args := []string{"gen", "--kind", "blob", "--count", "500", "--seed", "3"}
	r := bti(args...)
	requireCode(t, 0, r)
	out := filepath.Join(dir, "keys.tsv")
	requireCode(t, 0, bti(append(args, "--out", out)...))
	assert.Equal(t, r.stdout, readFile(t, out))
	assert.Equal(t, []string{"keys.tsv"}, listDir(t, dir))
}

// TestOutDevStdout: /dev/stdout redirected to a file (">" or ">>") is
// written through the descriptor, not renamed over: after ">>" the file
// keeps what it held and gets the index appended.
func TestOutDevStdout(t *testing.T) {
	dir := t.TempDir()
	keys, want := smallKeys(t, dir, 100)
	out := filepath.Join(dir, "redirected")
	for _, tc := range []struct {
		name  string
		flag  int
		old   string
		wantF string
	}{
		{">", os.O_WRONLY | os.O_CREATE | os.O_TRUNC, "old content", string(want)},
		{">>", os.O_WRONLY | os.O_CREATE | os.O_APPEND, "old content", "old content" + string(want)},
	} {
		writeFile(t, out, tc.old)
		f, err := os.OpenFile(out, tc.flag, 0o644)
		require.NoError(t, err)
		r := btiChild(t, 0, f, "build", "--in", keys, "--out", "/dev/stdout", "--partitioner", "byteordered")
		require.NoError(t, f.Close())
		requireCode(t, 0, r, tc.name)
		assert.True(t, readFile(t, out) == tc.wantF, "%s: the redirected file does not hold what the shell would give", tc.name)
		assert.ElementsMatch(t, []string{"keys.tsv", "redirected"}, listDir(t, dir), tc.name)
	}
}

func TestIsDescriptorPath(t *testing.T) {
	for _, p := range []string{"/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/10", "/proc/self/fd/1", "/proc/thread-self/fd/2", "/proc/123/fd/1", "/dev/../dev/stdout"} {
		assert.True(t, isDescriptorPath(p), p)
	}
	for _, p := range []string{"/dev/shm/x.db", "/dev/null", "/proc/self/status", "/tmp/dev/stdout", "x.db", "/dev/fd"} {
		assert.False(t, isDescriptorPath(p), p)
	}
}

package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// outputHelp is the paragraph every command with --out puts in its usage,
// so the rules read the same everywhere.
const outputHelp = `--out - writes to standard output. A new or existing regular file is written
atomically: an existing one is overwritten, as by cp and "go build -o", but
through a temporary file beside it (created 0666 less the umask, or with the
mode of the file it replaces), synced and renamed over it, so the path holds
either the old file or the complete new one; a symbolic link is followed and
its target replaced. A device or FIFO, or /dev/stdout, /dev/fd/N and
/proc/self/fd/N whatever they lead to, are written in place, never replaced.
A directory, or the same file as an input (also through a symbolic or hard
link, or as standard output redirected to it), is refused (exit status 2)
before anything is written.
`

// output is where a command writes a file the user named with --out. Every
// message names that path as typed, never the temporary file.
//
// Three kinds, chosen by what the path is when the command starts:
//   - "-": standard output, written as is.
//   - a device, FIFO or socket, or a descriptor path (/dev/stdout,
//     /dev/fd/N, /proc/self/fd/N, even when it leads to a regular file):
//     opened without O_CREATE or O_TRUNC and written in place. Renaming
//     over it would turn /dev/null into a regular file; a reader of a
//     FIFO sees the bytes as they come.
//   - a missing or regular file: a temporary file in the same directory
//     (the symlink's target's directory, for a link), renamed over the
//     path on commit, so a failed command leaves the old file untouched.
type output struct {
	name   string    // the path as given, for messages
	w      io.Writer // stdout, or f
	f      *os.File  // nil for stdout
	tmp    string    // temporary file; "" when written in place
	target string    // what tmp is renamed to: name with symlinks resolved
	closed bool
}

// createOutput opens path for writing as described on output. inputs are
// the files the command reads; an output that is one of them (same device
// and inode, however it is reached) is refused before anything is created.
// The caller writes through o and calls commit, and defers abort (a no-op
// after a successful commit).
func createOutput(path string, stdout io.Writer, inputs ...string) (*output, error) {
	if path == "-" {
		// A shell redirection may make standard output an input
		// ("bti build --in k.tsv --out - >> k.tsv"): refused as for a
		// path, as cat refuses "input file is output file".
		if f, ok := stdout.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				if err := notAnInput("standard output", st, inputs); err != nil {
					return nil, err
				}
			}
		}
		return &output{name: "standard output", w: stdout}, nil
	}
	st, err := os.Stat(path) // follows symlinks: what would be written
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("cannot write %s: it is a symbolic link to a missing file", path)
		}
		return createTemp(path, path, nil)
	case err != nil:
		return nil, fmt.Errorf("cannot write %s: %w", path, plainErr(err))
	case st.IsDir():
		return nil, fmt.Errorf("cannot write %s: it is a directory", path)
	}
	if err := notAnInput(path, st, inputs); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || isDescriptorPath(path) {
		// O_WRONLY: never create, never truncate a device. A regular file
		// reached through /dev/stdout (a shell redirection) is appended
		// to: empty after ">", kept whole after ">>".
		flag := os.O_WRONLY
		if st.Mode().IsRegular() {
			flag |= os.O_APPEND
		}
		f, err := os.OpenFile(path, flag, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, plainErr(err))
		}
		return &output{name: path, w: f, f: f}, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, plainErr(err))
	}
	return createTemp(path, target, st)
}

// notAnInput refuses an output (named name, with file info st) that is the
// same file as one of inputs, however either is reached.
func notAnInput(name string, st fs.FileInfo, inputs []string) error {
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return fmt.Errorf("cannot write %s: it is the input %s (the same file); refusing to overwrite it", name, in)
		}
	}
	return nil
}

// isDescriptorPath reports whether path names an open file descriptor
// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N)
// rather than a directory entry: renaming over the file it resolves to
// would replace a file the shell opened, losing what ">>" kept. Other
// paths under /dev and /proc (a file in /dev/shm, say) are ordinary.
func isDescriptorPath(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	switch abs {
	case "/dev/stdout", "/dev/stderr":
		return true
	}
	if strings.HasPrefix(abs, "/dev/fd/") {
		return true
	}
	// /proc/<self|thread-self|PID>/fd/N
	rest, ok := strings.CutPrefix(abs, "/proc/")
	if !ok {
		return false
	}
	_, fd, ok := strings.Cut(rest, "/")
	return ok && strings.HasPrefix(fd, "fd/")
}

// createTemp creates the temporary file that will be renamed to target.
// It is opened with mode 0666 and O_EXCL, as os.CreateTemp does but with
// os.Create's mode, so the kernel applies the umask (and any default ACL)
// exactly as for os.Create: reading the umask in the process
// (syscall.Umask set and restore) would race with other goroutines creating
// files. old, when not nil, is the file being replaced, whose permission
// bits the new file keeps, as cp does when it overwrites.
func createTemp(name, target string, old fs.FileInfo) (*output, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	var f *os.File
	var err error
	for range 100 {
		var rnd [6]byte
		if _, err = rand.Read(rnd[:]); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", name, err)
		}
		// The name says what the file is, so one left by SIGKILL (which no
		// handler sees) is recognisable and safe to delete:
		// ".Partitions.db.bti-incomplete-<pid>-<random>".
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.bti-incomplete-%d-%s", base, os.Getpid(), hex.EncodeToString(rnd[:])))
		f, err = os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", name, plainErr(err))
	}
	o := &output{name: name, w: f, f: f, tmp: f.Name(), target: target}
	if old != nil {
		if err := f.Chmod(old.Mode().Perm()); err != nil {
			o.abort()
			return nil, fmt.Errorf("cannot write %s: %w", name, plainErr(err))
		}
	}
	return o, nil
}

// Write writes to the output; an error names the path as given.
func (o *output) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("writing %s: %w", o.name, plainErr(err))
	}
	return n, nil
}

// commit finishes the output: a temporary file is synced, closed and
// renamed over the path (then the directory is synced, so the rename is
// durable); a device or FIFO is closed. On error nothing is left behind
// but what was there before (or, in place, what was already written).
func (o *output) commit() error {
	if o.f == nil || o.closed {
		return nil
	}
	if o.tmp == "" {
		o.closed = true
		if err := o.f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", o.name, plainErr(err))
		}
		return nil
	}
	if err := o.f.Sync(); err != nil {
		o.abort()
		return fmt.Errorf("writing %s: %w", o.name, plainErr(err))
	}
	o.closed = true
	if err := o.f.Close(); err != nil {
		_ = os.Remove(o.tmp)
		return fmt.Errorf("writing %s: %w", o.name, plainErr(err))
	}
	if err := os.Rename(o.tmp, o.target); err != nil {
		_ = os.Remove(o.tmp)
		return fmt.Errorf("cannot replace %s: %w", o.name, plainErr(err))
	}
	// Best effort: not every platform can open a directory for syncing.
	if d, err := os.Open(filepath.Dir(o.target)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// abort closes the output and removes the temporary file, if any. It does
// nothing after commit.
func (o *output) abort() {
	if o.f == nil || o.closed {
		return
	}
	o.closed = true
	_ = o.f.Close()
	if o.tmp != "" {
		_ = os.Remove(o.tmp)
	}
}

// plainErr drops the path from an *fs.PathError or *os.LinkError, whose
// path may be the temporary file's: the caller names the user's path.
func plainErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// createOutputs opens several --out style paths for one command, in order;
// an empty path gives a nil entry. Besides createOutput's checks it refuses
// two flags that name the same file (also through links) and at most one
// may be standard output, so no output can overwrite another. On error
// every output opened so far is aborted.
func createOutputs(stdout io.Writer, inputs []string, paths ...string) ([]*output, error) {
	outs := make([]*output, len(paths))
	fail := func(err error) ([]*output, error) {
		for _, o := range outs {
			if o != nil {
				o.abort()
			}
		}
		return nil, err
	}
	for i, path := range paths {
		if path == "" {
			continue
		}
		for _, prev := range paths[:i] {
			if prev != "" && sameOutput(prev, path) {
				return fail(fmt.Errorf("cannot write %s: %s names the same file", path, prev))
			}
		}
		o, err := createOutput(path, stdout, inputs...)
		if err != nil {
			return fail(err)
		}
		outs[i] = o
	}
	return outs, nil
}

// sameOutput reports whether two output paths are one destination: both
// standard output, or both existing and the same file.
func sameOutput(a, b string) bool {
	if a == "-" || b == "-" {
		return a == b
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// writeAndCommit writes data to o and commits it.
func writeAndCommit(o *output, data []byte) error {
	if _, err := o.Write(data); err != nil {
		return err
	}
	return o.commit()
}

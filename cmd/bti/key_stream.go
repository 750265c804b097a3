package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
)

// errInterrupted is the cause a command stopped by SIGINT or SIGTERM names.
var errInterrupted = errors.New("interrupted by a signal")

// interruptible returns a context that SIGINT or SIGTERM cancels, for the
// commands that stop cleanly on them (naming errInterrupted).
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// keyStream reads a keys.tsv (or .bz2) one line at a time, checking each
// line as loadKeys does (length, position, order, naming the line) and
// decorating its key. It holds the current and the previous key and the
// reader's buffers, whatever the file's length: the commands that stream
// (build, verify) hold no key set. SIGINT and SIGTERM end it with
// errInterrupted, checked every 65,536 lines; the status line on a terminal
// is updated as often.
type keyStream struct {
	path string
	verb string // what the status line says is being done
	p    partitioner.Partitioner
	f    io.Closer
	kr   *keystsv.Reader
	prog *progress
	ctx  context.Context
	stop context.CancelFunc

	key     partitioner.Key
	prev    partitioner.Key
	prevRaw []byte // prev's bytes: the reader reuses its line buffer
	count   int64
	err     error
}

func openKeyStream(path string, p partitioner.Partitioner, verb string, prog *progress) (*keyStream, error) {
	f, err := keystsv.Open(path)
	if err != nil {
		return nil, err
	}
	ctx, stop := interruptible()
	return &keyStream{path: path, verb: verb, p: p, f: f, kr: keystsv.NewReader(f), prog: prog, ctx: ctx, stop: stop}, nil
}

// Next reads the next line; false at the end or on the first error (Err).
func (s *keyStream) Next() bool {
	if s.err != nil {
		return false
	}
	if s.count > 0 {
		// The key just used becomes the previous one: its token and hash
		// carry over, only the bytes need a copy.
		s.prevRaw = append(s.prevRaw[:0], s.key.Raw...)
		s.prev = s.key
		s.prev.Raw = s.prevRaw
	}
	if !s.kr.Next() {
		s.prog.done()
		if err := s.kr.Err(); err != nil {
			s.err = readError(s.path, err)
		} else if s.ctx.Err() != nil {
			s.err = fmt.Errorf("%s: %w", s.path, errInterrupted)
		}
		return false
	}
	line, raw := s.kr.Line(), s.kr.Key()
	if line&0xFFFF == 0 {
		if s.ctx.Err() != nil {
			s.err = fmt.Errorf("%s line %d: %w", s.path, line, errInterrupted)
			return false
		}
		s.prog.update("%s %s: %d keys", s.verb, s.path, line)
	}
	if err := checkLine(s.path, line, raw, s.kr.Pos()); err != nil {
		s.err = err
		return false
	}
	s.key = s.p.Decorate(raw)
	if s.count > 0 {
		if err := checkOrder(s.path, line, s.prev, s.key); err != nil {
			s.err = err
			return false
		}
	}
	s.count++
	return true
}

// Key is the current line's decorated key; its bytes are valid until Next.
func (s *keyStream) Key() *partitioner.Key { return &s.key }

// Pos is the current line's position.
func (s *keyStream) Pos() int64 { return s.kr.Pos() }

// Line is the current line's number, from 1.
func (s *keyStream) Line() int { return s.kr.Line() }

// Count is the number of keys read so far.
func (s *keyStream) Count() int64 { return s.count }

func (s *keyStream) Err() error { return s.err }

func (s *keyStream) Close() {
	s.stop()
	s.f.Close()
}

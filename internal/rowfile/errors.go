package rowfile

import (
	"errors"
	"strconv"
)

// The writers' sentinels; rowindex exports each under the same name and
// documents when it is returned.
var (
	ErrBlockOrder = errors.New("rowindex: index blocks out of order")
	ErrOffset     = errors.New("rowindex: bad block offset")
	ErrDeletion   = errors.New("rowindex: bad deletion time")
	ErrNoBlocks   = errors.New("rowindex: partition has no index blocks")
	ErrCompleted  = errors.New("rowindex: partition already completed")
	ErrFinished   = errors.New("rowindex: writer already completed")
	ErrUnfinished = errors.New("rowindex: partition not finished")
	ErrKey        = errors.New("rowindex: partition key too long")
)

// BlockError reports a block a writer refused (rowindex.BlockError). It
// matches its Err (ErrBlockOrder, ErrOffset, ErrDeletion, or
// bytecomparable.ErrValue for a clustering that does not fit the columns)
// with errors.Is.
type BlockError struct {
	Err    error
	Block  int    // index of the refused block in its partition
	Reason string // details
}

func (e *BlockError) Error() string {
	return "rowindex: block " + strconv.Itoa(e.Block) + ": " + e.Reason
}

func (e *BlockError) Unwrap() error { return e.Err }

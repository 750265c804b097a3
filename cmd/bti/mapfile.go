package main

// unmapAfterSuccess releases a mapping from mapFile when the command
// succeeded. After an error it is left to the process's exit: the error (or
// a value it wraps) might still refer to the mapped bytes when it is
// printed, and reading an unmapped page would crash where a message was due.
func unmapAfterSuccess(err *error, unmap func() error) {
	if *err == nil {
		*err = unmap()
	}
}

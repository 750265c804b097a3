//go:build !unix

package main

import "os"

// mapFile reads the whole file where there is no mmap: the commands that
// use it then hold the file on the heap.
func mapFile(path string) (data []byte, unmap func() error, err error) {
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

//go:build !unix

package partitionindex

import (
	"fmt"
	"os"
)

func openFile(path string, open func([]byte) (*Index, error)) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ix, err := open(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix.check.arm("Index from Open") // no mapping here, but one on unix
	return ix, nil
}

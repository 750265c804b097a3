//go:build !linux

package workload

import "errors"

// errColdUnsupported is returned by the cold lookups off Linux: they need
// posix_fadvise, mincore and the major-fault count.
var errColdUnsupported = errors.New("workload: cold lookups need Linux (posix_fadvise, mincore, ru_majflt)")

func evictFile(string) error                     { return errColdUnsupported }
func residentPages(string) (int64, int64, error) { return 0, 0, errColdUnsupported }
func majorFaults() int64                         { return 0 }

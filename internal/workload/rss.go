package workload

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// resetPeakRSS resets the kernel's resident-set high-water mark (VmHWM) of
// this process by writing "5" to /proc/self/clear_refs (Linux 4.0+) and
// returns the current resident set. ok is false where that is unsupported.
func resetPeakRSS() (rss int64, ok bool) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, false
	}
	return readStatusBytes("VmRSS:")
}

// readStatusBytes reads a "<field> <n> kB" line of /proc/self/status.
func readStatusBytes(field string) (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field)
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

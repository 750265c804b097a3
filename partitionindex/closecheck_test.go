//go:build invariants

package partitionindex

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// The close checker panics on the finalizer goroutine, which ends the
// process, so each case runs in a child process (this test binary again,
// selected by closeCheckChild) and the parent reads its exit and stderr.
const closeCheckChild = "BTI_TEST_CLOSECHECK_CHILD"

// closeCheckScenarios open handles and drop them, closed or not.
var closeCheckScenarios = map[string]func(t *testing.T, path string){
	"reader-unclosed": func(t *testing.T, path string) {
		ix := openForCloseCheck(t, path)
		_, err := ix.OpenReader()
		require.NoError(t, err)
		require.NoError(t, ix.Close()) // the handle keeps the mapping: the leak
	},
	"index-unclosed": func(t *testing.T, path string) {
		ix := openForCloseCheck(t, path)
		r, err := ix.OpenReader()
		require.NoError(t, err)
		require.NoError(t, r.Close())
	},
	"all-closed": func(t *testing.T, path string) {
		ix := openForCloseCheck(t, path)
		r, err := ix.OpenReader()
		require.NoError(t, err)
		require.NoError(t, r.Close())
		require.NoError(t, ix.Close())
		// An Index over caller bytes owns nothing: not closing it is fine.
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		_, err = NewIndex(data, OpenOptions{Partitioner: partitioner.ByteOrdered})
		require.NoError(t, err)
	},
}

func openForCloseCheck(t *testing.T, path string) *Index {
	ix, err := Open(path, OpenOptions{Partitioner: partitioner.ByteOrdered})
	require.NoError(t, err)
	return ix
}

// collectGarbage gives the finalizers of dropped handles time to run.
func collectGarbage() {
	for range 10 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCloseCheck(t *testing.T) {
	if name := os.Getenv(closeCheckChild); name != "" {
		closeCheckScenarios[name](t, os.Getenv(closeCheckChild+"_PATH"))
		collectGarbage()
		return
	}
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: partitioner.ByteOrdered})
	for i, k := range []string{"a", "b", "c"} {
		dk := partitioner.ByteOrdered.Decorate([]byte(k))
		require.NoError(t, b.Add(&dk, int64(i)))
	}
	_, err := b.Complete()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "Partitions.db")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))

	for name, want := range map[string]string{
		"reader-unclosed": "partitionindex: Reader garbage collected without Close",
		"index-unclosed":  "partitionindex: Index from Open garbage collected without Close",
		"all-closed":      "",
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCloseCheck$")
			cmd.Env = append(os.Environ(), closeCheckChild+"="+name, closeCheckChild+"_PATH="+path)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if want == "" {
				require.NoError(t, err, "child reported:\n%s", stderr.String())
				return
			}
			require.Error(t, err, "the unclosed handle was not reported")
			require.Contains(t, stderr.String(), want)
			// Where it was opened: the scenario's line in this file.
			require.Contains(t, stderr.String(), "closecheck_test.go")
		})
	}
}

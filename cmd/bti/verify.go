package main

import (
	"fmt"
	"io"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/partitionindex"
)

const verifyUsage = `usage: bti verify --partitions Partitions.db --in keys.tsv [--partitioner auto|P]
       bti verify --deep --partitions Partitions.db [--in keys.tsv] [--partitioner auto|P] [--positions any|increasing]

Checks Partitions.db against keys.tsv: the footer's count and first and last
keys, that every key resolves (Get) to its position, and that a forward scan
yields the positions in file order. Prints a one-line summary; every mismatch
is reported on stderr with its keys.tsv line (the first 10 in full). Exit
status 1 on any mismatch. The partitioner (default auto: detected from the
index, see "bti get -h") also orders keys.tsv.

--deep first audits the file on its own as "bti check" does (then --in is
optional), then compares the keys if given.

Memory: keys.tsv streams, one line at a time, through two index readers (one
for the lookups, one for the forward scan beside them); verify holds the
current and previous key and the readers' buffers, not the key set, so a
keys.tsv of any length verifies in bounded memory. The index is mapped, and
only the pages the lookups and the scan touch are read. A status line on a
terminal shows the keys verified; SIGINT stops it, naming the line.
`

// maxReported bounds the mismatches printed one by one.
const maxReported = 10

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", verifyUsage)
	index := addPartitionsFlag(fs, "Partitions.db to check (required)")
	in := fs.String("in", "", "keys.tsv or keys.tsv.bz2 the index was built from (required)")
	part := addPartitionerFlag(fs, true)
	deep := fs.Bool("deep", false, "audit the file's structure first (bti check); --in becomes optional")
	cf := addCheckFlags(fs)
	// --partitions and --in are checked below: --deep makes --in optional.
	if err := parseCommand(fs, args, stdout); err != nil {
		return err
	}
	if *deep {
		return verifyDeep(*index, *in, *part, cf, stdout, stderr)
	}
	if err := required(fs, "partitions", "in"); err != nil {
		return err
	}
	if err := checkPartitionerFlag(*part); err != nil {
		return err
	}
	// The index is opened first: the keys are checked against it as they
	// stream. A partitioner given by hand that the footer refuses is
	// answered with the one that fits.
	var ix *partitionindex.Index
	var err error
	note := "given"
	if *part == partitionerAuto {
		ix, note, err = openIndex(*index, *part)
	} else {
		p, _ := parsePartitioner(*part)
		ix, err = partitionindex.Open(*index, partitionindex.OpenOptions{Partitioner: p})
	}
	if err != nil {
		return hintPartitioner(err, *index, *part)
	}
	defer ix.Close()
	if *part == partitionerAuto && note != "detected" {
		fmt.Fprintf(stderr, "bti verify: partitioner %v (%s)\n", ix.Partitioner(), note)
	}
	pp := &problemPrinter{w: stderr, prefix: "bti verify: "}
	n, err := verifyStream(ix, *in, newProgress(stderr), pp.report)
	if err != nil {
		return hintPartitioner(fmt.Errorf("%s: %w", *index, err), *index, *part)
	}
	if pp.problems > 0 {
		return &checkFailed{fmt.Sprintf("FAILED: %s does not match %s: %d problems", *index, *in, pp.problems)}
	}
	fmt.Fprintf(stdout, "ok: %s matches %s: %d keys found at their positions, footer and scan order agree\n", *index, *in, n)
	return nil
}

// verifyIndex checks ix against the held ks, reporting each problem to w
// (the demo). It returns the number of problems; an error means the index
// could not be read (corrupt bytes).
func verifyIndex(ix *partitionindex.Index, ks *keySet, w io.Writer) (int, error) {
	pp := &problemPrinter{w: w, prefix: "bti verify: "}
	err := verifyHeld(ix, ks, len(ks.keys), pp.report)
	return pp.problems, err
}

// hintPartitioner adds to an error under a partitioner given by hand
// which partitioner the index fits, if another: an index refused under the
// given one, or keys that do not sort, are often of another partitioner.
// The index is mapped, not read: only its footer and first entries are.
func hintPartitioner(err error, index, given string) error {
	if given == partitionerAuto {
		return err
	}
	p, perr := parsePartitioner(given)
	if perr != nil {
		return err
	}
	ix, derr := audit.OpenDetected(index, partitionindex.OpenOptions{})
	if derr != nil {
		return err
	}
	defer ix.Close()
	if fit := ix.Partitioner(); fit != p {
		return fmt.Errorf("%w (%s fits the %v partitioner, not %v: try --partitioner auto)", err, index, fit, p)
	}
	return err
}

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

const verifyUsage = `usage: bti verify --index Partitions.db --in keys.tsv [--partitioner auto|P]
       bti verify --deep --index Partitions.db [--in keys.tsv] [--partitioner auto|P] [--positions any|increasing]

Checks Partitions.db against keys.tsv: the footer's count and first and last
keys, that every key resolves (Get) to its position, and that a forward scan
yields the positions in file order. Prints a one-line summary; every mismatch
is reported on stderr with its keys.tsv line (the first 10 in full). Exit
status 1 on any mismatch. The partitioner (default auto: detected from the
index, see "bti get -h") also orders keys.tsv.

--deep first audits the file on its own as "bti check" does (then --in is
optional), then compares the keys if given.
`

// maxReported bounds the mismatches printed one by one.
const maxReported = 10

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", verifyUsage)
	index := fs.String("index", "", "Partitions.db to check (required)")
	in := fs.String("in", "", "keys.tsv or keys.tsv.bz2 the index was built from (required)")
	part := addPartitionerFlag(fs, true)
	deep := fs.Bool("deep", false, "audit the file's structure first (bti check); --in becomes optional")
	cf := addCheckFlags(fs)
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if *deep {
		return verifyDeep(*index, *in, *part, cf, stdout, stderr)
	}
	if err := required(fs, "index", "in"); err != nil {
		return err
	}
	if err := checkPartitionerFlag(*part); err != nil {
		return err
	}
	var ix *partitionindex.Index
	var p partitioner.Partitioner
	if *part == partitionerAuto {
		// The index says which partitioner orders keys.tsv.
		var note string
		if ix, note, err = openIndex(*index, *part); err != nil {
			return err
		}
		defer ix.Close()
		if p = ix.Partitioner(); note != "detected" {
			fmt.Fprintf(stderr, "bti verify: partitioner %v (%s)\n", p, note)
		}
	} else if p, err = parsePartitioner(*part); err != nil {
		return err
	}
	ks, err := loadKeys(*in, p, newProgress(stderr))
	if err != nil {
		if ix == nil {
			err = hintOrder(err, *index, p)
		}
		return err
	}
	if ix == nil {
		if ix, _, err = openIndex(*index, *part); err != nil {
			return err
		}
		defer ix.Close()
	}
	problems, err := verifyIndex(ix, ks, stderr)
	if err != nil {
		return fmt.Errorf("%s: %w", *index, err)
	}
	if problems > 0 {
		return &checkFailed{fmt.Sprintf("FAILED: %s does not match %s: %d problems", *index, *in, problems)}
	}
	fmt.Fprintf(stdout, "ok: %s matches %s: %d keys found at their positions, footer and scan order agree\n", *index, *in, len(ks.keys))
	return nil
}

// verifyIndex checks ix against ks, reporting each problem to w. It
// returns the number of problems; an error means the index could not be
// read (corrupt bytes).
func verifyIndex(ix *partitionindex.Index, ks *keySet, w io.Writer) (int, error) {
	problems := 0
	report := func(format string, a ...any) {
		problems++
		if problems <= maxReported {
			fmt.Fprintf(w, "bti verify: "+format+"\n", a...)
		} else if problems == maxReported+1 {
			fmt.Fprintf(w, "bti verify: (further problems counted, not shown)\n")
		}
	}
	err := verifyKeys(ix, ks, len(ks.keys), func(msg string) bool {
		report("%s", msg)
		return true
	})
	return problems, err
}

// hintOrder adds to an error reading keys.tsv under a given partitioner
// which partitioner the index fits, if another: keys that do not sort are
// often keys of another partitioner.
func hintOrder(err error, index string, given partitioner.Partitioner) error {
	data, rerr := os.ReadFile(index)
	if rerr != nil {
		return err
	}
	if p, derr := partitionindex.DetectPartitioner(data); derr == nil && p != given {
		return fmt.Errorf("%w (%s fits the %v partitioner, not %v: try --partitioner auto)", err, index, p, given)
	}
	return err
}

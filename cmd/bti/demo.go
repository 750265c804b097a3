package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitionindex"
)

const demoUsage = `usage: bti demo [--count N] [--seed S] [--partitioner P]

Generates N UUID keys (package keygen; default 1,000,000; Murmur3 unless
--partitioner says otherwise), builds the
index into memory with both builder paths (scratch and reference), checks that
the two files are byte-identical and that every key resolves to its position,
and prints a comparison: index bytes, build ns/key, allocated B/key and
allocs/key for each path (measured as "bti build --stats" does), and the
single-thread time of a Get of a present key in random order.
Exit status 1 if the files differ or a key does not resolve.
`

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", demoUsage)
	count := fs.Int("count", 1_000_000, "number of keys")
	seed := fs.Uint64("seed", 1, "random seed of the keys")
	part := addPartitionerFlag(fs, false)
	if err := parseCommand(fs, args, stdout); err != nil {
		return err
	}
	if *count < 1 {
		return usagef("--count %d: want >= 1", *count)
	}
	p, err := parsePartitioner(*part)
	if err != nil {
		return err
	}

	start := time.Now()
	cfg := workload.MurmurUUID(*count)
	cfg.Seed, cfg.Partitioner = *seed, p
	ks, err := generatedKeys(cfg, p.String()+"-uuid")
	if err != nil {
		return err
	}
	// Cassandra's class name less "Partitioner": "Murmur3", "ByteOrdered".
	name := strings.TrimSuffix(strings.TrimPrefix(p.ClassName(), "org.apache.cassandra.dht."), "Partitioner")
	fmt.Fprintf(stdout, "bti demo: %d %s UUID keys (seed %d), generated and sorted in %v\n\n",
		len(ks.keys), name, *seed, time.Since(start).Round(time.Millisecond))

	paths := buildpath.All
	results := make([]*buildResult, len(paths))
	for i, p := range paths {
		res, err := buildIndex(ks, partitionindex.Options{Partitioner: cfg.Partitioner}, p, nil, newProgress(stderr))
		if err != nil {
			return err
		}
		results[i] = res
	}

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tkeys\tindex bytes\tB/key (file)\tbuild ns/key\talloc B/key\tallocs/key\t")
	for i, p := range paths {
		s := results[i].stats(len(ks.keys), len(results[i].data), cfg.Partitioner, p)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.1f\t%.2f\t%.4f\t\n",
			s.Path, s.Keys, s.IndexBytes, s.IndexBytesPerKey, s.BuildNsPerKey, s.AllocBytesPerKey, s.AllocsPerKey)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	data := results[0].data
	identical := bytes.Equal(data, results[1].data)
	if identical {
		fmt.Fprintf(stdout, "\nscratch and reference files are byte-identical (sha256 %x)\n", sha256.Sum256(data))
	} else {
		fmt.Fprintf(stdout, "\nFAILED: scratch (%d bytes) and reference (%d bytes) files differ at byte %d\n",
			len(data), len(results[1].data), firstDiff(data, results[1].data))
	}

	ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: cfg.Partitioner})
	if err != nil {
		return err
	}
	problems, err := verifyIndex(ix, ks, stderr)
	if err != nil {
		return err
	}
	if problems == 0 {
		fmt.Fprintf(stdout, "verify: all %d keys resolve to their positions; footer and scan order agree\n", len(ks.keys))
	} else {
		fmt.Fprintf(stdout, "verify: FAILED with %d problems\n", problems)
	}

	ns, err := timeLookups(ix, ks)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lookup-hit: %.1f ns/op (Get of every key once, random order, 1 thread)\n", ns)

	if !identical || problems > 0 {
		return &checkFailed{"the demo's checks failed"}
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// timeLookups times one Get of every key, in random order.
func timeLookups(ix *partitionindex.Index, ks *keySet) (float64, error) {
	rd, err := ix.OpenReader()
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	order := rand.New(rand.NewPCG(3, 5)).Perm(len(ks.keys))
	start := time.Now()
	for _, i := range order {
		if _, _, err := rd.Get(&ks.keys[i]); err != nil {
			return 0, err
		}
	}
	return float64(time.Since(start).Nanoseconds()) / float64(len(order)), nil
}

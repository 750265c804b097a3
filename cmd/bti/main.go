// Command bti writes, reads, checks and benchmarks Apache Cassandra BTI
// partition indexes (Partitions.db). Run "bti help" for the subcommands.
//
// Exit status: 0 on success, 1 when a check failed or a key was not found,
// 2 on bad usage or bad input (the message names the line, key or offset).
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/bti-go/bti/jmhstyle"
)

func main() {
	// A benchmark fork child re-executes this binary with the parent's
	// arguments; it must run its benchmark before anything else happens.
	if jmhstyle.MaybeRunFork(append(forkBenchmarks(os.Args[1:]), forkRowsBenchmarks(os.Args[1:])...)) {
		return
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand: its one-line summary and its entry point.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"gen", "generate a sorted keys.tsv", runGen},
		{"build", "build Partitions.db from keys.tsv", runBuild},
		{"get", "look keys up in Partitions.db", runGet},
		{"verify", "check Partitions.db against keys.tsv", runVerify},
		{"check", "audit Partitions.db (and Rows.db, --rows) against the writer's rules", runCheck},
		{"dump", "print the footer, statistics and nodes of Partitions.db", runDump},
		{"bench", "run JMH-style benchmarks of building and lookups", runBench},
		{"demo", "generate 1M keys, build with both paths, compare and verify", runDemo},
		{"rows", "build, read and dump the row index (Rows.db)", runRows},
	}
}

// run is the whole program minus process exit, so tests can call it.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "bti: internal error: %v\n", r)
			if os.Getenv("BTI_TRACEBACK") != "" {
				fmt.Fprintf(stderr, "%s", debug.Stack())
			}
			code = exitUsage
		}
	}()
	if len(args) == 0 {
		writeMainUsage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if name == "help" && len(rest) > 0 {
			// "bti help build" is "bti build -h".
			return run([]string{rest[0], "-h"}, stdout, stderr)
		}
		writeMainUsage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return exitCode(stderr, c.name, c.run(rest, stdout, stderr))
		}
	}
	fmt.Fprintf(stderr, "bti: unknown command %q (run \"bti help\")\n", name)
	return exitUsage
}

func writeMainUsage(w io.Writer) {
	fmt.Fprint(w, `bti writes and reads Apache Cassandra's BTI partition index (Partitions.db).

usage: bti <command> [flags]

commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
"bti help <command>" or "bti <command> -h" describes a command's flags.

keys.tsv has one partition per line, "<lowercase hex key>\t<signed decimal
position>", in the partitioner's decorated-key order; a position >= 0 is a
Rows.db offset, a negative one ^dataPosition. Files ending in .bz2 are read
decompressed.

exit status: 0 success, 1 a check failed or a key was not found,
2 bad usage or bad input.
`)
}

package jmhstyle

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Provenance says what produced a set of results, so that a number quoted
// later can be traced to the code, toolchain, machine and invocation that
// produced it.
type Provenance struct {
	Module string `json:"module"` // main module path, "" if unknown
	// Package, if set, is the Go package named on benchfmt's "pkg:" line
	// instead of Module: the package whose go test benchmarks these results
	// correspond to, so that benchstat groups the two outputs together.
	Package string `json:"package,omitempty"`
	// Revision is the VCS revision of the code that ran and Modified whether
	// its working tree had uncommitted changes (nil: unknown).
	Revision string `json:"revision"`
	Modified *bool  `json:"modified"`
	VCSTime  string `json:"vcs_time,omitempty"`
	// RevisionSource says where Revision and Modified came from:
	// "buildinfo" (stamped into the binary by go build), "git" (the binary
	// carries no VCS stamp, as go run and go test binaries do not, so
	// "git rev-parse HEAD" and "git status --porcelain" were run in the
	// working directory, which is then assumed to be the source checkout)
	// or "unknown".
	RevisionSource string `json:"revision_source"`

	GoVersion  string `json:"go_version"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPU        string `json:"cpu"` // model name from /proc/cpuinfo, "" if unavailable
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`

	Command []string `json:"command"` // os.Args: program and flags exactly as given
	Dir     string   `json:"dir"`     // working directory
	Started string   `json:"started"` // RFC 3339, when the provenance was taken
}

// CollectProvenance describes the running program. It runs git only when
// the binary lacks a VCS stamp, and never fails: what cannot be found is
// left empty (or nil) and RevisionSource says how much is known.
func CollectProvenance() Provenance {
	p := Provenance{
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		CPU:        cpuModel(),
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Command:    append([]string(nil), os.Args...),
		Started:    time.Now().UTC().Format(time.RFC3339),
	}
	p.Dir, _ = os.Getwd()
	p.RevisionSource = "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		p.Module = bi.Main.Path
		fromBuildInfo(&p, bi.Settings)
	}
	if p.RevisionSource == "unknown" {
		fromGit(&p, p.Dir)
	}
	return p
}

// fromBuildInfo takes the vcs.* settings that go build stamps into a binary
// built inside a checkout (-buildvcs=auto).
func fromBuildInfo(p *Provenance, settings []debug.BuildSetting) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			p.Revision = s.Value
			p.RevisionSource = "buildinfo"
		case "vcs.modified":
			m := s.Value == "true"
			p.Modified = &m
		case "vcs.time":
			p.VCSTime = s.Value
		}
	}
	if p.RevisionSource != "buildinfo" {
		p.Modified, p.VCSTime = nil, ""
	}
}

// fromGit asks git about the checkout containing dir. Like go build's own
// stamp, any line of "git status --porcelain" (untracked files included)
// counts as modified.
func fromGit(p *Provenance, dir string) {
	rev, err := gitOutput(dir, "rev-parse", "HEAD")
	if err != nil {
		return
	}
	status, err := gitOutput(dir, "status", "--porcelain")
	if err != nil {
		return
	}
	m := status != ""
	p.Revision, p.Modified, p.RevisionSource = rev, &m, "git"
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// cpuModel returns the first "model name" of /proc/cpuinfo (Linux on x86
// and most arm64 kernels); elsewhere it is empty rather than a guess.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Lines returns the provenance as "key: value" lines, keys lower case
// without spaces. The first four (goos, goarch, pkg, cpu) are the ones go
// test prints above its benchmarks; Benchfmt writes those as configuration
// lines and the rest as comments (see WriteBenchfmt).
func (p Provenance) Lines() []string {
	modified := "unknown"
	if p.Modified != nil {
		modified = strconv.FormatBool(*p.Modified)
	}
	pkg := p.Package
	if pkg == "" {
		pkg = p.Module
	}
	kv := [][2]string{
		{"goos", p.GOOS}, {"goarch", p.GOARCH}, {"pkg", pkg}, {"cpu", p.CPU},
		{"module", p.Module}, {"go-version", p.GoVersion}, {"gomaxprocs", strconv.Itoa(p.GOMAXPROCS)},
		{"vcs-revision", p.Revision}, {"vcs-modified", modified}, {"vcs-source", p.RevisionSource},
		{"command", strings.Join(p.Command, " ")}, {"started", p.Started},
	}
	var lines []string
	for _, e := range kv {
		if e[1] != "" {
			// A newline would end the line early; there is no escaping.
			lines = append(lines, e[0]+": "+strings.ReplaceAll(e[1], "\n", " "))
		}
	}
	return lines
}

// goTestConfigKeys are the configuration keys go test prints.
var goTestConfigKeys = map[string]bool{"goos": true, "goarch": true, "pkg": true, "cpu": true}

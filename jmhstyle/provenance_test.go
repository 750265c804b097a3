package jmhstyle

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestCollectProvenance(t *testing.T) {
	p := CollectProvenance()
	if p.GoVersion != runtime.Version() || p.GOOS != runtime.GOOS || p.GOARCH != runtime.GOARCH ||
		p.GOMAXPROCS != runtime.GOMAXPROCS(0) || len(p.Command) == 0 || p.Started == "" {
		t.Errorf("provenance %+v", p)
	}
	// A test binary carries no VCS stamp, so inside a checkout the revision
	// comes from git, and outside one it is unknown; it never claims
	// buildinfo.
	switch p.RevisionSource {
	case "git":
		if len(p.Revision) < 40 || p.Modified == nil {
			t.Errorf("git provenance %+v", p)
		}
	case "unknown":
		if p.Revision != "" || p.Modified != nil {
			t.Errorf("unknown provenance with a revision: %+v", p)
		}
	default:
		t.Errorf("revision source %q in a test binary", p.RevisionSource)
	}
	if _, err := os.Stat("/proc/cpuinfo"); err == nil && runtime.GOARCH == "amd64" && p.CPU == "" {
		t.Error("no CPU model although /proc/cpuinfo exists")
	}
}

func TestProvenanceFromBuildInfo(t *testing.T) {
	var p Provenance
	p.RevisionSource = "unknown"
	fromBuildInfo(&p, []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "T"}})
	if p.Revision != "abc" || p.Modified == nil || !*p.Modified || p.VCSTime != "T" || p.RevisionSource != "buildinfo" {
		t.Errorf("%+v", p)
	}
	p = Provenance{RevisionSource: "unknown"}
	fromBuildInfo(&p, []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}})
	if p.Modified != nil || p.RevisionSource != "unknown" {
		t.Errorf("modified without a revision must not count: %+v", p)
	}
}

func TestProvenanceFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := gitOutput(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f")
	git("commit", "-q", "-m", "one")
	head := git("rev-parse", "HEAD")

	p := Provenance{RevisionSource: "unknown"}
	fromGit(&p, dir)
	if p.Revision != head || p.Modified == nil || *p.Modified || p.RevisionSource != "git" {
		t.Errorf("clean checkout: %+v", p)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	fromGit(&p, dir)
	if p.Modified == nil || !*p.Modified {
		t.Errorf("edited checkout not modified: %+v", p)
	}
	p = Provenance{RevisionSource: "unknown"}
	fromGit(&p, t.TempDir()) // not a checkout
	if p.RevisionSource != "unknown" || p.Revision != "" {
		t.Errorf("outside a checkout: %+v", p)
	}
}

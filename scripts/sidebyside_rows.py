#!/usr/bin/env python3
"""sidebyside_rows.py ROWS_ORACLE BTI ROWS_TSV OUTDIR [--rounds N]

Side by side of the row index build on the same rows.tsv: Cassandra's
RowIndexWriter (rows-oracle rows IN OUT --reps 30 --warmup 200: median ns per
block of the write loop) and bti's (bti rows bench --in IN --format json,
path=scratch: ns per block, JMH-style, 1 fork), alternating fresh processes,
Java first in odd rounds. Byte identity first: both Rows.db must be equal.
The row case of ../shared/tools/oracle/sidebyside.py (which times the
partition index only). rows-oracle is built by the recipe in ../shared/tools/oracle/README.

Example, from the repository root:
  python3 scripts/sidebyside_rows.py ORACLE_DIR/rows-oracle /tmp/bti \
      ../shared/golden-rows/bigint-uuid-5000/rows.tsv /tmp/sbs-rows --rounds 5"""
import json, os, statistics, subprocess, sys, argparse, filecmp

def load():
    return os.getloadavg()[0]

def java(a, out):
    r = subprocess.run([a.oracle, "rows", a.rows, out, "--reps", "30", "--warmup", "200"], capture_output=True, text=True, check=True)
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)["ns_per_block"]
    raise SystemExit("rows-oracle printed no JSON line:\n" + r.stdout)

def go(a):
    r = subprocess.run([a.bti, "rows", "bench", "--in", a.rows, "--format", "json", "--forks", "1"], capture_output=True, text=True, check=True)
    for x in json.loads(r.stdout)["results"]:
        if x["params"].get("path") == "scratch":
            return x["ns_per_op"]
    raise SystemExit("no scratch row in bti rows bench output")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("oracle"); ap.add_argument("bti"); ap.add_argument("rows"); ap.add_argument("outdir")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    jo, bo = os.path.join(a.outdir, "java"), os.path.join(a.outdir, "bti-Rows.db")
    subprocess.run([a.oracle, "rows", a.rows, jo], check=True, capture_output=True)
    subprocess.run([a.bti, "rows", "build", "--in", a.rows, "--out", bo], check=True, capture_output=True)
    same = filecmp.cmp(os.path.join(jo, "Rows.db"), bo, shallow=False)
    print("identity: Rows.db %s" % ("byte-identical" if same else "DIFFERS"), flush=True)
    if not same:
        sys.exit(1)
    js, gs, ratios = [], [], []
    for rnd in range(1, a.rounds + 1):
        steps = [("java", lambda: java(a, jo)), ("go", lambda: go(a))]
        if rnd % 2 == 0:
            steps.reverse()
        got = {}
        for name, f in steps:
            l = load(); got[name] = f()
            print("round %d %s %.1f ns/block (load %.2f)" % (rnd, name, got[name], l), flush=True)
        js.append(got["java"]); gs.append(got["go"]); ratios.append(got["java"] / got["go"])
    med = statistics.median
    print("rows build per block: Java %.1f [%.1f-%.1f]  bti %.1f [%.1f-%.1f]  Java/bti %.2fx [%.2f-%.2f]" % (
        med(js), min(js), max(js), med(gs), min(gs), max(gs), med(ratios), min(ratios), max(ratios)))

main()

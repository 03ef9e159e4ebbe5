#!/usr/bin/env python3
"""`tilescope diff`: one verdict rule for every total (issue 26 item 5).

On every ordered pair of the sample reports (single-IPU reports, so
memory.ipu0.<figure> is the whole report's memory.<figure>):
  - memory.ipu0.total_including_gaps and memory.total_including_gaps, and
    memory.ipu0.total and memory.total, have equal values and therefore
    the same verdict, in the JSON, the text and the Markdown;
  - the verdict of every delta follows the one rule: costs (memory.*,
    cycles.*, steps.*) better lower, worse higher; flops.* and graph.*
    only "changed"; a gaps pair moving apart "changed" on both sides;
  - the pair tut7_mk1 -> tut5_ml, whose totals excluding and including
    gaps move apart, is such a pair, with the note, so the rule's
    exception is exercised.

usage: check-cli-diff-verdicts.py TILESCOPE SAMPLE_DIR
"""
import itertools
import json
import os
import subprocess
import sys

PAIRS = {
    "memory.total": "memory.total_including_gaps",
    "memory.max_tile_excluding_gaps": "memory.max_tile",
}
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def run(ts, *args):
    env = dict(os.environ, TILESCOPE_PROGRESS="never")
    for k in ("NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"):
        env.pop(k, None)
    p = subprocess.run([ts, "diff", "--all", *args], capture_output=True, text=True, env=env)
    if p.returncode not in (0, 1):
        fail(f"diff {args} exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def counterpart(metric):
    for a, b in PAIRS.items():
        if metric == a:
            return b
        if metric == b:
            return a
    if metric.startswith("memory.ipu"):
        ipu, _, rest = metric[len("memory.ipu"):].partition(".")
        if ipu.isdigit() and rest == "total":
            return f"memory.ipu{ipu}.total_including_gaps"
        if ipu.isdigit() and rest == "total_including_gaps":
            return f"memory.ipu{ipu}.total"
    return None


def move(d):
    b = d["base"] if d["in_base"] else 0
    n = d["new"] if d["in_new"] else 0
    return (n > b) - (n < b)


def expected(d, by_name):
    m = d["metric"]
    mv = move(d)
    if mv == 0 and d["in_base"] == d["in_new"]:
        return "same"
    kind = m.split(".", 1)[0]
    if kind in ("flops", "graph") or mv == 0:
        return "changed"
    if kind not in ("memory", "cycles", "steps"):
        fail(f"{m}: a metric of no known kind")
        return "changed"
    c = by_name.get(counterpart(m))
    if c and c["in_base"] and c["in_new"] and d["in_base"] and d["in_new"] and move(c) == -mv:
        return "changed"
    return "better" if mv < 0 else "worse"


def text_verdicts(out):
    """metric -> verdict word from the text output's rows."""
    got = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 2 and "." in words[0] and words[-1] in ("better", "worse", "same",
                                                                   "changed"):
            got[words[0]] = words[-1]
    return got


def main():
    ts, samples = sys.argv[1], sys.argv[2]
    names = ["tut4_profiling", "tut5_ml", "tut7_mk1", "tut7_mk1_small"]
    mixed_seen = False
    for a, b in itertools.permutations(names, 2):
        pa, pb = os.path.join(samples, a), os.path.join(samples, b)
        doc = json.loads(run(ts, "--format=json", pa, pb))
        by_name = {d["metric"]: d for d in doc["deltas"]}
        for whole, ipu in (("memory.total_including_gaps", "memory.ipu0.total_including_gaps"),
                           ("memory.total", "memory.ipu0.total")):
            w, i = by_name.get(whole), by_name.get(ipu)
            if not w or not i:
                fail(f"{a} -> {b}: {whole} or {ipu} missing")
            if not w or not i:
                continue
            if (w["base"], w["new"]) != (i["base"], i["new"]):
                fail(f"{a} -> {b}: {ipu} is not {whole} on a one-IPU report")
            elif w["verdict"] != i["verdict"]:
                fail(f"{a} -> {b}: {whole} says {w['verdict']} but {ipu} says "
                     f"{i['verdict']} for the same change")
        for d in doc["deltas"]:
            want = expected(d, by_name)
            if d["verdict"] != want:
                fail(f"{a} -> {b}: {d['metric']} says {d['verdict']}, the rule says {want}")
        mixed = by_name["memory.total_including_gaps"]["verdict"] == "changed" and \
            move(by_name["memory.total_including_gaps"]) != 0
        if mixed:
            mixed_seen = True
            if not any("neither is better" in n for n in doc["notes"]):
                fail(f"{a} -> {b}: the totals moved apart without the note")
        # The text and Markdown outputs print the same words.
        text = text_verdicts(run(ts, pa, pb))
        for m in ("memory.total_including_gaps", "memory.ipu0.total_including_gaps",
                  "memory.total", "memory.ipu0.total"):
            if m in by_name and text.get(m) != by_name[m]["verdict"]:
                fail(f"{a} -> {b}: the text says {m} {text.get(m)}, the JSON "
                     f"{by_name[m]['verdict']}")
        md = run(ts, "--format=markdown", pa, pb)
        for m in ("memory.total_including_gaps", "memory.ipu0.total_including_gaps"):
            cell = "| " + m.replace("_", "\\_") + " |"
            row = [line for line in md.splitlines() if line.startswith(cell)]
            if not row or by_name[m]["verdict"] not in row[0]:
                fail(f"{a} -> {b}: the Markdown row of {m} lacks {by_name[m]['verdict']}")
    if not mixed_seen:
        fail("no pair of sample reports moved the gaps totals apart: the exception went untested")
    if failures == 0:
        print("PASS: one verdict per figure across totals and per-IPU figures, every format")
    sys.exit(1 if failures else 0)


main()

#!/usr/bin/env python3
"""A CI gate on a profile, written against libpva's names (`import pva`):
total and per-tile memory, the compute sets a model must have (by
pattern), peak liveness and the cycles of each run within a tolerance.

    ci_check.py REPORT [--max-total BYTES] [--max-tile BYTES]
                [--compute-set REGEX ...] [--max-peak-liveness BYTES]
                [--cycles NAME=CYCLES ...] [--tolerance PERCENT]

Prints one line per check and exits 1 when any fails.
"""
import argparse
import re
import sys

import pva


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--max-total", type=int, help="bytes, all tiles, including gaps")
    ap.add_argument("--max-tile", type=int, help="bytes on the fullest tile, including gaps")
    ap.add_argument("--compute-set", action="append", default=[], metavar="REGEX",
                    help="a compute set whose name matches must exist")
    ap.add_argument("--max-peak-liveness", type=int, help="always-live + peak not-always-live")
    ap.add_argument("--cycles", action="append", default=[], metavar="NAME=CYCLES",
                    help="each run of program NAME takes CYCLES within the tolerance")
    ap.add_argument("--tolerance", type=float, default=5.0, help="percent (default 5)")
    args = ap.parse_args()
    try:
        report = pva.openReport(args.report)
    except pva.Error as e:
        sys.exit(f"ci_check: {e}")
    c = report.compilation
    checks = []

    def check(ok, what):
        checks.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {what}")

    if args.max_total is not None:
        total = sum(t.memory.total.includingGaps for t in c.tiles)
        check(total <= args.max_total, f"total memory {total} <= {args.max_total}")
    if args.max_tile is not None:
        fullest = max(c.tiles, key=lambda t: t.memory.total.includingGaps)
        used = fullest.memory.total.includingGaps
        check(used <= args.max_tile, f"tile {fullest.number}: {used} <= {args.max_tile}")
    names = [cs.name for cs in c.computeSets]
    for pattern in args.compute_set:
        n = sum(1 for name in names if re.search(pattern, name))
        check(n > 0, f"compute sets matching /{pattern}/: {n}")
    if args.max_peak_liveness is not None:
        peak = c.alwaysLiveMemory.bytes + max(
            (s.notAlwaysLiveMemory.bytes for s in c.livenessProgramSteps), default=0)
        check(peak <= args.max_peak_liveness, f"peak liveness {peak} <= {args.max_peak_liveness}")
    for spec in args.cycles:
        name, _, want = spec.rpartition("=")
        runs = [r for r in report.execution.runs if r.name == name]
        check(bool(runs), f"runs of {name}: {len(runs)}")
        for r in runs:
            off = abs(r.cycles - int(want)) * 100.0 / max(int(want), 1)
            check(off <= args.tolerance,
                  f"{name}: {r.cycles} cycles, {off:.1f}% from {want} (<= {args.tolerance}%)")
    sys.exit(0 if all(checks) else 1)


if __name__ == "__main__":
    main()

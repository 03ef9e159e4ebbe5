"""What reading a large report costs from Python (issue 30), as run.sh
figure lines: openReport, a walk of every liveness step summing
notAlwaysLiveMemory.bytes, and every tile's memory, each the best of a
few runs on a freshly opened report (so first-use reads count).

usage: PYTHONPATH=BUILD/python python3 tests/bench/python-pva.py REPORT
"""
import sys
import time

import pva

REPEATS = 5


def best(fn):
    times = []
    for _ in range(REPEATS):
        report = pva.openReport(sys.argv[1]) if fn is not open_report else None
        start = time.perf_counter()
        fn(report)
        times.append(time.perf_counter() - start)
    return min(times)


def open_report(_):
    pva.openReport(sys.argv[1])


def liveness(report):
    return sum(s.notAlwaysLiveMemory.bytes for s in report.compilation.livenessProgramSteps)


def tile_memory(report):
    return [t.memory.total.includingGaps for t in report.compilation.tiles]


r = pva.openReport(sys.argv[1])
print(f"# {len(r.compilation.tiles)} tiles, "
      f"{len(r.compilation.livenessProgramSteps)} liveness steps", file=sys.stderr)
print(f"python.open_report_s {best(open_report):.3f} s (target <= 0.5)")
print(f"python.liveness_walk_s {best(liveness):.3f} s (target <= 0.5)")
print(f"python.tile_memory_s {best(tile_memory):.3f} s (target <= 0.2)")

"""What reading a large report costs from Python (issue 30), as run.sh
figure lines: openReport, a walk of every liveness step summing
notAlwaysLiveMemory.bytes, and every tile's memory, each the best of a
few runs on a freshly opened report (so first-use reads count).

Before timing, the figures it sums are checked against the `tilescope`
command ($TILESCOPE, else on PATH) on the same report: suite python checks
them on the small reports, and only the bench has the large one (making
it takes minutes), so a wrong figure there fails the bench, not a timing.

usage: TILESCOPE=BUILD/cli-summary/tilescope PYTHONPATH=BUILD/python \
       python3 tests/bench/python-pva.py REPORT
"""
import json
import os
import subprocess
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


def tilescope_json(*args):
    return json.loads(subprocess.run([os.environ.get("TILESCOPE", "tilescope"), *args],
                                     check=True, capture_output=True, text=True).stdout)


def check(r, path):
    """The summary's totals from the object model; exits 1 naming the first
    figure that differs."""
    s = tilescope_json("summary", "--json", path)
    c, m = r.compilation, s["memory"][0]
    variables = tilescope_json("sql", "--json", path, "SELECT count(*) AS n FROM variable")[0]["n"]
    peak = max(st.notAlwaysLiveMemory.bytes for st in c.livenessProgramSteps)
    for name, got, want in (
            ("summary()", r.summary(), s),
            ("tile memory", sum(t.memory.total.includingGaps for t in c.tiles),
             m["includingGaps"]),
            ("tiles.maxMemory", c.tiles.maxMemory, m["maxTileIncludingGaps"]["bytes"]),
            ("peak liveness", c.alwaysLiveMemory.bytes + peak, s["liveness"]["maxLiveBytes"]),
            ("variables", len(c.variables), variables)):
        if got != want:
            sys.exit(f"python-pva.py: {name} is not tilescope's on {path}" +
                     ("" if name == "summary()" else f": {got} != {want}"))


r = pva.openReport(sys.argv[1])
check(r, sys.argv[1])
print(f"# {len(r.compilation.tiles)} tiles, "
      f"{len(r.compilation.livenessProgramSteps)} liveness steps", file=sys.stderr)
print(f"python.open_report_s {best(open_report):.3f} s (target <= 0.5)")
print(f"python.liveness_walk_s {best(liveness):.3f} s (target <= 0.5)")
print(f"python.tile_memory_s {best(tile_memory):.3f} s (target <= 0.2)")

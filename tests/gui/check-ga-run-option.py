#!/usr/bin/python3
"""The Graph Analyser's --run N, as the System Analyser launches it.

1. Bad uses are refused before any window: `--run x` and `--run 1 --view
   memory` exit 2 with one line on stderr.
2. `tilescope-graph-analyser --run N REPORT` opens on the Execution Trace
   (its lanes, accessible name "Execution trace", are showing without a
   view being picked: the sidebar's selected entry is "Execution
   Trace") at run N: the lanes describe run N with the cycles
   and step count the file has for it (`tilescope sql`), for N = 0 and
   for N = 1 (neither is the run the view shows by default, the last).

    check-ga-run-option.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import csv
import io
import os
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import find, finish, running_app, wait_for  # noqa: E402


def sql(tilescope, report, query):
    out = subprocess.run([tilescope, "sql", "--csv", report, query], check=True,
                         capture_output=True, text=True).stdout
    return next(csv.DictReader(io.StringIO(out)))


def selected_view(app):
    """The name of the sidebar's selected entry (GTK 4.8 states no
    "selected" or "showing" on the rows: the list's selection does)."""
    entry = find(app, lambda a: a.name == "Execution Trace" and
                 a.getRole() == pyatspi.ROLE_LABEL and a.parent is not None and
                 a.parent.getRole() == pyatspi.ROLE_LIST_ITEM)
    if entry is None:
        return None
    sel = entry.parent.parent.querySelection()
    if sel.nSelectedChildren != 1:
        return None
    row = sel.getSelectedChild(0)
    names = [row.getChildAtIndex(i).name for i in range(row.childCount)]
    return names[0] if names else None


def main():
    app_path, tilescope, report = sys.argv[1:4]
    failures = []
    for args in (["--run", "x", report], ["--run", "1", "--view", "memory", report]):
        # (It refuses before it opens a window; the deadline is a guard.)
        p = subprocess.run([app_path] + args, capture_output=True, text=True, timeout=300)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or "--run" not in lines[0]:
            failures.append(f"{args} gave {p.returncode} and {p.stderr!r}")
    runs = int(sql(tilescope, report, "SELECT count(*) AS n FROM run")["n"])
    if runs < 3:
        raise SystemExit(f"FAIL: {report} has {runs} runs; the test needs 3")
    for n in (0, 1):
        row = sql(tilescope, report,
                  f"SELECT cycles, (SELECT count(*) FROM step WHERE run = {n}) AS steps "
                  f"FROM run WHERE id = {n}")
        want = (f"Run {n} (of {runs}): {int(row['cycles']):,} cycles, "
                f"{int(row['steps']):,} steps")
        # As the System Analyser launches it (sa-graph-link.c).
        with running_app(app_path, ["--run", str(n), "--", report]) as (proc, app, tmp):
            lanes = find(app, lambda a: a.name == "Execution trace" and
                         a.getRole() == pyatspi.ROLE_IMAGE)
            if lanes is None:
                failures.append(f"--run {n}: no image named 'Execution trace'")
                continue
            if not wait_for(lambda: (lanes.description or "").startswith(want)):
                failures.append(f"--run {n}: the lanes say {lanes.description!r}; "
                                f"the file has {want!r}")
            if not wait_for(lambda: selected_view(app) == "Execution Trace"):
                failures.append(f"--run {n}: the view shown is {selected_view(app)!r}")
            print(f"--run {n}:", lanes.description)
    finish(failures)


if __name__ == "__main__":
    main()

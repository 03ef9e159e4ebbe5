#!/usr/bin/python3
"""The Execution Trace view, used as a person would.

1. Opens REPORT and selects "Execution Trace" in the sidebar: the lanes
   (accessible name "Execution trace") must describe the run
   `tilescope summary --json` chose (execution.run, the last) with its
   total cycles (execution.totalCycles) and its step count as the file
   has it (`SELECT count(*) FROM step WHERE run = N`), and show all of it.
2. Focuses the lanes and zooms in with "+" twice: the visible range must
   shrink; Home must show the whole run again.
3. The chart kit's timeline convention (the System Analyser's too): W
   twice zooms in about the middle, D pans later by the same width, S
   twice zooms out again, and the wheel (no modifier) over the lanes
   zooms in at the pointer, keeping the cycle under it in place.
4. With no range marked, the run's Summary below the lanes: each step
   type's steps, cycles and share of the run as the file has them
   (`SELECT type, count(*), sum(cycles) FROM step`), all steps, and the
   tile and thread balance as `tilescope summary --json` gives them.

    check-trace.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import csv
import io
import json
import os
import re
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (figure, find, finish, other_views, running_app, show_view, sql,  # noqa: E402
                        text_of, wait_for, walk)


def fmt(n):
    return f"{n:,}"


def visible(desc):
    """The visible cycles [from, to] the description states."""
    m = re.search(r"Showing cycles ([\d,]+) – ([\d,]+)", desc or "")
    return (int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))) if m else None


def pct(text):
    """A percentage as the apps write it ("2.5 %"), as a fraction."""
    m = re.fullmatch(r"([\d.,]+) ?%", text.strip())
    return float(m.group(1).replace(",", "")) / 100 if m else None


def check_run_summary(app, tilescope, report, execution, failures):
    """4. The run's Summary with nothing marked, against the file and the CLI."""
    run, total = int(execution["run"]), execution["totalCycles"]
    rows = sql(tilescope, report, "SELECT type, count(*) AS n, sum(cycles) AS c FROM step "
               f"WHERE run = {run} GROUP BY type")
    prune = other_views("Execution Trace")
    want = [(r["type"], int(r["n"]), int(r["c"])) for r in rows]
    want.append(("All steps", sum(w[1] for w in want), sum(w[2] for w in want)))
    # The grid is filled at once: past its first figure, one walk reads it.
    if figure(app, "All steps, Cycles", prune=prune) is None:
        failures.append("no run Summary (All steps, Cycles) with nothing marked")
        return
    figures = {a.name: text_of(a) for a in walk(app, prune=prune)
               if a.getRole() == pyatspi.ROLE_LABEL and text_of(a) != a.name}
    for name, n, c in want:
        texts = [figures.get(f"{name}, {col}") for col in ("Steps", "Cycles", "Share")]
        share = pct(texts[2] or "")
        if (texts[0], texts[1]) != (fmt(n), fmt(c)) or share is None or \
                abs(share - c / total) > 0.0006:
            failures.append(f"the run's Summary says {name}: {texts}; the file has {n} steps, "
                            f"{c} cycles of {total}")
        print(f"summary {name}: {texts}")
    for caption, key in (("Tile balance", "tileBalance"), ("Thread balance", "threadBalance")):
        got = pct(figures.get(caption) or "")
        if got is None or abs(got - execution[key]) > 0.0006:
            failures.append(f"the run's Summary says {caption} {figures.get(caption)!r}; the CLI "
                            f"says {execution[key]}")
        print(f"summary {caption}: {figures.get(caption)}")


def main():
    app_path, tilescope, report = sys.argv[1:4]
    execution = json.loads(subprocess.run([tilescope, "summary", "--json", report], check=True,
                                          capture_output=True, text=True).stdout)["execution"]
    run, total = execution["run"], execution["totalCycles"]
    out = subprocess.run([tilescope, "sql", "--csv", report,
                          f"SELECT count(*) AS n FROM step WHERE run = {int(run)}"],
                         check=True, capture_output=True, text=True).stdout
    steps = int(next(csv.DictReader(io.StringIO(out)))["n"])
    want = f"Run {run} (of {execution['runs']}): {fmt(total)} cycles, {fmt(steps)} steps"
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Execution Trace") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Execution Trace'")
        lanes = find(app, lambda a: a.name == "Execution trace" and
                     a.getRole() == pyatspi.ROLE_IMAGE, prune=other_views("Execution Trace"))
        if lanes is None:
            raise SystemExit("FAIL: the view has no image named 'Execution trace'")
        if not wait_for(lambda: lanes.description.startswith(want) and
                        visible(lanes.description) == (0, total) and
                        f"{fmt(steps)} steps in view" in lanes.description):
            if not lanes.description.startswith(want):
                failures.append(f"the lanes say {lanes.description!r}; the file has {want!r}")
            if visible(lanes.description) != (0, total):
                failures.append(f"the whole run is not shown at first: {lanes.description!r}")
            if f"{fmt(steps)} steps in view" not in lanes.description:
                failures.append(f"not every step is in view at first: {lanes.description!r}")
        print("lanes:", lanes.description)
        check_run_summary(app, tilescope, report, execution, failures)

        # A click on the ruler focuses the lanes and selects nothing (the
        # window is at the screen's top left under Xvfb).
        x, y, w, h = lanes.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + 6), "click", "1"],
                       check=True)
        subprocess.run(["xdotool", "key", "plus", "plus"], check=True)
        if not wait_for(lambda: visible(lanes.description)[1] - visible(lanes.description)[0]
                        < total * 0.7):
            failures.append(f"'+' twice did not zoom in: {lanes.description!r}")
        print("after + +:", visible(lanes.description))
        subprocess.run(["xdotool", "key", "Home"], check=True)
        if not wait_for(lambda: visible(lanes.description) == (0, total)):
            failures.append(f"Home did not show the whole run: {lanes.description!r}")
        print("after Home:", visible(lanes.description))

        # 3. W/S/A/D and the wheel, as on the System Analyser's timeline.
        subprocess.run(["xdotool", "key", "w", "w"], check=True)
        if not wait_for(lambda: visible(lanes.description)[1] - visible(lanes.description)[0]
                        < total * 0.7):
            failures.append(f"'w' twice did not zoom in: {lanes.description!r}")
        zoomed = visible(lanes.description)
        print("after w w:", zoomed)
        subprocess.run(["xdotool", "key", "d"], check=True)
        if not wait_for(lambda: visible(lanes.description)[0] > zoomed[0] and
                        visible(lanes.description)[1] - visible(lanes.description)[0]
                        == zoomed[1] - zoomed[0]):
            failures.append(f"'d' did not pan later by the same width: {zoomed} then "
                            f"{lanes.description!r}")
        print("after d:", visible(lanes.description))
        subprocess.run(["xdotool", "key", "s", "s"], check=True)
        if not wait_for(lambda: visible(lanes.description)[1] - visible(lanes.description)[0]
                        > (zoomed[1] - zoomed[0]) * 2):
            failures.append(f"'s' twice did not zoom out: {lanes.description!r}")
        subprocess.run(["xdotool", "key", "Home"], check=True)
        wait_for(lambda: visible(lanes.description) == (0, total))
        # One wheel notch up over the lanes' middle (the lanes span the
        # plot's width less the names): the window narrows and still holds
        # the cycle that was under the pointer.
        px, py = x + w // 2, y + h // 2
        before = visible(lanes.description)
        subprocess.run(["xdotool", "mousemove", str(px), str(py), "click", "4"], check=True)
        if not wait_for(lambda: visible(lanes.description)[1] - visible(lanes.description)[0]
                        < (before[1] - before[0]) * 0.9):
            failures.append(f"the wheel did not zoom in: {before} then {lanes.description!r}")
        else:
            after = visible(lanes.description)
            # The plot starts past the lane names: the pointer's cycle is
            # where it was as a fraction of the plot, which this test
            # does not know exactly; both windows hold it, and the zoom
            # was about it, not about the start.
            if not (after[0] > before[0] and after[1] < before[1]):
                failures.append(f"the wheel did not zoom about the pointer: {before} then "
                                f"{after}")
        print("after the wheel:", visible(lanes.description))
    finish(failures)


if __name__ == "__main__":
    main()

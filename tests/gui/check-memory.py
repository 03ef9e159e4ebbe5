#!/usr/bin/python3
"""The Memory view and a hostile file, used as a person would.

1. Opens REPORT, selects "Memory" in the sidebar, writes "0-15, 52" into "Select tiles"
   and activates it (Enter); the Details figure "Total, Selection" (its row and
   column, as a screen reader names a table's cell) must equal the
   tiles' bytes as `tilescope sql` reads them from the file, and the chart
   ("Memory by tile") must say what is selected.
2. Turns "Include Gaps" on: the chart's description (its maximum) must
   change, and "Total including gaps, Selection" must equal the file's;
   then drags a rubber band across the chart with the pointer: the chart
   and "Select tiles" must show the tiles under it.
3. Opens a file that is not a report: the window shows reportlib's one
   line ("not an SQLite database") and the app stays up and usable (the
   "Open Another Report…" button is there, the process alive).

    check-memory.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (click, find, finish, is_figure, other_views, plain,  # noqa: E402
                        running_app, show_view, text_of, wait_for)

TILES = list(range(16)) + [52]


def sql_sum(tilescope, report, column):
    ids = ",".join(str(t) for t in TILES)
    out = subprocess.run([tilescope, "sql", "--csv", report,
                          f"SELECT sum({column}) AS s FROM tile_memory WHERE tile IN ({ids})"],
                         check=True, capture_output=True, text=True).stdout
    return int(out.splitlines()[1])





def check_memory(app_path, tilescope, report, tmp, failures):
    want_total = sql_sum(tilescope, report, "total")
    want_gaps = sql_sum(tilescope, report, "total_including_gaps")
    with running_app(app_path, [report]) as (proc, app, _):
        # Opens on Summary: go to Memory by its sidebar entry.
        if show_view(app, "Memory") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Memory'")
        memory = other_views("Memory")
        entry = find(app, lambda a: a.name == "Select tiles" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=memory)
        chart = find(app, lambda a: a.name == "Memory by tile", prune=memory)
        if entry is None or chart is None:
            raise SystemExit("FAIL: the Memory view has no 'Select tiles' entry or no chart")
        entry.queryEditableText().setTextContents("0-15, 52")
        entry.queryAction().doAction(0)  # "activate": Enter
        total = find(app, lambda a: is_figure(a, "Total, Selection"), prune=memory)
        if total is None:
            raise SystemExit("FAIL: no 'Total, Selection' figure after selecting tiles")
        if not wait_for(lambda: text_of(total) == f"{want_total:,}"):
            failures.append(f"Total, Selection shows {text_of(total)!r}, the file has "
                            f"{want_total:,}")
        if not wait_for(lambda: "selected" in (chart.description or "")):
            failures.append(f"the chart does not say what is selected: {chart.description!r}")
        before = chart.description
        gaps = find(app, lambda a: plain(a.name) == "Include Gaps" and
                    a.getRole() in (pyatspi.ROLE_CHECK_BOX, pyatspi.ROLE_TOGGLE_BUTTON),
                    prune=memory)
        if gaps is None:
            raise SystemExit("FAIL: no 'Include Gaps' check box")
        click(gaps)
        if not wait_for(lambda: chart.description != before):
            failures.append("Include Gaps did not change the chart: " + repr(before))
        with_gaps = find(app, lambda a: is_figure(a, "Total including gaps, Selection"),
                         prune=memory)
        if with_gaps is None or not wait_for(lambda: text_of(with_gaps) == f"{want_gaps:,}"):
            failures.append("Total including gaps, Selection shows "
                            f"{text_of(with_gaps) if with_gaps else None!r}, the file has "
                            f"{want_gaps:,}")
        print(f"memory: selection {want_total:,} B ({want_gaps:,} B with gaps) as the file "
              f"says; chart: {chart.description}")
        # A rubber band dragged with the pointer across a fifth of the chart
        # selects the tiles under it (real pointer events, through X).
        x, y, w, h = chart.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        x1, x2, ym = x + int(w * 0.45), x + int(w * 0.65), y + h // 2
        subprocess.run(["xdotool", "mousemove", str(x1), str(ym), "mousedown", "1",
                        "mousemove", str((x1 + x2) // 2), str(ym), "mousemove", str(x2), str(ym),
                        "mouseup", "1"], check=True)
        if not wait_for(lambda: "items selected" in chart.description and
                        "17 items selected" not in chart.description):
            failures.append("a rubber band over the chart selected nothing new: "
                            + repr(chart.description))
        else:
            # The app is busy for seconds after a selection of hundreds of
            # tiles (a read then gets no reply): polled, not read once.
            wait_for(lambda: text_of(entry) not in ("", "0-15, 52"))
            entry_text = text_of(entry)
            if not entry_text or entry_text == "0-15, 52":
                failures.append(f"the rubber band's tiles did not reach Select tiles: "
                                f"{entry_text!r}")
            print(f"rubber band: {entry_text}; chart: {chart.description}")


def check_hostile(app_path, tmp, failures):
    bad = os.path.join(tmp, "profile.pop")
    with open(bad, "wb") as f:
        f.write(b"This is not a report.\n" * 64)
    with running_app(app_path, [bad]) as (proc, app, _):
        # GTK 4.8 names a label by its text once the text is set.
        message = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and bad in a.name)
        if message is None:
            raise SystemExit("FAIL: no error message for a file that is not a report")
        shown = text_of(message)
        if "not an SQLite database" not in shown or bad not in shown:
            failures.append(f"the error message does not say what is wrong: {shown!r}")
        button = find(app, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                      "Open Another Report" in plain(a.name))
        if button is None:
            failures.append("no 'Open Another Report…' button after the error")
        # Still up: it answers on the bus (the window is still there) after
        # showing the error, and has not exited.
        if find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME) is None or \
                proc.poll() is not None:
            failures.append(f"the app exited ({proc.poll()}) after a bad file")
        print(f"hostile file: {shown!r}; the app is up")


def main():
    app_path, tilescope, report = sys.argv[1:4]
    failures = []
    with tempfile.TemporaryDirectory(prefix="ga-gui-") as tmp:
        check_memory(app_path, tilescope, report, tmp, failures)
        check_hostile(app_path, tmp, failures)
    finish(failures)


if __name__ == "__main__":
    main()

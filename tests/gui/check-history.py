"""Issue 32 item 3: the Graph Analyser opens a history store (known by its
application_id: the test's store is named history.sqlite) in its History
view. A store of sample reports added at four successive commits: the
metrics list and a metric's change points read through AT-SPI must be
those `tilescope history show` and `tilescope history changes --format
json` give; a run chosen on the chart with the keyboard shows its commit
and change in the details, Enter opens its report, and a run whose
report is gone says so in the view, and Compare with Previous opens a
run's report against the run before's. A damaged store and another
application's SQLite file each get one line in the window.

usage: check-history.py GRAPH-ANALYSER TILESCOPE SAMPLE-REPORTS-DIR"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import pyatspi

from atspi_util import (click, figure, find, finish, other_views, plain, running_app, show_view,
                        table_rows, text_of, wait_for)

# The runs: (commit, sample report). The third and fourth runs repeat the
# first's figures; the fourth's report is removed before the app opens.
RUNS = [("c1aaaa1111111111", "tut7_mk1_small"), ("c2bbbb2222222222", "tut7_mk1"),
        ("c3cccc3333333333", "tut7_mk1_small"), ("c4dddd4444444444", "gone")]
METRIC = "cycles.total"


def run(*args):
    return subprocess.run(list(args), check=True, capture_output=True, text=True).stdout


def cli_error(*args):
    """The one line a tilescope command that fails prints, without 'tilescope: '."""
    p = subprocess.run(list(args), capture_output=True, text=True)
    return p.stderr.strip().partition(": ")[2]


def thousands(v):
    return f"{v:,.0f}"


def cells(row):
    """A table row's texts: each cell's label's."""
    return [text_of(c.getChildAtIndex(0)) if c.childCount else text_of(c)
            for c in (row.getChildAtIndex(i) for i in range(row.childCount))]


def rows_of(app, title):
    """The rows (cell texts) of the History view's table `title`, the
    header's titles left out."""
    table = find(app, lambda a: a.getRole() in (pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE) and
                 a.name == title,
                 prune=other_views("History"), timeout=5)
    if table is None:
        return None
    header = {"Metric", "Commit"}
    return [c for c in (cells(r) for _, _, r in table_rows(table)) if c and c[0] not in header]


def key(*keys):
    subprocess.run(["xdotool", "key"] + list(keys), check=True)


def focus_chart(chart, item):
    """The keyboard on the chart at item `item`, as a person gets there:
    a click into it (which focuses it), then Left to the first run and
    Right to `item`."""
    x, y, w, h = chart.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1",
                    "mousemove", "0", "0"], check=True)
    wait_for(lambda: chart.getState().contains(pyatspi.STATE_FOCUSED), timeout=20)
    key(*(["Left"] * len(RUNS) + ["Right"] * item))


def main():
    ga, tilescope, samples = sys.argv[1:4]
    failures = []
    with tempfile.TemporaryDirectory(prefix="ts-history-") as tmp:
        store = os.path.join(tmp, "history.sqlite")
        gone = os.path.join(tmp, "gone")
        shutil.copytree(os.path.join(samples, "tut7_mk1_small"), gone)
        parent = None
        for t, (commit, report) in enumerate(RUNS):
            path = gone if report == "gone" else os.path.join(samples, report)
            run(tilescope, "history", "add", store, path, "--commit", commit, "--branch", "main",
                "--time", str(100 * (t + 1)), *(["--parent", parent] if parent else []))
            parent = commit
        shutil.rmtree(gone)
        changes = json.loads(run(tilescope, "history", "changes", store, "--format", "json"))
        series = json.loads(run(tilescope, "history", "show", store, "--metric", "*",
                                "--format", "json"))["metrics"]
        want_counts = {m["metric"]: 0 for m in series}
        for c in changes["changes"]:
            want_counts[c["metric"]] += 1
        want_changes = [c for c in changes["changes"] if c["metric"] == METRIC]
        if len(want_changes) != 2:
            failures.append(f"the store's {METRIC} has {len(want_changes)} changes, not 2: "
                            "the sample reports changed?")

        with running_app(ga, [store]) as (proc, app, _):
            # The bar's summary (not the loading page's "Searching ... for
            # change points").
            summary = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                           " runs, " in text_of(a), prune=other_views("History"))
            want_summary = (f"{len(RUNS)} runs, {len(series)} metrics, "
                            f"{len(changes['changes'])} change points")
            if summary is None:
                failures.append("the store did not open in the History view")
                return finish(failures)
            if text_of(summary) != want_summary:
                failures.append(f"History: the summary says {text_of(summary)!r}, "
                                f"not {want_summary!r}")
            # The metrics list, searched for each metric shown: its latest
            # value and its number of change points.
            entry = find(app, lambda a: a.name == "Search metrics" and
                         a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY),
                         prune=other_views("History"))
            if entry is None:
                failures.append("History: no 'Search metrics' entry")
                return finish(failures)
            for name in (METRIC, "memory.total_including_gaps", "graph.vertices"):
                entry.queryEditableText().setTextContents(name)
                latest = next(p["value"] for m in series if m["metric"] == name
                              for p in m["points"])
                shown = []

                def listed():
                    shown[:] = [r for r in rows_of(app, "Metrics") or [] if r and r[0] == name]
                    return shown and shown[0][2] == str(want_counts[name])
                if not wait_for(listed, timeout=20):
                    failures.append(f"History: search '{name}' lists {shown}, wanted "
                                    f"{want_counts[name]} changes")
                elif not shown[0][1].startswith(thousands(latest)):
                    failures.append(f"History: {name}'s latest value is {shown[0][1]!r}, "
                                    f"the store's newest {latest}")
                else:
                    print(f"{name}: latest {shown[0][1]}, {shown[0][2]} change points")
            entry.queryEditableText().setTextContents(METRIC)
            # The charted metric's change points, as `history changes` gives them.
            got = []

            def change_rows():
                got[:] = rows_of(app, "Change points") or []
                return len(got) == len(want_changes)
            wait_for(change_rows, timeout=20)
            for row, c in zip(got, want_changes):
                want = [c["commit"][:12], thousands(c["before"]), thousands(c["after"])]
                if [row[0], row[1].split(" ")[0], row[2].split(" ")[0]] != want:
                    failures.append(f"History: change point {row} is not {want}")
            if len(got) != len(want_changes):
                failures.append(f"History: {len(got)} change points listed, "
                                f"`history changes` has {len(want_changes)}")
            else:
                print(f"{METRIC}: change points {[r[0] for r in got]} as `history changes`")

            # The keyboard: Enter on the metric's row moves it to the chart;
            # Right to the second run, Space chooses it (its details),
            # Enter opens its report.
            chart = find(app, lambda a: a.getRole() == pyatspi.ROLE_IMAGE and a.name == METRIC,
                         prune=other_views("History"))
            row = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and text_of(a) == METRIC,
                       prune=other_views("History"))
            if chart is None or row is None:
                failures.append(f"History: no chart or row named {METRIC}")
                return finish(failures)
            x, y, w, h = row.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
            subprocess.run(["xdotool", "mousemove", str(x + 5), str(y + h // 2), "click", "1"],
                           check=True)
            key("Return")
            if not wait_for(lambda: chart.getState().contains(pyatspi.STATE_FOCUSED), timeout=20):
                failures.append("History: Enter on the metric's row left the chart unfocused")
            focus_chart(chart, 1)
            key("space")
            commit = figure(app, "Commit", prune=other_views("History"), timeout=20)
            if commit is None or not wait_for(lambda: text_of(commit) == RUNS[1][0], timeout=20):
                failures.append(f"History: the details' commit is "
                                f"{text_of(commit) if commit else None!r}, not {RUNS[1][0]}")
            change = figure(app, "Change", prune=other_views("History"), timeout=5)
            if change is None or not text_of(change).startswith(RUNS[1][0][:12] + ":"):
                failures.append(f"History: run 2's change is "
                                f"{text_of(change) if change else None!r}")
            key("Return")
            if not wait_for(lambda: find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME and
                                         a.name.startswith("tut7_mk1 —"), timeout=1)):
                failures.append("History: Enter on run 2 did not open tut7_mk1")
            else:
                print("Enter on run 2 opened tut7_mk1")

            # The last run's report is gone: one message in the view.
            show_view(app, "History")
            focus_chart(chart, len(RUNS) - 1)
            key("Return")
            message = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                           "no longer at" in text_of(a), prune=other_views("History"))
            if message is None:
                failures.append("History: no message for a run whose report is gone")
            else:
                print(f"gone: {text_of(message)!r}")

            # Compare with Previous on run 2: its report as B, run 1's as A.
            focus_chart(chart, 1)
            key("space")
            wait_for(lambda: text_of(commit) == RUNS[1][0], timeout=20)
            button = find(app, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                          plain(a.name).startswith("Compare with Previous"),
                          prune=other_views("History"))
            if button is None:
                failures.append("History: no 'Compare with Previous' button")
            else:
                click(button)
                want = f"{RUNS[0][1]} vs {RUNS[1][1]} —"
                if not wait_for(lambda: find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME and
                                             a.name.startswith(want), timeout=1)):
                    failures.append(f"History: Compare with Previous did not open '{want}'")
                else:
                    print(f"Compare with Previous on run 2 opened '{want}'")
            if proc.poll() is not None:
                failures.append(f"the app exited ({proc.returncode})")

        # A damaged store and another application's SQLite file.
        damaged = os.path.join(tmp, "damaged.sqlite")
        data = bytearray(open(store, "rb").read())
        size = int.from_bytes(data[16:18], "big")
        data[size:] = b"Z" * (len(data) - size)
        open(damaged, "wb").write(bytes(data))
        foreign = os.path.join(tmp, "foreign.sqlite")
        db = sqlite3.connect(foreign)
        db.execute("PRAGMA application_id = 1234")
        db.execute("CREATE TABLE t(x)")
        db.commit()
        db.close()
        # The store's line as the command's up to its detail (which names
        # the first table read, and the app reads another first).
        for path, want in ((damaged, cli_error(tilescope, "history", "show",
                                               damaged).partition(" (")[0]),
                           (foreign, f"'{foreign}': an SQLite database, but not a Tilescope")):
            with running_app(ga, [path]) as (proc, app, _):
                line = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                            text_of(a).startswith(want) and "\n" not in text_of(a))
                if line is None or not want:
                    failures.append(f"{os.path.basename(path)}: no line saying {want!r}")
                else:
                    print(f"{os.path.basename(path)}: {text_of(line)!r}")
                if proc.poll() is not None:
                    failures.append(f"{os.path.basename(path)}: the app exited")
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The System Analyser, used as a person would.

1. Opens TRACE: the timeline (an image named "Timeline") must say it shows
   the whole trace, as long as `tilescope trace --json` says (end_ns -
   start_ns), with every span of the file in view (trace.spans).
2. The Statistics table (named "Statistics") must hold, for the whole
   trace, one row per label of `tilescope trace --json` with the same
   count, total and self times, and say the same span count.
3. Shift+drag over part of the timeline (xdotool) marks a range: the
   table must then match `tilescope trace --from A --to B --json` for the
   window it states, label by label. Escape goes back to the whole trace.
4. A click on the first span selects it (the timeline says so); W zooms
   in and Home shows everything again.
5. Two files (two copies of TRACE) go onto one time axis: the timeline
   and the table against `tilescope trace --json A B`.
6. A Chrome trace-event JSON file (`tilescope export --chrome-trace` of
   TRACE) opens into the same timeline and Statistics, checked against
   `tilescope trace --json` on that file.
7. Directories, as `tilescope trace` takes them: one holding two Chrome
   JSON exports (one named *.trace, found by content) and a JSON file
   that is no trace shows both traces (Statistics and window title
   against `tilescope trace --json DIR`); one holding a .pvti and its
   export shows the .pvti only; one holding no trace ends on the error
   page naming it.
8. A hostile file (random bytes named x.pvti) ends on the error page
   naming the file, and the app stays up.

    check-system-analyser.py APP TILESCOPE TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import find, finish, running_app, table_rows, text_of, wait_for  # noqa: E402


def ms(ns):
    return f"{ns // 1000000}.{ns % 1000000:06d} ms"


DURATION = re.compile(r"\d+(\.\d+)? (ns|µs|ms|s)")


def cell_ns(label):
    """A duration cell -> its exact nanoseconds, from its tooltip (the
    accessible description, "1,234,567 ns"); the cell itself shows a unit
    per magnitude ("1.23 ms")."""
    text = text_of(label)
    if not DURATION.fullmatch(text or ""):
        raise ValueError(f"not a duration cell: {text!r}")
    m = re.fullmatch(r"([\d,]+) ns", label.description or "")
    if not m:
        raise ValueError(f"the cell {text!r} has no exact tooltip: {label.description!r}")
    return int(m.group(1).replace(",", ""))


def cli(tilescope, trace, *args):
    out = subprocess.run([tilescope, "trace", "--json", *args, trace], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def rows_of(table):
    """The table's rows as {(channel, name): (count, total_ns, self_ns)}."""
    rows = {}
    for part, r, row in table_rows(table):
        labels = [row.getChildAtIndex(c).getChildAtIndex(0) for c in range(row.childCount)]
        cells = [text_of(label) for label in labels]
        if len(cells) != 9 or not cells[0]:
            continue
        rows[(cells[1], cells[0])] = (int(cells[2].replace(",", "")), cell_ns(labels[3]),
                                      cell_ns(labels[4]))
    return rows


def compare(failures, what, table, want):
    """Checks the table's rows against `tilescope trace --json`'s labels."""
    expected = {(lab["channel"], lab["name"]): (lab["count"], lab["total_ns"], lab["self_ns"])
                for lab in want["labels"]}
    if not wait_for(lambda: rows_of(table) == expected):
        got = rows_of(table)
        diff = sorted(set(got.items()) ^ set(expected.items()))[:6]
        failures.append(f"{what}: the table has {len(got)} rows, the CLI {len(expected)} "
                        f"labels; they differ in {diff}")
    else:
        print(f"{what}: {len(expected)} labels match")


def statistics_of(app):
    return find(app, lambda a: a.name == "Statistics" and a.getRole() == pyatspi.ROLE_TREE_TABLE)


def check_directories(failures, app_path, tilescope, trace):
    """Directories as `tilescope trace` takes them: Chrome JSON traces
    found by content when there is no .pvti (other JSON skipped), only the
    .pvti when both are there, and one message naming a directory that
    holds no trace."""
    with tempfile.TemporaryDirectory(prefix="sa-gui-") as root:
        jdir, mixed, junk = (os.path.join(root, n) for n in ("json", "mixed", "junk"))
        for d in (jdir, mixed, junk):
            os.mkdir(d)
        subprocess.run([tilescope, "export", "--chrome-trace", "-o",
                        os.path.join(jdir, "run-a.trace"), trace], check=True)
        shutil.copyfile(os.path.join(jdir, "run-a.trace"), os.path.join(jdir, "run-b.json"))
        # A second recording, not a byte for byte copy (reportlib reads a
        # copy once: it is the same process).
        with open(os.path.join(jdir, "run-b.json"), "a") as f:
            f.write("\n")
        for d in (jdir, junk):
            with open(os.path.join(d, "config.json"), "w") as f:
                f.write('{"colour": "blue"}\n')
        shutil.copyfile(trace, os.path.join(mixed, "run.pvti"))
        shutil.copyfile(os.path.join(jdir, "run-a.trace"), os.path.join(mixed, "run.json"))
        single = cli(tilescope, trace)["spans"]
        for d, what, files in ((jdir, "a directory of Chrome JSON traces", 2),
                               (mixed, "a directory with a .pvti and its export", 1)):
            want = cli(tilescope, d)
            n = want["spans"]
            if want["trace"]["files"] != files or n != files * single:
                failures.append(f"{what}: the CLI reads {want['trace']['files']} files and "
                                f"{n:,} spans, not {files} and {files * single:,}")
            with running_app(app_path, [d]) as (proc, app, tmp):
                table = statistics_of(app)
                head = f"Whole trace: {n:,} spans"
                if table is None or not wait_for(
                        lambda: (table.description or "").startswith(head)):
                    failures.append(f"{what}: the Statistics say "
                                    f"{table.description if table else None!r}, not {head!r}")
                    continue
                print(f"{what}:", table.description)
                compare(failures, what, table, want)
                title = find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME)
                want_title = (f"{files} traces" if files > 1 else os.path.basename(d)) + \
                    " — System Analyser"
                if title is None or title.name != want_title:
                    failures.append(f"{what}: the window is titled "
                                    f"{title.name if title else None!r}, not {want_title!r}")
        with running_app(app_path, [junk]) as (proc, app, tmp):
            error = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                         text_of(a).startswith(junk + ": no trace in this directory"))
            if error is None:
                failures.append("a directory without a trace shows no message naming it")
            else:
                print("no trace:", text_of(error))
            if proc.poll() is not None:
                failures.append(f"the app died of a directory without a trace "
                                f"(status {proc.returncode})")


def main():
    app_path, tilescope, trace = sys.argv[1:4]
    whole = cli(tilescope, trace)
    length = whole["trace"]["end_ns"] - whole["trace"]["start_ns"]
    spans = whole["trace"]["spans"]
    failures = []
    with running_app(app_path, [trace]) as (proc, app, tmp):
        timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
        table = find(app, lambda a: a.name == "Statistics" and
                     a.getRole() == pyatspi.ROLE_TREE_TABLE)
        if timeline is None or table is None:
            raise SystemExit("FAIL: no image named 'Timeline' or no table named 'Statistics'")
        if find(app, lambda a: a.name == "Statistics" and
                a.getRole() == pyatspi.ROLE_PAGE_TAB) is None:
            failures.append("no tab named 'Statistics'")
        want = f"Showing 0.000000 ms – {ms(length)} of {ms(length)}; {spans:,} spans in view"
        if not wait_for(lambda: timeline.description.startswith(want)):
            failures.append(f"the timeline says {timeline.description!r}; the CLI {want!r}")
        print("timeline:", timeline.description)

        head = f"Whole trace: {whole['spans']:,} spans, {len(whole['labels']):,} labels"
        if not wait_for(lambda: table.description == head):
            failures.append(f"the statistics say {table.description!r}, the CLI {head!r}")
        compare(failures, "whole trace", table, whole)

        # Shift+drag from 62% to 99% of the plot (the labels take 200 px).
        x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        plot_x, plot_w = x + 200, w - 200
        x0, x1, yy = plot_x + int(plot_w * 0.62), plot_x + int(plot_w * 0.99), y + h - 20
        subprocess.run(["xdotool", "mousemove", str(x0), str(yy), "keydown", "shift",
                        "mousedown", "1", "mousemove", str((x0 + x1) // 2), str(yy),
                        "mousemove", str(x1), str(yy), "mouseup", "1", "keyup", "shift"],
                       check=True)
        pat = re.compile(r"Spans starting in ([\d.]+) ms – ([\d.]+) ms: ([\d,]+) spans")
        if not wait_for(lambda: pat.match(table.description or "")):
            failures.append(f"Shift+drag marked no range: {table.description!r}")
        else:
            a, b, n = pat.match(table.description).groups()
            sub = cli(tilescope, trace, "--from", a, "--to", b)
            print(f"marked {a} – {b} ms: {n} spans (CLI: {sub['spans']})")
            if int(n.replace(",", "")) != sub["spans"]:
                failures.append(f"the range {a} – {b} ms holds {n} spans here, "
                                f"{sub['spans']} for the CLI")
            if sub["spans"] in (0, whole["spans"]):
                failures.append(f"the marked range {a} – {b} ms is not a proper part of "
                                "the trace")
            if f"marked {a} ms – {b} ms" not in timeline.description:
                failures.append(f"the timeline does not say the range: {timeline.description!r}")
            compare(failures, f"range {a} – {b} ms", table, sub)
        subprocess.run(["xdotool", "key", "Escape"], check=True)
        if not wait_for(lambda: table.description == head):
            failures.append(f"Escape did not go back to the whole trace: {table.description!r}")

        # A click on the first span (depth 0, at the plot's left: below the
        # 24 px ruler, the file's 22 px header and the thread's 18 px lane
        # of instant markers; the extents leave out the window's 5 px
        # client-side border) selects it.
        subprocess.run(["xdotool", "mousemove", str(plot_x + 12), str(y + 5 + 24 + 22 + 18 + 9),
                        "click", "1"], check=True)
        if not wait_for(lambda: "; selected " in timeline.description):
            failures.append(f"a click on the first span selected nothing: "
                            f"{timeline.description!r}")
        elif not wait_for(lambda: (table.description or "").startswith("Spans starting in 0.000000 ms")):
            failures.append(f"the statistics are not the selected span's: {table.description!r}")
        print("selected:", timeline.description)

        subprocess.run(["xdotool", "key", "w", "w"], check=True)
        if not wait_for(lambda: not timeline.description.startswith(want[:40])):
            failures.append(f"W did not zoom in: {timeline.description!r}")
        subprocess.run(["xdotool", "key", "Home"], check=True)
        if not wait_for(lambda: timeline.description.startswith(want)):
            failures.append(f"Home did not show everything: {timeline.description!r}")

    # Two files onto one time axis (two copies of TRACE, the second with a
    # metadata row more: two processes of one job as reportlib sees them;
    # a byte for byte copy would be read once).
    with tempfile.TemporaryDirectory(prefix="sa-gui-") as d:
        files = [os.path.join(d, name) for name in ("a.pvti", "b.pvti")]
        for f in files:
            with open(trace, "rb") as src, open(f, "wb") as dst:
                dst.write(src.read())
        db = sqlite3.connect(files[1])
        db.execute("INSERT INTO trace_metadata(key, value) VALUES (?, ?)", ("test.copy", "true"))
        db.commit()
        db.close()
        both = cli(tilescope, files[0], files[1])
        with running_app(app_path, files) as (proc, app, tmp):
            timeline = find(app, lambda a: a.name == "Timeline" and
                            a.getRole() == pyatspi.ROLE_IMAGE)
            table = find(app, lambda a: a.name == "Statistics" and
                         a.getRole() == pyatspi.ROLE_TREE_TABLE)
            n = both["trace"]["spans"]
            if both["trace"]["files"] != 2 or n != 2 * spans:
                failures.append(f"the CLI does not see two files: {both['trace']}")
            if timeline is None or not wait_for(
                    lambda: f"; {n:,} spans in view" in timeline.description):
                failures.append("two files: the timeline does not show "
                                f"{n:,} spans: {timeline.description if timeline else None!r}")
            else:
                print("two files:", timeline.description)
            if table is not None:
                compare(failures, "two files", table, both)

    # A Chrome trace-event JSON file (the export of TRACE) opens into the
    # same views: its timeline and Statistics against the CLI on the file.
    with tempfile.TemporaryDirectory(prefix="sa-gui-") as d:
        chrome = os.path.join(d, "exported.trace.json")
        subprocess.run([tilescope, "export", "--chrome-trace", "-o", chrome, trace], check=True)
        from_json = cli(tilescope, chrome)
        with running_app(app_path, [chrome]) as (proc, app, tmp):
            timeline = find(app, lambda a: a.name == "Timeline" and
                            a.getRole() == pyatspi.ROLE_IMAGE)
            table = find(app, lambda a: a.name == "Statistics" and
                         a.getRole() == pyatspi.ROLE_TREE_TABLE)
            n = from_json["trace"]["spans"]
            if n != spans:
                failures.append(f"the CLI reads {n:,} spans from the JSON export, {spans:,} "
                                "from the trace")
            if timeline is None or not wait_for(
                    lambda: f"; {n:,} spans in view" in timeline.description):
                failures.append("Chrome JSON: the timeline does not show "
                                f"{n:,} spans: {timeline.description if timeline else None!r}")
            else:
                print("Chrome JSON:", timeline.description)
            if table is not None:
                compare(failures, "Chrome JSON", table, from_json)
            else:
                failures.append("Chrome JSON: no Statistics table")

    check_directories(failures, app_path, tilescope, trace)

    with tempfile.TemporaryDirectory(prefix="sa-gui-") as d:
        bad = os.path.join(d, "x.pvti")
        with open(bad, "wb") as f:
            f.write(os.urandom(4096))
        with running_app(app_path, [bad]) as (proc, app, tmp):
            # reportlib's one line names the file: "/tmp/.../x.pvti: not an SQLite ...".
            error = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                         bad + ":" in text_of(a))
            if error is None:
                failures.append("the hostile file shows no error naming it: "
                                f"{text_of(error) if error else None!r}")
            else:
                print("error page:", text_of(error))
            if proc.poll() is not None:
                failures.append(f"the app died of the hostile file (status {proc.returncode})")
            if find(app, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                    "Open Another" in (a.name or "")) is None:
                failures.append("the error page offers no other file")
    finish(failures)


if __name__ == "__main__":
    main()

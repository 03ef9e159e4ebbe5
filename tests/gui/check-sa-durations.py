#!/usr/bin/python3
"""The System Analyser's durations as a person reads them (issue 26 item 9).

1. A Chrome trace-event JSON file made here holds one span of each
   magnitude (812 ns, 999 ns, 1 µs, 3.41 ms, 999.95 ms, 16,216,785,292 ns);
   the Statistics table (named "Statistics") must show each total in a unit
   per magnitude ("812 ns", "999 ns", "1.00 µs", "3.41 ms", "1.00 s",
   "16.2 s"), never "16,216,785.292 µs", with the exact nanoseconds in the
   cell's tooltip (its accessible description), as `tilescope trace --json`
   has them.
2. A click on the Total header sorts the rows by the exact totals,
   smallest first, and again largest first (which the text's order would
   not give: "1.00 s" < "1.00 µs" < "16.2 s" < "3.41 ms" < ...).
3. A row selected and Ctrl+C put its whole figures on the clipboard, the
   durations in exact nanoseconds.
4. Tutorial 5's trace: every duration cell of every label reads what
   `tilescope trace` prints for it (the same formatter, "us" there, "µs"
   here), and its tooltip the exact nanoseconds of `--json`.

    check-sa-durations.py APP TILESCOPE TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import WAIT, find, finish, running_app, table_rows, text_of, wait_for  # noqa: E402

# (name, duration in ns): one span each, one after the other.
SPANS = [("long", 16216785292), ("mid", 3410000), ("short", 812), ("edge", 999950000),
         ("tiny", 999), ("micro", 1000)]
# What the table must show for each (the CLI's text, with "µs").
SHOWN = {"long": "16.2 s", "mid": "3.41 ms", "short": "812 ns", "edge": "1.00 s",
         "tiny": "999 ns", "micro": "1.00 µs"}
COLUMNS = ["Total", "Self", "Mean", "Median", "Min", "Max"]
KEYS = ["total_ns", "self_ns", "mean_ns", "median_ns", "min_ns", "max_ns"]


def write_chrome(path):
    """The spans as Chrome trace-event JSON: ts and dur in microseconds
    with three decimals (exact nanoseconds)."""
    events, t = [], 1000000
    for name, ns in SPANS:
        events.append({"ph": "X", "name": name, "cat": "test", "pid": 7, "tid": 7,
                       "ts": f"{t // 1000}.{t % 1000:03d}", "dur": f"{ns // 1000}.{ns % 1000:03d}"})
        t += ns + 1000
    text = json.dumps({"traceEvents": events, "displayTimeUnit": "ns"})
    # Numbers, not strings: JSON decimals written as they are.
    text = re.sub(r'"(ts|dur)": "([\d.]+)"', r'"\1": \2', text)
    with open(path, "w") as f:
        f.write(text)


def cli_json(tilescope, trace):
    out = subprocess.run([tilescope, "trace", "--json", trace], check=True,
                         capture_output=True, text=True).stdout
    return {lab["name"]: lab for lab in json.loads(out)["labels"]}


def cli_text(tilescope, trace):
    """`tilescope trace`'s table: name -> the six durations as printed."""
    out = subprocess.run([tilescope, "trace", "--top", "0", trace], check=True,
                         capture_output=True, text=True).stdout
    dur = r"(\S+ (?:ns|us|ms|s))"
    row = re.compile(r"^  (\S+)\s+(.+?)\s+([\d,]+)" + r"\s+" + r"\s+".join([dur] * 6) + r"$")
    got = {}
    for line in out.splitlines():
        m = row.match(line)
        if m:
            got[m.group(2)] = [m.group(4 + i) for i in range(6)]
    return got


def exact(ns):
    """The tooltip of a duration: "16,216,785,292 ns"; a fractional mean
    to the thousandth."""
    if float(ns).is_integer():
        return f"{int(ns):,} ns"
    t = round(abs(ns) * 1000)
    return f"{t // 1000:,}.{t % 1000:03d} ns"


def rows_of(table):
    """The table's rows, top to bottom: (name, {column: (text, tooltip)})."""
    rows = []
    for part, r, row in table_rows(table):
        labels = [row.getChildAtIndex(c).getChildAtIndex(0) for c in range(row.childCount)]
        if len(labels) != 9:
            continue
        name = text_of(labels[0])
        if not name:
            continue
        rows.append((name, {col: (text_of(labels[3 + i]), labels[3 + i].description or "")
                            for i, col in enumerate(COLUMNS)}))
    return rows


def header(table, title):
    """The column title `title`: GTK 4.8 puts the titles in the table's
    first part, each holding its label."""
    part = table.getChildAtIndex(0)
    for i in range(part.childCount if part is not None else 0):
        title_acc = part.getChildAtIndex(i)
        if find(title_acc, lambda a: a.getRole() == pyatspi.ROLE_LABEL and text_of(a) == title,
                timeout=0) is not None:
            return title_acc
    return None


def click_at(acc):
    x, y, w, h = acc.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"],
                   check=True)


def sort_to(title, order, want):
    """Clicks the column title `title` until the rows read `want`. Each
    click turns the order round; one that GTK takes for the second press
    of a double click turns nothing, so after a click the order is polled
    for a change (10 s, for a sort of a few rows) and the title clicked
    again when none came, up to WAIT seconds in all. True when the rows
    read `want`."""
    end = time.time() + WAIT
    while order() != want and time.time() < end:
        before = order()
        click_at(title)
        wait_for(lambda: order() != before, timeout=10)
    return order() == want


def clipboard():
    """The clipboard's text, read by a GDK 4 client of the same display."""
    code = """
import gi, sys
gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
from gi.repository import Gdk, GLib, Gtk
Gtk.init()
d = Gdk.Display.get_default()
loop, got = GLib.MainLoop(), []
def done(cb, res):
    try:
        got.append(cb.read_text_finish(res))
    except Exception as e:
        got.append(None)
    loop.quit()
d.get_clipboard().read_text_async(None, done)
GLib.timeout_add_seconds(20, loop.quit)
loop.run()
sys.stdout.write(got[0] if got and got[0] else "")
"""
    env = dict(os.environ, GTK_A11Y="none", NO_AT_BRIDGE="1")
    return subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True,
                          timeout=WAIT, env=env).stdout


def check_magnitudes(failures, app_path, tilescope, tmp):
    trace = os.path.join(tmp, "magnitudes.json")
    write_chrome(trace)
    want = cli_json(tilescope, trace)
    for name, ns in SPANS:
        if want.get(name, {}).get("total_ns") != ns:
            raise SystemExit(f"FAIL: the CLI reads {name} as {want.get(name)}, not {ns} ns")
    with running_app(app_path, [trace]) as (proc, app, home):
        table = find(app, lambda a: a.name == "Statistics" and
                     a.getRole() == pyatspi.ROLE_TREE_TABLE)
        if table is None:
            raise SystemExit("FAIL: no table named 'Statistics'")
        if not wait_for(lambda: len(rows_of(table)) == len(SPANS)):
            raise SystemExit(f"FAIL: the table never showed {len(SPANS)} rows: "
                             f"{rows_of(table)}")
        rows = rows_of(table)
        for name, cells in rows:
            text, tip = cells["Total"]
            if text != SHOWN[name]:
                failures.append(f"{name}: Total reads {text!r}, not {SHOWN[name]!r}")
            if tip != exact(want[name]["total_ns"]):
                failures.append(f"{name}: Total's tooltip is {tip!r}, not "
                                f"{exact(want[name]['total_ns'])!r}")
        print("totals:", [(n, c["Total"]) for n, c in rows])
        # Largest total first, as `tilescope trace` lists them; a click on
        # Total: smallest first; again: largest first. By the exact value.
        by_value = [n for n, _ in sorted(SPANS, key=lambda s: s[1])]
        by_text = sorted(by_value, key=lambda n: SHOWN[n])
        if by_text == by_value:
            failures.append("the spans' texts sort as their values: the test proves nothing")
        order = lambda: [n for n, _ in rows_of(table)]  # noqa: E731
        if not wait_for(lambda: order() == by_value[::-1]):
            failures.append(f"at first the rows are {order()}, not largest first "
                            f"{by_value[::-1]}")
        total = header(table, "Total")
        if total is None:
            failures.append("no column header 'Total'")
        else:
            for want_order, what in ((by_value, "ascending"), (by_value[::-1], "descending")):
                if not sort_to(total, order, want_order):
                    failures.append(f"Total {what} gives {order()}, not {want_order}")
                else:
                    print(f"{what}:", order())
        # Copy: the first row (the longest span) selected, Ctrl+C.
        first = next((row for part, r, row in table_rows(table)
                      if row.childCount == 9 and
                      text_of(row.getChildAtIndex(0).getChildAtIndex(0)) == "long"), None)
        if first is None:
            failures.append("no row 'long' to copy")
            return
        click_at(first.getChildAtIndex(1))
        if not wait_for(lambda: first.getState().contains(pyatspi.STATE_SELECTED)):
            failures.append("a click did not select the row 'long'")
        subprocess.run(["xdotool", "key", "ctrl+c"], check=True)
        lab = want["long"]
        line = "\t".join(["long", "test", str(lab["count"]), str(lab["total_ns"]),
                          str(lab["self_ns"]), f"{lab['mean_ns']:.3f}", str(lab["median_ns"]),
                          str(lab["min_ns"]), str(lab["max_ns"])])
        got = []
        if not wait_for(lambda: got.append(clipboard()) or line in got[-1].splitlines()):
            failures.append(f"Ctrl+C copied {got[-1] if got else None!r}, not a line {line!r}")
        else:
            print("copied:", got[-1].splitlines())


def check_tutorial(failures, app_path, tilescope, trace):
    want = cli_json(tilescope, trace)
    printed = cli_text(tilescope, trace)
    if len(printed) != len(want):
        raise SystemExit(f"FAIL: read {len(printed)} rows of `tilescope trace`, "
                         f"{len(want)} labels in its JSON")
    with running_app(app_path, [trace]) as (proc, app, home):
        table = find(app, lambda a: a.name == "Statistics" and
                     a.getRole() == pyatspi.ROLE_TREE_TABLE)
        if table is None:
            raise SystemExit("FAIL: no table named 'Statistics'")
        if not wait_for(lambda: len(rows_of(table)) == len(want)):
            raise SystemExit(f"FAIL: the table shows {len(rows_of(table))} rows, "
                             f"the CLI {len(want)} labels")
        cells = 0
        for name, row in rows_of(table):
            for i, col in enumerate(COLUMNS):
                text, tip = row[col]
                cli = printed[name][i].replace(" us", " µs")
                if text != cli:
                    failures.append(f"{name}: {col} reads {text!r}, `tilescope trace` {cli!r}")
                if tip != exact(want[name][KEYS[i]]):
                    failures.append(f"{name}: {col}'s tooltip is {tip!r}, not "
                                    f"{exact(want[name][KEYS[i]])!r}")
                cells += 1
        print(f"tutorial 5: {cells} duration cells as `tilescope trace` prints them")


def main():
    app_path, tilescope, trace = sys.argv[1:4]
    failures = []
    with tempfile.TemporaryDirectory(prefix="sa-durations-") as tmp:
        check_magnitudes(failures, app_path, tilescope, tmp)
    check_tutorial(failures, app_path, tilescope, trace)
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The System Analyser's search and details, used as a person would.

1. Ctrl+F opens the search bar (an entry named "Search"); typing "run
   program" must count as many hits as `tilescope trace --json` has spans
   whose label contains it (ignoring case: the default), and select the
   earliest of them, which `tilescope export --chrome-trace` says: the
   timeline (an image named "Timeline") must name it and show its extent.
2. Enter, F3, Shift+F3 and the Next / Previous buttons step through the
   hits in time order (the count reads "2 of 3" ...), wrapping at the
   ends; each time the timeline's description names the hit and its
   visible window holds it.
3. The regular-expression toggle: "Run program [12]" counts 2 hits; a bad
   expression shows reportlib's message in the bar.
4. Shift+drag marks a window: the Call Tree (a tree table named "Call
   Tree") must hold, for that window, the paths of `tilescope trace
   --call-tree --json --from A --to B`, with the same counts, inclusive
   and exclusive times. The Flame Graph (an image named "Flame Graph")
   must say the same root total.
5. Selecting a span by search fills the Span tab ("Span"): its name,
   duration and self time against `tilescope trace --json` (the label
   has one span).

    check-system-analyser-search.py APP TILESCOPE TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import click, find, finish, running_app, table_rows, text_of, wait_for  # noqa: E402


def cli(tilescope, *args):
    out = subprocess.run([tilescope, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def key(*keys):
    subprocess.run(["xdotool", "key", *keys], check=True)


def search_entry(app):
    return find(app, lambda a: a.name == "Search" and a.getRole() in (
        pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT, pyatspi.ROLE_PASSWORD_TEXT) or
        (a.name == "Search" and a.getRole() != pyatspi.ROLE_PUSH_BUTTON and
         a.getRole() != pyatspi.ROLE_LABEL))


def search(failures, entry, text):
    """Ctrl+F, then `text` typed once the entry has the focus (keys typed
    before would reach the timeline, where letters are shortcuts), then
    waits for the entry to hold exactly `text`."""
    key("ctrl+f")
    if not wait_for(lambda: entry.getState().contains(pyatspi.STATE_FOCUSED)):
        failures.append(f"Ctrl+F did not focus the search entry before typing {text!r}")
    subprocess.run(["xdotool", "type", "--delay", "30", text], check=True)
    if not wait_for(lambda: text_of(entry) == text):
        failures.append(f"the search entry holds {text_of(entry)!r}, not {text!r}")


def shown_window(desc):
    """The visible window of the timeline's description, in ns relative
    to the trace's start."""
    m = re.match(r"Showing (\d+)\.(\d{6}) ms – (\d+)\.(\d{6}) ms", desc or "")
    if not m:
        return None
    a = int(m.group(1)) * 1000000 + int(m.group(2))
    b = int(m.group(3)) * 1000000 + int(m.group(4))
    return a, b


def check_hit(failures, what, timeline, hit):
    """The timeline names `hit` as selected and its window holds it."""
    name, start, end = hit
    if not wait_for(lambda: f"; selected {name}," in (timeline.description or "")):
        failures.append(f"{what}: the timeline does not select {name!r}: "
                        f"{timeline.description!r}")
        return
    if not wait_for(lambda: (shown_window(timeline.description) or (0, -1))[0] <= start and
                    end <= (shown_window(timeline.description) or (0, -1))[1]):
        failures.append(f"{what}: the view {shown_window(timeline.description)} does not hold "
                        f"{name!r} [{start}, {end}] ns")
        return
    print(f"{what}: {timeline.description}")


def expect_status(failures, what, entry, want):
    if not wait_for(lambda: (entry.description or "") == want):
        failures.append(f"{what}: the search says {entry.description!r}, not {want!r}")
        return False
    return True


def search_part(failures, app, tilescope, trace, whole):
    timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
    if timeline is None:
        raise SystemExit("FAIL: no image named 'Timeline'")
    if not wait_for(lambda: (timeline.description or "").startswith("Showing")):
        raise SystemExit(f"FAIL: the trace never showed: {timeline.description!r}")
    key("ctrl+f")
    entry = search_entry(app)
    if entry is None:
        raise SystemExit("FAIL: Ctrl+F shows no entry named 'Search'")

    # The hits, in time order, from the CLI's Chrome export.
    start_ns = whole["trace"]["start_ns"]
    chrome = cli(tilescope, "export", "--chrome-trace", trace)
    hits = sorted((round(e["ts"] * 1000) - start_ns, e["name"],
                   round((e["ts"] + e["dur"]) * 1000) - start_ns)
                  for e in chrome["traceEvents"]
                  if e.get("ph") == "X" and "run program" in e["name"].lower())
    hits = [(n, a, b) for a, n, b in hits]
    count = sum(lab["count"] for lab in whole["labels"] if "run program" in lab["name"].lower())
    if count != len(hits) or count < 2:
        failures.append(f"the CLI's labels count {count} 'run program' spans, its export "
                        f"{len(hits)}")
        return
    search(failures, entry, "run program")
    if expect_status(failures, "typing 'run program'", entry, f"1 of {count}"):
        print(f"search: {entry.description} (CLI: {count} spans)")
    check_hit(failures, "the first hit", timeline, hits[0])

    key("Return")
    if expect_status(failures, "Enter", entry, f"2 of {count}"):
        check_hit(failures, "Enter", timeline, hits[1])
    key("shift+Return")
    if expect_status(failures, "Shift+Enter", entry, f"1 of {count}"):
        check_hit(failures, "Shift+Enter", timeline, hits[0])
    key("shift+F3")
    if expect_status(failures, "Shift+F3 from the first (wraps)", entry, f"{count} of {count}"):
        check_hit(failures, "Shift+F3 (wrapped)", timeline, hits[-1])
    key("F3")
    if expect_status(failures, "F3 from the last (wraps)", entry, f"1 of {count}"):
        check_hit(failures, "F3 (wrapped)", timeline, hits[0])
    nxt = find(app, lambda a: a.name == "Next" and a.getRole() == pyatspi.ROLE_PUSH_BUTTON)
    prev = find(app, lambda a: a.name == "Previous" and a.getRole() == pyatspi.ROLE_PUSH_BUTTON)
    if nxt is None or prev is None:
        failures.append("no Next / Previous buttons")
    else:
        click(nxt)
        if expect_status(failures, "the Next button", entry, f"2 of {count}"):
            check_hit(failures, "Next", timeline, hits[1])
        click(prev)
        if expect_status(failures, "the Previous button", entry, f"1 of {count}"):
            check_hit(failures, "Previous", timeline, hits[0])

    # Regular expressions: a narrower one, then a bad one.
    regex = find(app, lambda a: a.name == "Regular expression" and
                 a.getRole() in (pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_PUSH_BUTTON))
    if regex is None:
        failures.append("no 'Regular expression' toggle")
        return
    click(regex)
    search(failures, entry, "Run program [12]")
    want = sum(1 for n, a, b in hits if re.search("Run program [12]", n, re.I))
    if expect_status(failures, "regex 'Run program [12]'", entry, f"1 of {want}"):
        print(f"regex: {entry.description}")
        check_hit(failures, "the first regex hit",
                  timeline, [h for h in hits if re.search("Run program [12]", h[0], re.I)][0])
    search(failures, entry, "Run (")
    if not wait_for(lambda: "regular expression" in (entry.description or "")):
        failures.append(f"a bad expression shows no message: {entry.description!r}")
    else:
        print(f"bad regex: {entry.description}")
    click(regex)
    search(failures, entry, "run program")
    expect_status(failures, "substring again", entry, f"1 of {count}")
    key("Escape")


def cell_ns(label):
    """A duration cell's label -> its exact nanoseconds, from its tooltip
    (the accessible description, "1,234,567 ns"); the cell shows a unit
    per magnitude ("1.23 ms")."""
    text = text_of(label) if label is not None else ""
    if not re.fullmatch(r"\d+(\.\d+)? (ns|µs|ms|s)", text or ""):
        raise ValueError(f"not a duration: {text!r}")
    m = re.fullmatch(r"([\d,]+) ns", label.description or "")
    if not m:
        raise ValueError(f"the cell {text!r} has no exact tooltip: {label.description!r}")
    return int(m.group(1).replace(",", ""))


def deep_label(acc):
    """The first label in a cell."""
    if acc.getRole() == pyatspi.ROLE_LABEL:
        return acc
    for i in range(acc.childCount):
        got = deep_label(acc.getChildAtIndex(i))
        if got is not None:
            return got
    return None


def deep_text(acc):
    """The text of a cell: the first label in it (the Name cell holds an
    expander, with its "Expand" button, holding the label)."""
    if acc.getRole() == pyatspi.ROLE_LABEL:
        return text_of(acc)
    for i in range(acc.childCount):
        got = deep_text(acc.getChildAtIndex(i))
        if got:
            return got
    return ""


def tree_rows(table):
    """The Call Tree's rows, top to bottom: (name, channel, count,
    inclusive ns, exclusive ns)."""
    rows = []
    for part, r, row in table_rows(table):
        cells = [deep_text(row.getChildAtIndex(c)) for c in range(row.childCount)]
        if len(cells) != 6 or not cells[0]:
            continue
        rows.append((cells[0], cells[1], int(cells[2].replace(",", "")),
                     cell_ns(deep_label(row.getChildAtIndex(3))),
                     cell_ns(deep_label(row.getChildAtIndex(4)))))
    return rows


def cli_rows(tree):
    """The CLI's call tree depth first, as tree_rows reads the view."""
    rows = []

    def walk(node):
        rows.append((node["name"], node["channel"], node["count"], node["inclusive_ns"],
                     node["exclusive_ns"]))
        for c in node["children"]:
            walk(c)
    for r in tree["roots"]:
        walk(r)
    return rows


def exact(ns):
    """Exact nanoseconds as the app writes them beside a rounded duration."""
    return f"{ns:,} ns"


def details_part(failures, app, tilescope, trace, whole):
    timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
    table = find(app, lambda a: a.name == "Call Tree" and
                 a.getRole() in (pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_TABLE))
    flame = find(app, lambda a: a.name == "Flame Graph" and a.getRole() == pyatspi.ROLE_IMAGE)
    for name in ("Statistics", "Call Tree", "Flame Graph", "Span"):
        if find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_PAGE_TAB) is None:
            failures.append(f"no tab named {name!r}")
    if table is None or flame is None:
        failures.append("no tree table named 'Call Tree' or no image named 'Flame Graph'")
        return
    key("alt+2")
    # A click on the ruler clears the selection; Home shows everything.
    x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + 400), str(y + 5 + 10), "click", "1"],
                   check=True)
    key("Home")
    if not wait_for(lambda: (timeline.description or "").startswith("Showing 0.000000 ms")):
        failures.append(f"Home did not show the whole trace: {timeline.description!r}")
    # Shift+drag from 40% to 97% of the plot (the labels take 200 px).
    x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    plot_x, plot_w = x + 200, w - 200
    x0, x1, yy = plot_x + int(plot_w * 0.40), plot_x + int(plot_w * 0.97), y + h - 20
    subprocess.run(["xdotool", "mousemove", str(x0), str(yy), "keydown", "shift",
                    "mousedown", "1", "mousemove", str((x0 + x1) // 2), str(yy),
                    "mousemove", str(x1), str(yy), "mouseup", "1", "keyup", "shift"],
                   check=True)
    pat = re.compile(r"Spans starting in ([\d.]+) ms – ([\d.]+) ms: ([\d,]+) spans, "
                     r"([\d,]+) paths")
    # The table follows the range while the drag goes on (its halfway
    # point, under load): wait for the range the drag ended on, past 90 %
    # of the trace shown.
    total = float(re.search(r" of ([\d.]+) ms", timeline.description or " of 0 ms").group(1))

    def dragged():
        m = pat.match(table.description or "")
        return m and float(m.group(2)) > 0.9 * total
    if not wait_for(dragged):
        failures.append(f"Shift+drag gave no call tree of a window: {table.description!r}")
        return
    a, b, n, paths = pat.match(table.description).groups()
    want = cli(tilescope, "trace", "--call-tree", "--json", "--from", a, "--to", b, trace)
    tree = want["call_tree"]
    if int(n.replace(",", "")) != tree["spans"] or tree["spans"] in (0, whole["spans"]):
        failures.append(f"the window {a} – {b} ms holds {n} spans here, {tree['spans']} for the "
                        f"CLI (of {whole['spans']})")
    expected = cli_rows(tree)
    if int(paths.replace(",", "")) != len(expected):
        failures.append(f"{paths} paths here, {len(expected)} for the CLI")
    if not wait_for(lambda: tree_rows(table) == expected):
        got = tree_rows(table)
        failures.append(f"the Call Tree of {a} – {b} ms differs from the CLI's: {len(got)} rows, "
                        f"{len(expected)} paths; first differences "
                        f"{[(g, e) for g, e in zip(got, expected) if g != e][:3]}")
    else:
        print(f"call tree of {a} – {b} ms: {len(expected)} paths match the CLI, depth first")

    # The Flame Graph of the same window: its total, then a click on the
    # first root and Down to its largest callee.
    key("alt+3")
    head = re.compile(re.escape(f"Spans starting in {a} ms – {b} ms: {len(expected)} paths, ") +
                      r"\d+(\.\d+)? (ns|µs|ms|s) " +
                      re.escape(f"({exact(tree['inclusive_ns'])}) in the outermost spans"))
    if not wait_for(lambda: head.match(flame.description or "")):
        failures.append(f"the Flame Graph says {flame.description!r}, not {head.pattern!r}")
    else:
        fx, fy, fw, fh = flame.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        root = tree["roots"][0]
        # (The extents leave out the window's 5 px client-side border.)
        subprocess.run(["xdotool", "mousemove", str(fx + 5 + 3), str(fy + 5 + 22 + 10),
                        "click", "1"],
                       check=True)
        if not wait_for(lambda: f"; selected {root['name']}:" in (flame.description or "")):
            failures.append(f"a click on the first frame did not select {root['name']!r}: "
                            f"{flame.description!r}")
        elif root["children"]:
            key("Down")
            child = root["children"][0]["name"]
            if not wait_for(lambda: f"; selected {child}:" in (flame.description or "")):
                failures.append(f"Down did not select {child!r}: {flame.description!r}")
            else:
                print("flame graph:", flame.description)
    key("Escape")


def span_part(failures, app, whole):
    """Search "Run program 1", then the Span tab against the CLI's label
    (it holds one span)."""
    lab = [x for x in whole["labels"] if x["name"].startswith("Run program 1")]
    if len(lab) != 1 or lab[0]["count"] != 1:
        failures.append(f"the CLI has no single 'Run program 1' span: {lab}")
        return
    lab = lab[0]
    entry = search_entry(app)
    if entry is None:
        failures.append("no entry named 'Search' for the Span tab's check")
        return
    search(failures, entry, "run program 1")
    key("alt+4")

    def value(field):
        # The value is the label after its field's (GTK 4.8 names labels
        # by their text).
        key_label = find(app, lambda a: a.name == field and a.getRole() == pyatspi.ROLE_LABEL and
                         a.parent is not None and a.parent.getRole() != pyatspi.ROLE_TABLE_CELL and
                         a.parent.getRole() != pyatspi.ROLE_COLUMN_HEADER and
                         a.getIndexInParent() + 1 < a.parent.childCount and
                         a.parent.getChildAtIndex(a.getIndexInParent() + 1).getRole() ==
                         pyatspi.ROLE_LABEL)
        acc = key_label.parent.getChildAtIndex(key_label.getIndexInParent() + 1) \
            if key_label is not None else None
        return text_of(acc) if acc is not None else None

    checks = {"Name": lambda v: v == lab["name"],
              "Duration": lambda v: re.fullmatch(r"\d+(\.\d+)? (ns|µs|ms|s) " +
                                                 re.escape(f"({exact(lab['total_ns'])})"), v),
              "Self time": lambda v: re.fullmatch(r"\d+(\.\d+)? (ns|µs|ms|s) " +
                                                  re.escape(f"({exact(lab['self_ns'])})"), v),
              "Channel": lambda v: v == lab["channel"]}
    for field, ok in checks.items():
        if not wait_for(lambda: ok(value(field) or "")):
            failures.append(f"the Span tab's {field} is {value(field)!r}; the CLI's label "
                            f"{lab}")
        else:
            print(f"span {field}: {value(field)}")
    parent = find(app, lambda a: (a.name or "").startswith("Parent ") and
                  a.getRole() == pyatspi.ROLE_PUSH_BUTTON)
    timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
    if parent is None:
        failures.append("the Span tab offers no parent")
        return
    pname = parent.name[len("Parent "):]
    click(parent)
    if not wait_for(lambda: f"; selected {pname}," in (timeline.description or "")):
        failures.append(f"Parent did not select {pname!r}: {timeline.description!r}")
    elif not wait_for(lambda: value("Name") == pname):
        failures.append(f"the Span tab does not show the parent {pname!r}: {value('Name')!r}")
    else:
        print(f"parent: {pname}")


def main():
    app_path, tilescope, trace = sys.argv[1:4]
    whole = cli(tilescope, "trace", "--json", trace)
    failures = []
    with running_app(app_path, [trace]) as (proc, app, tmp):
        search_part(failures, app, tilescope, trace, whole)
        details_part(failures, app, tilescope, trace, whole)
        span_part(failures, app, whole)
        if proc.poll() is not None:
            failures.append(f"the app died (status {proc.returncode})")
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The System Analyser's Compare tab, recent files and reload, used as a
person would.

1. `--compare A B` (A: TRACE, tutorial 5's trace; B: a two-epoch run of
   the tutorial 5 example made here): the table named "Compare" must hold
   one row per label of either trace, every cell (count, total, self,
   mean, median of A and B, Δ total and Δ %) equal to what
   `tilescope trace --compare --json A B` says, in its order (largest
   |Δ total| first), labels of one side only marked "only in A" /
   "only in B". Above it, A's timeline over B's, named after their files:
   W on either zooms both to the same window (after each trace's start),
   and a span clicked in B and zoomed to (Z) has the label and longest
   duration that `tilescope trace --from --to --json` on B gives there.
2. Compare with Marked Range (Ctrl+M) on A: W W M marks a zoomed window,
   Ctrl+M takes it as A, D M marks the next one as B; the table must
   match `tilescope trace --from --to --json` on both windows it states.
3. Recent files: after --compare, Open Recent lists A and B; the trace
   opened is in the app's recently-used.xbel;
   once the file is deleted, Main Menu → Open Recent → it ends on the
   error page naming it, and the list forgets it.
4. Compare after a reload: `--compare run.pvti B` with a row selected;
   run.pvti replaced by B (the file monitor), the table must become the
   CLI's comparison of the new file with B, the row still selected; two
   marked windows, the file replaced by A again: the same windows
   compared on the new file (against `tilescope trace --from --to`);
   after Ctrl+R the table and the selected row are still there.
5. Reload: a trace opened from a file is replaced atomically by B (the
   timeline and the Statistics then say B's span count, the notice says
   "Reloaded"); Ctrl+R reloads by hand; the file deleted gives a "Reload
   failed" notice and the window keeps showing the trace; an opened
   directory into which the example then writes a new trace shows both
   files' spans; a trace whose writer is still running (stopped, then
   let go) grows in the window, which keeps its visible window and marked
   range.

    check-system-analyser-compare.py APP TILESCOPE TUT5_EXAMPLE TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (WAIT, click, find, finish, running_app, table_rows,  # noqa: E402
                        text_of, wait_for, walk)

COLUMNS = ["Count A", "Count B", "Total A", "Total B", "Δ Total", "Δ %", "Self A", "Self B",
           "Mean A", "Mean B", "Median A", "Median B"]


def us(ns):
    """What the app writes for a duration: "1,234.567 µs"."""
    return f"{ns // 1000:,}.{ns % 1000:03d} µs"


def signed_us(ns):
    sign = "+" if ns > 0 else "−" if ns < 0 else ""
    return sign + us(abs(ns))


def percent(p):
    text = f"{p:+.1f} %"
    return "−" + text[1:] if text.startswith("-") else text


def ms(ns):
    return f"{ns // 1000000}.{ns % 1000000:06d} ms"


def cli(tilescope, trace, *args):
    out = subprocess.run([tilescope, "trace", "--json", *args, trace], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def cli_compare(tilescope, a, b, *args):
    out = subprocess.run([tilescope, "trace", "--compare", "--json", *args, a, b], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def expected_rows(cmp):
    """The rows the Compare tab must show for `tilescope trace --compare
    --json`, in its order, as [(name, channel, {column: text})]."""
    rows = []
    for lab in cmp["labels"]:
        cells = {}
        for side in ("A", "B"):
            s = lab[side.lower()]
            for col, field in (("Count", "count"), ("Total", "total_ns"), ("Self", "self_ns"),
                               ("Median", "median_ns")):
                if s is None:
                    cells[f"{col} {side}"] = "—"
                elif col == "Count":
                    cells[f"{col} {side}"] = f"{s[field]:,}"
                else:
                    cells[f"{col} {side}"] = us(s[field])
            cells[f"Mean {side}"] = us(int(s["mean_ns"] + 0.5)) if s else "—"
        cells["Δ Total"] = signed_us(lab["delta_total_ns"])
        if not lab["in_a"]:
            cells["Δ %"] = "only in B"
        elif not lab["in_b"]:
            cells["Δ %"] = "only in A"
        elif lab["delta_total_pct"] is None:
            cells["Δ %"] = "—"
        else:
            cells["Δ %"] = percent(lab["delta_total_pct"])
        rows.append((lab["name"], lab["channel"], cells))
    return rows


def pair(a, b):
    """`tilescope trace --compare --json`'s labels from two `trace --json`
    answers (reportlib's order: |Δ total|, then the larger total, then
    channel and name in byte order)."""
    la = {(x["channel"], x["name"]): x for x in a["labels"]}
    lb = {(x["channel"], x["name"]): x for x in b["labels"]}
    labels = []
    for key in set(la) | set(lb):
        x, y = la.get(key), lb.get(key)
        ta, tb = (x["total_ns"] if x else 0), (y["total_ns"] if y else 0)
        labels.append({"channel": key[0], "name": key[1], "in_a": x is not None,
                       "in_b": y is not None, "a": x, "b": y, "delta_total_ns": tb - ta,
                       "delta_total_pct": 100.0 * (tb - ta) / ta if ta else None,
                       "order": (-abs(tb - ta), -max(ta, tb), key[0].encode(),
                                 key[1].encode())})
    labels.sort(key=lambda lab: lab["order"])
    return {"labels": labels}


def compare_rows(table):
    """The Compare table's rows, in order, as [(name, channel, {column: text})]:
    each value cell is described by its column."""
    rows = []
    for part, r, row in table_rows(table):
        cells = [row.getChildAtIndex(c).getChildAtIndex(0) for c in range(row.childCount)]
        if len(cells) != 2 + len(COLUMNS) or not text_of(cells[0]):
            continue
        rows.append((text_of(cells[0]), text_of(cells[1]),
                     {c.description: text_of(c) for c in cells[2:]}))
    return rows


def check_table(failures, what, table, want):
    if not wait_for(lambda: compare_rows(table) == want):
        got = compare_rows(table)
        diff = [(g, w) for g, w in zip(got, want) if g != w][:3]
        failures.append(f"{what}: the table has {len(got)} rows, the CLI {len(want)}; "
                        f"first differences (table, CLI): {diff}")
        return
    only = sum(1 for r in want if r[2]["Δ %"].startswith("only"))
    print(f"{what}: {len(want)} rows match the CLI ({only} on one side only)")


def key(*keys):
    subprocess.run(["xdotool", "key", *keys], check=True)


def focus(acc):
    """Gives acc the keyboard focus (the app gave it already when AT-SPI
    cannot)."""
    try:
        acc.queryComponent().grabFocus()
    except Exception:
        pass


# Every AT-SPI call is a round trip to the app, and its window holds some
# 1,700 accessibles (the Statistics, Call Tree and Compare tables' cells):
# a search starts from the nearest container and skips the tables it does
# not read, and what is found once is kept.

def header(app):
    """The window's header bar, where the Main Menu (and its popover) and
    the notices ("Reloaded at ...") are: the frame's child holding the Main
    Menu, looked for from the last (GTK 4.8 puts the header bar after the
    content, and a tooltip after it)."""
    frame = app.getChildAtIndex(0)
    for i in reversed(range(frame.childCount)):
        part = frame.getChildAtIndex(i)
        if find(part, lambda a: a.name == "Main Menu", timeout=0):
            return part
    return frame


def other_tabs(a):
    """A prune for find(): the details' tabs besides Compare."""
    return a.getRole() == pyatspi.ROLE_PANEL and a.name in ("Statistics", "Call Tree", "Span")


def find_compare(app):
    return find(app, lambda a: a.name == "Compare" and a.getRole() == pyatspi.ROLE_TREE_TABLE,
                prune=other_tabs)


def check_two_traces(failures, app_path, tilescope, trace, b):
    want = expected_rows(cli_compare(tilescope, trace, b))
    with running_app(app_path, ["--compare", trace, b]) as (proc, app, tmp):
        table = find_compare(app)
        if table is None:
            failures.append("--compare: no table named 'Compare'")
            return
        if find(app, lambda a: a.name == "Compare" and
                a.getRole() == pyatspi.ROLE_PAGE_TAB) is None:
            failures.append("no tab named 'Compare'")
        head = (f"A: {os.path.basename(trace)}, whole trace · B: {os.path.basename(b)}, "
                f"whole trace · {len(want)} labels")
        if not wait_for(lambda: (table.description or "").startswith(head)):
            failures.append(f"--compare: the header says {table.description!r}, not {head!r}…")
        print("header:", table.description)
        check_table(failures, "--compare A B", table, want)
        if not any(r[2]["Δ %"] == "only in B" for r in want):
            failures.append("B has no label of its own: the test proves nothing about it")
        check_timeline_pair(failures, app, tilescope, trace, b)
        main_tl = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
        x, y, w, h = main_tl.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + 8), "click", "1"],
                       check=True)  # the keys back to the window's timeline

        # Two windows of A: W W M marks a zoomed window (about the middle),
        # Ctrl+M takes it as A, D then M marks the next window as B.
        timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
        x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h - 10)], check=True)
        focus(timeline)
        key("w", "w", "m")
        if not wait_for(lambda: "; marked " in timeline.description):
            failures.append(f"M marked nothing: {timeline.description!r}")
        key("ctrl+m")
        if not wait_for(lambda: "Now mark the window" in (table.description or "")):
            failures.append(f"Ctrl+M did not ask for a second window: {table.description!r}")
        key("d", "m")
        pat = re.compile(r"A: .*?, ([\d.]+) ms – ([\d.]+) ms · B: .*?, ([\d.]+) ms – ([\d.]+) ms")
        if not wait_for(lambda: pat.match(table.description or "")):
            failures.append(f"marking B compared nothing: {table.description!r}")
            return
        a0, a1, b0, b1 = pat.match(table.description).groups()
        print(f"windows: A {a0} – {a1} ms, B {b0} – {b1} ms")
        if (a0, a1) == (b0, b1):
            failures.append("the two windows are the same")
        # Two windows of one trace: each side's statistics from the CLI,
        # paired as `--compare` pairs two traces' (the same file twice
        # with one window each is not a CLI form).
        wa = cli(tilescope, trace, "--from", a0, "--to", a1)
        wb = cli(tilescope, trace, "--from", b0, "--to", b1)
        want = expected_rows(pair(wa, wb))
        check_table(failures, "two windows", table, want)

        # Both traces were opened: both are recent files.
        failure = recent_menu_lists(app, [os.path.basename(trace), os.path.basename(b)])
        if failure:
            failures.append(f"--compare: {failure}")
        else:
            print("Open Recent lists A and B")
        if proc.poll() is not None:
            failures.append(f"the app died (status {proc.returncode})")


UNITS = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}


def check_timeline_pair(failures, app, tilescope, trace, b):
    """The Compare tab's timelines: one named after each side's file, each
    on its own whole trace at first (the CLI's length), A over B with half
    of the pair's height each and together most of the page (not a strip
    each over the table); T on either switches both rulers to wall-clock
    time; on one viewport (W on either zooms both to the same window after
    their own trace's start), and a span selected in B, zoomed to (Z), is
    one of B's: `tilescope trace --from --to --json` on B over the window Z
    shows has that label with that longest duration, the one the timeline
    says."""
    tls = {}
    for side, path in (("A", trace), ("B", b)):
        name = f"Timeline {side}: {os.path.basename(path)}"
        tls[side] = find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_IMAGE,
                         prune=other_tabs)
        if tls[side] is None:
            failures.append(f"no timeline named {name!r}")
            return
    view = re.compile(r"Showing ([\d.]+) ms – ([\d.]+) ms of")

    def shown(side):
        m = view.search(tls[side].description or "")
        return m.groups() if m else None

    for side, path in (("A", trace), ("B", b)):
        t = cli(tilescope, path)["trace"]
        whole = ("0.000000", ms(t["end_ns"] - t["start_ns"])[:-3])
        if not wait_for(lambda: shown(side) == whole):
            failures.append(f"timeline {side} starts on {shown(side)}, not its whole trace "
                            f"{whole}")
    heights = [tls[s].queryComponent().getExtents(pyatspi.WINDOW_COORDS)[3] for s in "AB"]
    win_h = app.getChildAtIndex(0).queryComponent().getExtents(pyatspi.WINDOW_COORDS)[3]
    print(f"timelines A {heights[0]} px, B {heights[1]} px high in a window of {win_h} px")
    if abs(heights[0] - heights[1]) > 2 or min(heights) < win_h / 6:
        failures.append(f"the timelines are {heights} px high in a window of {win_h} px: "
                        "not half of the pair each, or under a sixth of the window each")
    clocks = (lambda: ["; ruler in wall-clock time" in (tls[s].description or "") for s in "AB"])
    for turn in (True, False):
        x, y, w, h = tls["A"].queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + 8), "click", "1"],
                       check=True)
        key("t")
        if not wait_for(lambda: clocks() == [turn, turn]):
            failures.append(f"T on timeline A: wall-clock rulers {clocks()}, not both {turn}")

    for side, keys in (("A", ("w", "w")), ("B", ("w",))):
        before = shown(side)
        # A click on its ruler gives it the keys (AT-SPI cannot).
        x, y, w, h = tls[side].queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + 8), "click", "1"],
                       check=True)
        key(*keys)
        if not wait_for(lambda: shown(side) != before and shown("A") == shown("B")):
            failures.append(f"W on timeline {side}: A shows {shown('A')}, B {shown('B')}, "
                            f"{side} before {before}")
            return
        print(f"W on {side}: both show {shown('A')} ms")
    # A click in B selects a span: rows from under the ruler and the file's
    # header (40 px) down, half a span row (9 px) at a time, until one is
    # hit (a probe each; a late answer is waited for after the last).
    sel = re.compile(r"; selected (.+), ([\d.]+) (ns|µs|ms|s), on ")
    x, y, w, h = tls["B"].queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    for dy in range(40, h, 9):
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + dy), "click", "1"],
                       check=True)
        if wait_for(lambda: sel.search(tls["B"].description or ""), timeout=1):
            break
    wait_for(lambda: sel.search(tls["B"].description or ""))
    m = sel.search(tls["B"].description or "")
    if m is None:
        failures.append(f"no span of B selected by a click: {tls['B'].description!r}")
        return
    name, dur = m.group(1), float(m.group(2)) * UNITS[m.group(3)]
    key("z")
    # (A follows, clamped to its own trace, which may be shorter.)
    if not wait_for(lambda: shown("B") is not None and
                    int(shown("B")[1].replace(".", "")) -
                    int(shown("B")[0].replace(".", "")) <= dur * 1.01 + 1):
        failures.append(f"Z on B's span {name!r}: B shows {shown('B')}, A {shown('A')}")
        return
    a0, a1 = shown("B")
    width = int(a1.replace(".", "")) - int(a0.replace(".", ""))
    got = [x for x in cli(tilescope, b, "--from", a0, "--to", a1)["labels"]
           if x["name"] == name]
    if not got or got[0]["max_ns"] != width or abs(dur - width) > 0.005 * width:
        failures.append(f"B's span {name!r} ({m.group(2)} {m.group(3)}) over {a0} – {a1} ms: "
                        f"the CLI there says {got}")
    else:
        print(f"B's span {name}: {m.group(2)} {m.group(3)}, the CLI's {width:,} ns")


def find_row(table, name, channel):
    """The Compare table's row of label (name, channel) and its list, or
    (None, None)."""
    for part, r, row in table_rows(table):
        if row.childCount < 2:
            continue
        cells = [row.getChildAtIndex(c).getChildAtIndex(0) for c in range(2)]
        if (text_of(cells[0]), text_of(cells[1])) == (name, channel):
            return part, r
    return None, None


def selected_label(table):
    """(name, channel) of the Compare table's selected row, or None."""
    for part, r, row in table_rows(table):
        if row.childCount >= 2 and row.getState().contains(pyatspi.STATE_SELECTED):
            cells = [row.getChildAtIndex(c).getChildAtIndex(0) for c in range(2)]
            return (text_of(cells[0]), text_of(cells[1]))
    return None


def replace_file(src, path):
    """Copies src over path atomically (a rename onto its name)."""
    tmpcopy = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".new")
    shutil.copyfile(src, tmpcopy)
    os.replace(tmpcopy, path)


def thinned_export(tilescope, trace, out, name):
    """Writes to `out` the Chrome JSON export of `trace` without the spans
    named `name`: the same time axis, other figures."""
    subprocess.run([tilescope, "export", "--chrome-trace", "-o", out, trace], check=True)
    with open(out) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    kept = [e for e in events if not (e.get("ph") == "X" and e.get("name") == name)]
    if isinstance(doc, dict):
        doc["traceEvents"] = kept
    else:
        doc = kept
    with open(out, "w") as f:
        json.dump(doc, f)


def check_compare_reload(failures, app_path, tilescope, trace, b):
    """The Compare tab follows a reload of trace A (the file replaced, then
    Ctrl+R), against the same B, keeping the selected row: `--compare
    run.pvti B` with a row selected; run.pvti replaced by B, the table
    must become `tilescope trace --compare` of the new file and B (every
    Δ zero) with the same row selected; then two marked windows of the
    file, which replaced by B's Chrome JSON export without the label most
    frequent in window A (same time axis, other figures) must be compared
    again on the new file; after Ctrl+R the table and the row are still
    there."""
    with tempfile.TemporaryDirectory(prefix="sa-gui-") as d:
        path = os.path.join(d, "run.pvti")
        shutil.copyfile(trace, path)
        with running_app(app_path, ["--compare", path, b]) as (proc, app, tmp):
            table = find_compare(app)
            timeline = find(app, lambda a: a.name == "Timeline" and
                            a.getRole() == pyatspi.ROLE_IMAGE)
            if table is None or timeline is None:
                failures.append("compare reload: no 'Compare' table or no timeline")
                return
            check_table(failures, "before the reload", table,
                        expected_rows(cli_compare(tilescope, path, b)))
            # A label both sides have, whose figures the replacement changes.
            want = expected_rows(cli_compare(tilescope, path, b))
            chosen = next(((n, c) for n, c, cells in want
                           if not cells["Δ %"].startswith("only") and
                           cells["Δ Total"] not in ("0.000 µs",)), None)
            if chosen is None:
                failures.append("compare reload: no label of both sides that differs")
                return
            part, r = find_row(table, *chosen)
            if part is None:
                failures.append(f"compare reload: no row {chosen}")
                return
            part.querySelection().selectChild(r)
            if not wait_for(lambda: selected_label(table) == chosen):
                failures.append(f"compare reload: selecting {chosen} selected "
                                f"{selected_label(table)}")
                return
            print("selected:", chosen)

            # The file replaced by B: A is now B, compared with the same B.
            replace_file(b, path)
            want = expected_rows(cli_compare(tilescope, path, b))
            if any(cells["Δ Total"] != "0.000 µs" for _, _, cells in want):
                failures.append("the CLI finds differences between B and itself")
            check_table(failures, "after the file monitor's reload", table, want)
            if not wait_for(lambda: selected_label(table) == chosen):
                failures.append(f"the reload lost the selected row {chosen}: "
                                f"{selected_label(table)}")
            else:
                print("still selected after the reload:", chosen)
            if proc.poll() is not None:
                failures.append(f"the app died (status {proc.returncode})")
                return

            # Two marked windows of the file, then the file replaced by A
            # again: the same windows, compared on the new file.
            x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
            subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h - 10)], check=True)
            focus(timeline)
            key("w", "w", "m")
            if not wait_for(lambda: "; marked " in timeline.description):
                failures.append(f"compare reload: M marked nothing: {timeline.description!r}")
                return
            key("ctrl+m")
            key("d", "m")
            pat = re.compile(r"A: .*?, ([\d.]+) ms – ([\d.]+) ms · B: .*?, ([\d.]+) ms – "
                             r"([\d.]+) ms")
            if not wait_for(lambda: pat.match(table.description or "")):
                failures.append(f"compare reload: marking B compared nothing: "
                                f"{table.description!r}")
                return
            before = pat.match(table.description).groups()
            wa = cli(tilescope, path, "--from", before[0], "--to", before[1])
            wb = cli(tilescope, path, "--from", before[2], "--to", before[3])
            old_rows = expected_rows(pair(wa, wb))
            check_table(failures, "two windows before the reload", table, old_rows)
            # The label with the most spans in window A goes: the windows'
            # figures must change whatever this run of the example timed.
            if not wa["labels"]:
                failures.append(f"window A holds no span: {before}")
                return
            top = max(wa["labels"], key=lambda lab: lab["count"])["name"]
            thinned = os.path.join(d, "thinned.json")
            thinned_export(tilescope, b, thinned, top)
            replace_file(thinned, path)
            n = cli(tilescope, path)["spans"]
            print(f"replaced by B's export without '{top}': {n:,} spans")
            if not wait_for(lambda: f": {n:,} spans (" in " ".join(
                    text_of(a) for a in walk(header(app)) if a.getRole() == pyatspi.ROLE_LABEL and
                    "Reloaded at" in text_of(a))):
                failures.append("replacing the file by A again did not reload it")
            if not wait_for(lambda: (pat.match(table.description or "") is not None and
                                     not (table.description or "").startswith("Reloaded"))):
                failures.append(f"the windows' comparison after the reload: "
                                f"{table.description!r}")
                return
            a0, a1, b0, b1 = pat.match(table.description).groups()
            print(f"windows after the reload: A {a0} – {a1} ms, B {b0} – {b1} ms")
            if (a0, a1, b0, b1) != before:
                failures.append(f"the reload moved the windows: {before} then "
                                f"{(a0, a1, b0, b1)}")
            wa = cli(tilescope, path, "--from", a0, "--to", a1)
            wb = cli(tilescope, path, "--from", b0, "--to", b1)
            new_rows = expected_rows(pair(wa, wb))
            if not new_rows or new_rows == old_rows:
                failures.append("the replacement changed nothing in the windows: the test "
                                "proves nothing")
            check_table(failures, "two windows after the reload", table, new_rows)

            # Ctrl+R: reloaded by hand (its notice), the table and the row kept.
            want = compare_rows(table)
            chosen = next(((n, c) for n, c, _ in want), None)
            part, r = find_row(table, *chosen) if chosen else (None, None)
            if part is None:
                failures.append("compare reload: no row to select before Ctrl+R")
                return
            part.querySelection().selectChild(r)
            wait_for(lambda: selected_label(table) == chosen)
            focus(timeline)
            key("ctrl+r")
            # The file is unchanged, so the figures are too: Ctrl+R takes the
            # file monitor's path (sa_window_replace_document), proven above;
            # here the table and the row must survive it.
            if find(header(app), lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                    "Reloaded at" in text_of(a) and f": {n:,} spans (+0)" in text_of(a)) is None:
                failures.append("Ctrl+R: no notice of a reload")
            check_table(failures, "after Ctrl+R", table, want)
            if not wait_for(lambda: selected_label(table) == chosen):
                failures.append(f"Ctrl+R lost the selected row {chosen}: "
                                f"{selected_label(table)}")
            else:
                print("still selected after Ctrl+R:", chosen)
            if proc.poll() is not None:
                failures.append(f"the app died (status {proc.returncode})")


def open_recent_menu(app):
    """Main Menu → Open Recent, as a person would; returns the failure, or
    None with the submenu open."""
    menu = find(header(app), lambda a: a.name == "Main Menu" and a.getRole() in
                (pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_PUSH_BUTTON))
    if menu is None:
        return "no 'Main Menu' button"
    click(menu)
    sub = find(menu, lambda a: a.getRole() == pyatspi.ROLE_MENU_ITEM and
               (a.name or "").replace("_", "") == "Open Recent")
    if sub is None:
        key("Escape")
        return "the main menu has no 'Open Recent'"
    click(sub)
    return None


def recent_menu_lists(app, names):
    """Main Menu → Open Recent must list every one of `names` (then the
    menu is closed); returns the failure, or None."""
    failure = open_recent_menu(app)
    if failure:
        return failure
    missing = [n for n in names if find(header(app), lambda a: a.getRole() ==
                                        pyatspi.ROLE_MENU_ITEM and a.name == n) is None]
    items = [a.name for a in walk(header(app)) if a.getRole() == pyatspi.ROLE_MENU_ITEM
             ] if missing else []
    key("Escape", "Escape", "Escape")
    return f"'Open Recent' does not list {missing} (menu items: {items})" if missing else None


def open_recent(app, name):
    """Main Menu → Open Recent → `name`; returns the failure, or None."""
    failure = open_recent_menu(app)
    if failure:
        return failure
    item = find(header(app), lambda a: a.getRole() == pyatspi.ROLE_MENU_ITEM and a.name == name)
    if item is None:
        key("Escape", "Escape")
        return f"'Open Recent' does not list {name}"
    click(item)
    return None


def check_recent(failures, tmp, paths):
    xbel = os.path.join(tmp, "recently-used.xbel")
    if not wait_for(lambda: all(f"file://{p}" in open(xbel).read() for p in paths)):
        failures.append(f"recently-used.xbel does not list {paths}")
        return
    print("recent files:", ", ".join(os.path.basename(p) for p in paths))


def check_reload(failures, app_path, tilescope, trace, b, example):
    a_spans = cli(tilescope, trace)["spans"]
    b_spans = cli(tilescope, b)["spans"]
    with tempfile.TemporaryDirectory(prefix="sa-gui-") as d:
        path = os.path.join(d, "run.pvti")
        shutil.copyfile(trace, path)
        with running_app(app_path, [path]) as (proc, app, tmp):
            timeline = find(app, lambda a: a.name == "Timeline" and
                            a.getRole() == pyatspi.ROLE_IMAGE)
            stats = find(app, lambda a: a.name == "Statistics" and
                         a.getRole() == pyatspi.ROLE_TREE_TABLE)
            if not wait_for(lambda: f"; {a_spans:,} spans in view" in timeline.description):
                failures.append(f"the timeline does not show A: {timeline.description!r}")
            check_recent(failures, tmp, [path])

            def notice(prefix, text=""):
                """The header bar's notice once it starts with `prefix` and
                holds `text` (or the label starting so, or None)."""
                found = find(header(app), lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                             text_of(a).startswith(prefix) and text in text_of(a))
                return found or find(header(app), lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                                     text_of(a).startswith(prefix), timeout=0)

            # Ctrl+R with nothing changed: reloaded by hand, the same spans.
            focus(timeline)
            key("ctrl+r")
            n = notice("Reloaded at", f": {a_spans:,} spans (+0)")
            if n is None or f"{a_spans:,} spans (+0)" not in text_of(n):
                failures.append(f"Ctrl+R: no notice of a reload: {text_of(n) if n else None!r}")
            else:
                print("Ctrl+R:", text_of(n))

            # B copied over the file atomically (a rename onto its name).
            tmpcopy = os.path.join(d, ".run.pvti.new")
            shutil.copyfile(b, tmpcopy)
            os.replace(tmpcopy, path)
            if not wait_for(lambda: f"; {b_spans:,} spans in view" in timeline.description):
                failures.append(f"replacing the file by B did not reload it: "
                                f"{timeline.description!r}")
            else:
                print("replaced:", timeline.description)
            head = f"Whole trace: {b_spans:,} spans"
            if not wait_for(lambda: (stats.description or "").startswith(head)):
                failures.append(f"the statistics after the reload say {stats.description!r}")
            sign = "+" if b_spans >= a_spans else "−"
            want = f": {b_spans:,} spans ({sign}{abs(b_spans - a_spans):,})"
            n = notice("Reloaded at", want)
            if n is None or want not in text_of(n):
                failures.append(f"the notice after the replacement: {text_of(n) if n else None!r}")

            # The file deleted: a failed reload, and the trace stays shown.
            os.remove(path)
            n = notice("Reload failed", path)
            if n is None or path not in text_of(n):
                failures.append(f"deleting the file: no 'Reload failed' notice naming it: "
                                f"{text_of(n) if n else None!r}")
            else:
                print("deleted:", text_of(n))
            if proc.poll() is not None or f"; {b_spans:,} spans in view" not in timeline.description:
                failures.append("the window lost its trace when the file went away")

            # Open Recent on the file gone: the error page says so, and the
            # list forgets it.
            failure = open_recent(app, "run.pvti")
            if failure:
                failures.append(failure)
            else:
                error = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                             text_of(a).startswith(path + ":") and
                             "no such file" in text_of(a).lower())
                if error is None:
                    failures.append("Open Recent on a deleted file: no message naming it")
                else:
                    print("recent, deleted:", text_of(error))
                xbel = os.path.join(tmp, "recently-used.xbel")
                if not wait_for(lambda: f"file://{path}" not in open(xbel).read()):
                    failures.append("the deleted file stays in the recent list")
            if proc.poll() is not None:
                failures.append(f"the app died (status {proc.returncode})")

    check_growing(failures, app_path, tilescope, example)

    # A directory opened, then a run of the example writes a trace into it.
    with tempfile.TemporaryDirectory(prefix="sa-gui-") as d:
        shutil.copyfile(trace, os.path.join(d, "first.pvti"))
        with running_app(app_path, [d]) as (proc, app, tmp):
            timeline = find(app, lambda a: a.name == "Timeline" and
                            a.getRole() == pyatspi.ROLE_IMAGE)
            if not wait_for(lambda: f"; {a_spans:,} spans in view" in timeline.description):
                failures.append(f"the directory: {timeline.description!r}")
            env = dict(os.environ)
            env["PVTI_OPTIONS"] = json.dumps({"enable": "true", "directory": d})
            subprocess.run([example, "--synthetic", "--epochs", "1"], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            both = cli(tilescope, d)["spans"]
            # The notice counts the whole document (the timeline's description
            # counts the rows on screen, and the new file's rows may be below).
            grown = find(header(app), lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                         "Reloaded at" in text_of(a) and f": {both:,} spans" in text_of(a))
            if grown is None:
                failures.append(f"a trace written into the opened directory did not show: "
                                f"{timeline.description!r}, want {both:,} spans")
            else:
                print("directory grew:", text_of(grown))


def check_growing(failures, app_path, tilescope, example):
    """A trace whose writer is still running (read through its -wal): the
    example is stopped (SIGSTOP) once its trace holds spans, the app opens
    it, W W M zooms and marks a window; the writer goes on and ends, and
    the window must show the finished trace's spans with the same visible
    window and marked range."""
    with tempfile.TemporaryDirectory(prefix="sa-gui-") as d:
        env = dict(os.environ)
        env["PVTI_OPTIONS"] = json.dumps({"enable": "true", "directory": d})
        writer = subprocess.Popen([example, "--synthetic", "--epochs", "100"], env=env,
                                  stdout=subprocess.DEVNULL)
        try:
            # The writer runs only in slices the test gives it (SIGCONT, a
            # moment, SIGSTOP), and is looked at while stopped: it is caught
            # with spans written and more to come however fast either side
            # runs.
            writer.send_signal(signal.SIGSTOP)

            def partial():
                files = glob.glob(os.path.join(d, "*.pvti"))
                try:
                    return len(files) == 1 and os.path.exists(files[0] + "-wal") and \
                        cli(tilescope, files[0])["spans"] > 0
                except subprocess.CalledProcessError:
                    return False  # stopped as it made the file: the next slice

            end = time.time() + 3 * WAIT
            while not partial():
                if writer.poll() is not None or time.time() > end:
                    failures.append("the example's trace never held spans while it ran")
                    return
                writer.send_signal(signal.SIGCONT)
                time.sleep(0.05)
                writer.send_signal(signal.SIGSTOP)
            path = glob.glob(os.path.join(d, "*.pvti"))[0]
            early = cli(tilescope, path)
            if early["trace"]["complete"]:
                failures.append("the writer had finished: nothing left to grow")
                return
            with running_app(app_path, [path]) as (proc, app, tmp):
                timeline = find(app, lambda a: a.name == "Timeline" and
                                a.getRole() == pyatspi.ROLE_IMAGE)
                n = early["spans"]
                if not wait_for(lambda: f"; {n:,} spans in view" in timeline.description):
                    failures.append(f"the running trace: {timeline.description!r}, "
                                    f"the CLI {n:,} spans")
                x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
                subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h - 10)],
                               check=True)
                focus(timeline)
                key("w", "w", "m")
                view = re.compile(r"Showing ([\d.]+ ms – [\d.]+ ms) of")
                mark = re.compile(r"; marked ([\d.]+ ms – [\d.]+ ms)")
                if not wait_for(lambda: mark.search(timeline.description)):
                    failures.append(f"M marked nothing: {timeline.description!r}")
                    return
                before = (view.search(timeline.description).group(1),
                          mark.search(timeline.description).group(1))
                print(f"running trace: {n:,} spans; view {before[0]}, marked {before[1]}")
                writer.send_signal(signal.SIGCONT)
                writer.wait(timeout=10 * WAIT)
                final = cli(tilescope, path)
                if not final["trace"]["complete"] or final["spans"] <= n:
                    failures.append(f"the trace did not grow: {n} then {final['spans']} spans")
                total = final["spans"]
                stats = find(app, lambda a: a.name == "Statistics" and
                             a.getRole() == pyatspi.ROLE_TREE_TABLE)
                # The marked window's statistics, from the finished file.
                a0, a1 = (x.split()[0] for x in before[1].split(" – "))
                want = cli(tilescope, path, "--from", a0, "--to", a1)["spans"]
                n_notice = find(header(app), lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                                "Reloaded at" in text_of(a) and
                                f": {total:,} spans (" in text_of(a))
                if n_notice is None:
                    failures.append(f"the finished trace was not reloaded ({total:,} spans)")
                else:
                    print("grown:", text_of(n_notice))
                after = (view.search(timeline.description or ""),
                         mark.search(timeline.description or ""))
                if not all(after) or (after[0].group(1), after[1].group(1)) != before:
                    failures.append(f"the reload did not keep the window and the range: "
                                    f"{before} then {timeline.description!r}")
                head = f"Spans starting in {before[1]}: {want:,} spans"
                if not wait_for(lambda: (stats.description or "").startswith(head)):
                    failures.append(f"the statistics after the reload say "
                                    f"{stats.description!r}, the CLI {head!r}")
        finally:
            if writer.poll() is None:
                writer.send_signal(signal.SIGCONT)
                writer.kill()
                writer.wait()


def main():
    app_path, tilescope, example, trace = sys.argv[1:5]
    failures = []
    with tempfile.TemporaryDirectory(prefix="sa-gui-b-") as d:
        env = dict(os.environ)
        env["PVTI_OPTIONS"] = json.dumps({"enable": "true", "directory": d})
        subprocess.run([example, "--synthetic", "--epochs", "2"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        made = glob.glob(os.path.join(d, "*.pvti"))
        if len(made) != 1:
            raise SystemExit(f"FAIL: the example wrote {made}, not one trace")
        b = os.path.join(d, "two_epochs.pvti")
        os.rename(made[0], b)
        check_two_traces(failures, app_path, tilescope, trace, b)
        check_compare_reload(failures, app_path, tilescope, trace, b)
        check_reload(failures, app_path, tilescope, trace, b, example)
    finish(failures)


if __name__ == "__main__":
    main()

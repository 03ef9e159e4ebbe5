#!/usr/bin/python3
"""The System Analyser's timeline controls, used as a person would.

1. Opens TRACE: the overview strip (a slider named "Overview") must say
   the timeline's visible window, the whole trace as long as
   `tilescope trace --json` says; the timeline must count the trace's
   instants (sqlite3 on the file: its `instant` table).
2. Typing "10 ms" in the zoom level entry (named "Zoom level") and Enter
   shows a 10 ms window, and the overview says the same window; "ten"
   marks the entry with its hint and leaves the view alone. End on the
   overview moves the window to the trace's end.
3. A Shift+dragged range, then Z: the timeline shows that range.
4. Rows by keyboard: Down focuses the file's header, Space folds it (the
   spans in view stay the CLI's count: a heatmap counts them), Space
   unfolds; the first thread's row: P pins it, H hides it (its spans
   leave the view, the other threads' stay; "Show 1 Hidden Row"
   offered), Shift+H shows it again. The first
   counter row says as many samples as the CLI's series, on an axis
   holding its min and max. The heatmap row's values and fullest bucket,
   the IPU activity row's share and, with Ctrl+Shift+C, the merged
   counters' axis agree with the CLI.
5. T switches the ruler to wall-clock time: the timeline says so and
   the "Wall-Clock Time" toggle is pressed.

    check-system-analyser-timeline.py APP TILESCOPE TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import sqlite3
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import click, find, finish, running_app, wait_for  # noqa: E402

WINDOW = re.compile(r"Showing ([\d.]+) ms – ([\d.]+) ms of ([\d.]+) ms; ([\d,]+) spans in view")


def ms(ns):
    return f"{ns // 1000000}.{ns % 1000000:06d} ms"


def ns_of(text):
    """ "12.345678" (ms) -> 12345678 (ns), exactly."""
    whole, frac = text.split(".")
    return int(whole) * 1000000 + int(frac)


def window(timeline):
    """The timeline's visible window (ns from the start) and spans in view."""
    m = WINDOW.match(timeline.description or "")
    if not m:
        return None
    return ns_of(m.group(1)), ns_of(m.group(2)), int(m.group(4).replace(",", ""))


def key(*keys):
    subprocess.run(["xdotool", "key", *keys], check=True)


def click_at(acc, dx, dy):
    """Clicks `dx`, `dy` pixels into acc (GTK 4.8 does not take grabFocus)."""
    x, y, w, h = acc.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + dx), str(y + dy), "click", "1"], check=True)


def type_in(entry, text):
    """Replaces the entry's text as a person would, and presses Enter."""
    click_at(entry, 20, 10)
    subprocess.run(["xdotool", "key", "ctrl+a", "BackSpace", "type", "--delay", "20", text],
                   check=True)
    subprocess.run(["xdotool", "key", "Return"], check=True)


def main():
    app_path, tilescope, trace = sys.argv[1:4]
    whole = json.loads(subprocess.run([tilescope, "trace", "--json", trace], check=True,
                                      capture_output=True, text=True).stdout)
    length = whole["trace"]["end_ns"] - whole["trace"]["start_ns"]
    spans = whole["trace"]["spans"]
    with sqlite3.connect(f"file:{trace}?mode=ro", uri=True) as db:
        instants = db.execute("SELECT count(*) FROM instant").fetchone()[0]
    failures = []
    with running_app(app_path, [trace]) as (proc, app, tmp):
        timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
        overview = find(app, lambda a: a.name == "Overview" and a.getRole() == pyatspi.ROLE_SLIDER)
        # GTK 4.8 appends the mnemonic label's text: "Zoom level Visible width".
        entry = find(app, lambda a: (a.name or "").startswith("Zoom level") and
                     a.getRole() in (pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT))
        if timeline is None or overview is None or entry is None:
            raise SystemExit("FAIL: no 'Timeline' image, 'Overview' slider or 'Zoom level' entry")

        # 1. The whole trace, in both.
        want = f"Window 0.000000 ms – {ms(length)} of {ms(length)}"
        if not wait_for(lambda: overview.description == want):
            failures.append(f"the overview says {overview.description!r}, not {want!r}")
        if not wait_for(lambda: f"{spans:,} spans in view, {instants:,} instants" in
                        timeline.description):
            failures.append(f"the timeline does not show {spans} spans and {instants} instants: "
                            f"{timeline.description!r}")
        print("opened:", timeline.description, "|", overview.description)

        # 2. A typed zoom level.
        type_in(entry, "10 ms")
        if not wait_for(lambda: window(timeline) and
                        window(timeline)[1] - window(timeline)[0] == 10000000):
            failures.append(f"'10 ms' did not show a 10 ms window: {timeline.description!r}")
        else:
            a, b, _ = window(timeline)
            want = f"Window {ms(a)} – {ms(b)} of {ms(length)}"
            if not wait_for(lambda: overview.description == want):
                failures.append(f"the overview says {overview.description!r}, not {want!r}")
            print("typed 10 ms:", overview.description)
        before = window(timeline)
        type_in(entry, "ten")
        if not wait_for(lambda: "such as 10 ms" in (entry.description or "")):
            failures.append(f"'ten' gave no hint: {entry.description!r}")
        if window(timeline) != before:
            failures.append(f"'ten' moved the view: {timeline.description!r}")
        # The overview's caption (left of the strip) takes the keyboard.
        click_at(overview, 40, 10)
        key("End")
        if not wait_for(lambda: window(timeline) and window(timeline)[1] == length):
            failures.append(f"End on the overview did not reach the end: {timeline.description!r}")
        elif not wait_for(lambda: overview.description ==
                          f"Window {ms(length - 10000000)} – {ms(length)} of {ms(length)}"):
            failures.append(f"the overview does not follow: {overview.description!r}")

        # 3. Shift+drag a range from 30% to 60% of the plot, then Z.
        # The ruler's caption (top left) takes the keyboard and selects nothing.
        click_at(timeline, 40, 8)
        key("Home")
        wait_for(lambda: window(timeline) and window(timeline)[1] == length)
        x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        plot_x, plot_w = x + 200, w - 200
        x0, x1, yy = plot_x + int(plot_w * 0.3), plot_x + int(plot_w * 0.6), y + h - 20
        subprocess.run(["xdotool", "mousemove", str(x0), str(yy), "keydown", "shift",
                        "mousedown", "1", "mousemove", str((x0 + x1) // 2), str(yy),
                        "mousemove", str(x1), str(yy), "mouseup", "1", "keyup", "shift"],
                       check=True)
        marked = re.compile(r".*; marked ([\d.]+) ms – ([\d.]+) ms")
        if not wait_for(lambda: marked.match(timeline.description)):
            failures.append(f"Shift+drag marked nothing: {timeline.description!r}")
        else:
            ra, rb = (ns_of(v) for v in marked.match(timeline.description).groups())
            key("z")
            if not wait_for(lambda: window(timeline)[:2] == (ra, rb)):
                failures.append(f"Z did not show {ms(ra)} – {ms(rb)}: {timeline.description!r}")
            else:
                print("Z:", timeline.description)
                # The chart kit's pan (tsc-timeline.h): a fifth of the width
                # later and back, by the keypad's arrows as by D and A.
                step = int((rb - ra) * 0.2 + 0.5)
                key("KP_Right")
                if not wait_for(lambda: window(timeline)[:2] == (ra + step, rb + step)):
                    failures.append(f"KP_Right did not pan by {step} ns: {timeline.description!r}")
                key("KP_Left")
                if not wait_for(lambda: window(timeline)[:2] == (ra, rb)):
                    failures.append(f"KP_Left did not pan back: {timeline.description!r}")
        key("Escape", "Home")
        wait_for(lambda: window(timeline) and window(timeline)[1] == length)
        # The wheel zooms in about the pointer (the chart kit's controller):
        # a notch is a factor of 1.25, and the instant under the pointer
        # stays under it (to a pixel: the pointer's place in the widget is
        # GTK's, the extents AT-SPI's).
        x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        px = x + 200 + (w - 200) // 4
        at = (px - x - 200) / (w - 200)
        per_px = length / (w - 200)
        subprocess.run(["xdotool", "mousemove", str(px), str(y + h - 20), "click", "4"],
                       check=True)
        left = length * at - length / 1.25 * at
        want = (round(left), round(left + length / 1.25))
        if not wait_for(lambda: window(timeline) and
                        abs((window(timeline)[1] - window(timeline)[0]) -
                            (want[1] - want[0])) <= 1 and
                        abs(window(timeline)[0] - want[0]) <= 1.5 * per_px):
            failures.append(f"a wheel notch at {at:.3f} of the width did not show "
                            f"{ms(want[0])} – {ms(want[1])}: {timeline.description!r}")
        key("Home")
        wait_for(lambda: window(timeline) and window(timeline)[1] == length)

        # 4. Rows by keyboard.
        key("Down")
        if not wait_for(lambda: "; row tut5_ml (pid" in timeline.description and
                        ", expanded" in timeline.description):
            failures.append(f"Down focused no file header: {timeline.description!r}")
        key("space")
        if not wait_for(lambda: ", folded" in timeline.description):
            failures.append(f"Space did not fold the file: {timeline.description!r}")
        elif window(timeline)[2] != spans:
            failures.append(f"folded, the timeline counts {window(timeline)[2]} spans, "
                            f"the CLI {spans}")
        else:
            print("folded:", timeline.description)
        key("space", "Down")
        if not wait_for(lambda: "; row tut5_ml (tid" in timeline.description):
            failures.append(f"Down did not reach the thread: {timeline.description!r}")
        key("p")
        if not wait_for(lambda: ", pinned" in timeline.description):
            failures.append(f"P did not pin the thread: {timeline.description!r}")
        key("h")
        others = spans - whole["threads"][0]["spans"]  # the autoReport writer's
        if not wait_for(lambda: "; 1 rows hidden" in timeline.description and
                        window(timeline)[2] == others):
            failures.append(f"H did not hide the thread: {timeline.description!r}")
        button = find(app, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                      a.name == "Show 1 Hidden Row")
        if button is None:
            failures.append("no 'Show 1 Hidden Row' button")
        key("shift+h")
        if not wait_for(lambda: "rows hidden" not in timeline.description and
                        window(timeline)[2] == spans):
            failures.append(f"Shift+H did not bring the thread back: {timeline.description!r}")
        # The counters follow the thread: the first one's samples and axis.
        series = whole["series"][0]
        want_row = f"{series['graph']}: {series['name']}"
        counter = re.compile(r".*; row ([^;]+?), line, ([\d,]+) samples in view, "
                             r"([-\d.e+]+) – ([-\d.e+]+)")

        def focused_row():
            m = re.search(r"; row (.+?), (?:folded|expanded|line|area)\b",
                          timeline.description or "")
            return m.group(1) if m else None

        def counter_ok(m):
            name, n, lo, hi = m.groups()
            return name == want_row and int(n.replace(",", "")) == series["samples"] and \
                float(lo) <= series["min"] <= series["max"] <= float(hi)

        # (Hiding the thread moved the focus on to the next row: the
        # first counter, or Down reaches it; each Down is waited for.)
        for _ in range(6):
            if focused_row() == want_row:
                break
            was = focused_row()
            key("Down")
            if not wait_for(lambda: focused_row() != was):
                break
        # Its samples are counted once they are read: wait for the figures.
        if not wait_for(lambda: counter.match(timeline.description) and
                        counter_ok(counter.match(timeline.description))):
            m = counter.match(timeline.description)
            if not m:
                failures.append(f"no counter row reached: {timeline.description!r}")
            else:
                failures.append(f"the counter row says {m.group(0)!r}; the CLI {series}")
        else:
            name, n, lo, hi = counter.match(timeline.description).groups()
            print("counter:", name, n, "samples", lo, "–", hi)

        # 4b. The heatmap row (tutorial 5's step cycles): its values in
        # view and fullest bucket are the CLI's counts over the whole
        # trace; the IPU activity row's share of the view is the CLI's
        # time in "Run program" spans; Ctrl+Shift+C merges the counters
        # into one row on an axis holding every series.
        def series_row():
            m = re.search(r"; row (.+?), (heatmap|merged|activity), ([^;]*)",
                          timeline.description or "")
            return m.groups() if m else None

        def focus(name):
            for _ in range(8):
                if (series_row() or (None,))[0] == name or focused_row() == name:
                    return True
                was = timeline.description
                key("Down")
                if not wait_for(lambda: timeline.description != was):
                    return False
            return (series_row() or (None,))[0] == name

        hm = whole["heatmaps"][0]
        top = max(range(len(hm["counts"])), key=lambda b: (hm["counts"][b], -b))
        edges, unit = hm["edges"], " " + hm["unit"]
        bucket = (f"below {edges[0]:g}{unit}" if top == 0 else
                  f"{edges[-1]:g}{unit} and up" if top == len(edges) else
                  f"{edges[top - 1]:g} – {edges[top]:g}{unit}")
        want = (hm["name"], "heatmap", f"{sum(hm['counts']):,} values in view, most in {bucket} "
                f"({hm['counts'][top]:,})")
        if not focus(hm["name"]) or not wait_for(lambda: series_row() == want):
            failures.append(f"the heatmap row says {series_row()}, the CLI {want}")
        else:
            print("heatmap:", series_row())
        runs = sum(l["total_ns"] for l in whole["labels"]
                   if re.match(r"Run program \d+ \(", l["name"]))
        key("Up")
        # (its run spans are read in a worker: "computing" until they land)
        if not wait_for(lambda: (series_row() or ("",))[0] == "IPU activity" and
                        "IPU running" in series_row()[2]):
            failures.append(f"no IPU activity row above the heatmap: {timeline.description!r}")
        else:
            got = float(re.match(r"IPU running ([\d.]+) %", series_row()[2]).group(1))
            if abs(got - 100 * runs / length) > 1.0:
                failures.append(f"IPU activity {got} %, the CLI's run spans "
                                f"{100 * runs / length:.1f} % of the trace")
            print("activity:", series_row(), f"(CLI {100 * runs / length:.1f} %)")
        key("ctrl+shift+c")
        key("Down")
        merged = re.compile(r"(\d+) series on one axis, ([-\d.e+]+) – ([-\d.e+]+)")
        mine = [x for x in whole["series"] if x["process"] == 0]
        if not wait_for(lambda: series_row() and series_row()[1] == "merged"):
            failures.append(f"Ctrl+Shift+C showed no merged row: {timeline.description!r}")
        else:
            n, lo, hi = merged.match(series_row()[2]).groups()
            if int(n) != len(mine) or not (float(lo) <= min(x["min"] for x in mine) and
                                           max(x["max"] for x in mine) <= float(hi)):
                failures.append(f"the merged row says {series_row()}; the CLI {mine}")
            print("merged:", series_row())
        key("ctrl+shift+c")
        if not wait_for(lambda: series_row() is None or series_row()[1] != "merged"):
            failures.append(f"Ctrl+Shift+C did not split the counters: {timeline.description!r}")

        # 5. Wall-clock time.
        key("t")
        if not wait_for(lambda: "; ruler in wall-clock time" in timeline.description):
            failures.append(f"T did not switch the ruler: {timeline.description!r}")
        # GTK 4.8 gives a toggle button the push button role, its state
        # pressed, and its name twice ("Wall-Clock _Time Wall-Clock Time").
        toggle = find(app, lambda a: a.getRole() in (pyatspi.ROLE_TOGGLE_BUTTON,
                                                     pyatspi.ROLE_PUSH_BUTTON) and
                      (a.name or "").replace("_", "").startswith("Wall-Clock Time"))
        if toggle is None or not wait_for(
                lambda: toggle.getState().contains(pyatspi.STATE_CHECKED) or
                toggle.getState().contains(pyatspi.STATE_PRESSED)):
            failures.append("the Wall-Clock Time toggle is missing or not pressed")
        else:
            click(toggle)
            if not wait_for(lambda: "wall-clock" not in timeline.description):
                failures.append(f"the toggle did not switch back: {timeline.description!r}")
        if proc.poll() is not None:
            failures.append(f"the app died (status {proc.returncode})")
    finish(failures)


if __name__ == "__main__":
    main()

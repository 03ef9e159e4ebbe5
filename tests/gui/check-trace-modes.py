#!/usr/bin/python3
"""The Execution Trace's Flame and BSP modes and its link to the session,
used as a person would.

1. Opens REPORT, shows "Execution Trace" and presses the "Flame" button:
   the lanes (accessible name "Execution trace") must say their depth,
   frame count and top frame as the file has them, worked out here from
   program, program_child, control_program and step with sqlite3 (the
   nesting of the run's control program; a frame per program each time
   it runs, when it covers a step).
2. Presses "BSP": the description must give the target's tile count and
   the whole run; Ctrl+Up on the lanes must halve the tiles per row.
3. Presses "Flat", points at an exchange step and clicks it: the details'
   program must be the step's program in the file, and the lanes must
   outline that program's steps, which they do only through the
   session's "program" (the selection writes it, the lanes follow it).

Nothing waits a fixed time: the lanes say "Laying out." until a new mode
has its geometry, and "Pointer on: …" (a bar, or nothing) while the
pointer is over the plot, so each move of the pointer has an answer to
wait for.

    check-trace-modes.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import re
import sqlite3
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (click, find, finish, is_figure, other_views, plain,  # noqa: E402
                        running_app, show_view, text_of, wait_for)

STRUCTURED = {"Sequence", "Repeat", "Call", "If", "IfElse", "Switch", "RepeatWhileTrue",
              "RepeatWhileFalse"}


def fmt(n):
    return f"{n:,}"


def expected_flame(db, run):
    """(depth, frames, top program, its type, last cycle) of run `run`, for
    control programs of Sequences, Repeats and leaves (what the samples
    hold; anything else is refused so the test cannot pass by accident)."""
    ctl = db.execute("SELECT c.program FROM run r JOIN control_program c ON c.position = r.program "
                     "WHERE r.id = ?", (run,)).fetchone()[0]
    types = dict(db.execute("SELECT id, type FROM program"))
    repeat = dict(db.execute("SELECT id, repeat_count FROM program WHERE type = 'Repeat'"))
    kids = {}
    for parent, child in db.execute("SELECT parent, child FROM program_child "
                                    "ORDER BY parent, position"):
        kids.setdefault(parent, []).append(child)
    ran = {p for (p,) in db.execute("SELECT DISTINCT program FROM step WHERE run = ?", (run,))}

    def count(p):
        """(frames, depth) of one run of program p."""
        t = types[p]
        if t not in STRUCTURED:
            return (1, 1) if p in ran else (0, 0)
        if t not in ("Sequence", "Repeat"):
            raise SystemExit(f"FAIL: the test does not follow {t} programs")
        frames, depth = 0, 0
        for c in kids.get(p, []):
            f, d = count(c)
            frames += f
            depth = max(depth, d)
        if t == "Repeat":
            frames *= repeat[p]
        return (frames + 1, depth + 1) if frames else (0, 0)

    frames, depth = count(ctl)
    last = db.execute("SELECT max(cycles_to) FROM step WHERE run = ?", (run,)).fetchone()[0]
    return depth, frames, ctl, types[ctl], last


def find_exchange(lanes, failures):
    """Points at the lanes' exchange lane until the pointer is on an
    exchange step (internal or host); returns the point, or None with the
    failure added."""
    x, y, w, h = lanes.queryComponent().getExtents(pyatspi.WINDOW_COORDS)

    def point(px, py, on_plot):
        """Moves the pointer and waits for the lanes to say whether it is
        over the plot: the description then says what it is on."""
        subprocess.run(["xdotool", "mousemove", str(px), str(py)], check=True)
        return wait_for(lambda: ("Pointer on: " in lanes.description) == on_plot)

    for fy in (0.45, 0.5, 0.4, 0.55):
        for fx in range(20, 95, 5):
            px, py = x + w * fx // 100, int(y + h * fy)
            # Off the plot (over the lanes' names) first, so that the next
            # point's answer is a change whatever it is.
            if not point(x + 4, py, False) or not point(px, py, True):
                failures.append(f"the lanes do not say what the pointer is on at ({px}, {py}): "
                                f"{lanes.description!r}")
                return None
            if re.search(r"Pointer on: (DoExchange|StreamCopy|GlobalExchange) “",
                         lanes.description):
                return px, py
    failures.append(f"no exchange step found under the pointer: {lanes.description!r}")
    return None


def main():
    app_path, tilescope, report = sys.argv[1:4]
    path = os.path.join(report, "profile.pop") if os.path.isdir(report) else report
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    run = db.execute("SELECT max(id) FROM run").fetchone()[0]
    tiles = db.execute("SELECT num_tiles FROM target").fetchone()[0]
    total = max(db.execute("SELECT cycles FROM run WHERE id = ?", (run,)).fetchone()[0],
                db.execute("SELECT max(cycles_to) FROM step WHERE run = ?", (run,)).fetchone()[0])
    depth, frames, top, top_type, last = expected_flame(db, run)
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Execution Trace") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Execution Trace'")
        prune = other_views("Execution Trace")
        lanes = find(app, lambda a: a.name == "Execution trace" and
                     a.getRole() == pyatspi.ROLE_IMAGE, prune=prune)
        buttons = {}
        for name in ("Flat", "Flame", "BSP"):
            buttons[name] = find(app, lambda a, n=name: plain(a.name) == n and
                                 a.getRole() in (pyatspi.ROLE_TOGGLE_BUTTON,
                                                 pyatspi.ROLE_PUSH_BUTTON), prune=prune)
            if buttons[name] is None:
                raise SystemExit(f"FAIL: no mode button named {name!r}")
        if lanes is None:
            raise SystemExit("FAIL: the view has no image named 'Execution trace'")

        # 1. Flame.
        click(buttons["Flame"])
        want = (f"Flame: depth {depth}, {fmt(frames)} frames")
        want_top = f"Top frame: program {top} "
        want_cycles = f"({top_type}), cycles 0 – {fmt(last)}"
        if not wait_for(lambda: want in lanes.description and want_top in lanes.description and
                        want_cycles in lanes.description):
            failures.append(f"flame: the lanes say {lanes.description!r}; the file has "
                            f"{want!r}, {want_top!r} … {want_cycles!r}")
        print("flame:", lanes.description)

        # 2. BSP, and its vertical zoom from the keyboard.
        click(buttons["BSP"])
        want = f"BSP: {fmt(tiles)} tiles"
        per_row = lambda: int(re.search(r"tiles, (\d+) per row", lanes.description).group(1))
        if not wait_for(lambda: want in lanes.description and
                        f"Showing cycles 0 – {fmt(total)}" in lanes.description):
            failures.append(f"BSP: the lanes say {lanes.description!r}; wanted {want!r} "
                            f"over cycles 0 – {fmt(total)}")
        print("bsp:", lanes.description)
        # The lanes take their BSP height after the switch: the rows are
        # described once laid out at that height.
        if not wait_for(lambda: re.search(r"tiles, \d+ per row", lanes.description)):
            failures.append(f"BSP: the rows were never described: {lanes.description!r}")
        before = per_row()
        # A click on the ruler focuses the lanes and selects nothing (the
        # key press after it reaches the app after the click: X keeps
        # their order).
        x, y, w, h = lanes.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + 6), "click", "1"],
                       check=True)
        subprocess.run(["xdotool", "key", "ctrl+Up"], check=True)
        if before > 1 and not wait_for(lambda: per_row() == before // 2):
            failures.append(f"Ctrl+Up did not halve the tiles per row ({before}): "
                            f"{lanes.description!r}")
        print("bsp after Ctrl+Up:", lanes.description)

        # 3. Flat: point at an exchange step (internal or host) and click it.
        click(buttons["Flat"])
        if not wait_for(lambda: "Mode Flat" in lanes.description and
                        "Laying out." not in lanes.description):
            failures.append(f"Flat was never laid out: {lanes.description!r}")
        hit = find_exchange(lanes, failures)
        if hit is not None:
            subprocess.run(["xdotool", "click", "1"], check=True)
            sel = lambda: re.search(r"Selected: (\w+) “[^”]*”, cycles ([\d,]+) – ",  # noqa: E731
                                    lanes.description)
            if not wait_for(lambda: sel() is not None):
                failures.append(f"the click selected nothing: {lanes.description!r}")
            else:
                start = int(sel().group(2).replace(",", ""))
                program, name = db.execute(
                    "SELECT s.program, n.text FROM step s JOIN program p ON p.id = s.program "
                    "LEFT JOIN string n ON n.id = p.name WHERE s.run = ? AND s.cycles_from = ? "
                    "AND s.type = ?", (run, start, sel().group(1))).fetchone()
                details = find(app, lambda a: is_figure(a, "Program"), prune=prune)
                got = lambda: text_of(details) if details else None  # noqa: E731
                if not wait_for(lambda: got().startswith(f"{program}")):
                    failures.append(f"details: program {got()!r}; the file has {program} "
                                    f"({name})")
                if not wait_for(lambda: f"Outlined: the steps of program {program}."
                                in lanes.description):
                    failures.append(f"the session's program is not outlined: "
                                    f"{lanes.description!r}")
                print("selected:", got(), "| outlined:",
                      re.search(r"Outlined: [^.]*\.", lanes.description or ""))
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
""""Show in Execution Trace" from Liveness for a step of another run
(issue 26 item 8).

The Execution Trace shows the last run at first. From the file (`tilescope
sql`): the liveness steps whose program (or a program below it) made no
execution step in that run but did in another. One of them is clicked in
the "Liveness by step" chart (the middle of the longest stretch of them),
then "Show in Execution Trace": the Execution Trace must be shown with its
run picker switched to the latest run in which the program ran (named as
the model named its program) and that run's first step of the program
selected (its details: "Step N", the program, cycles from), as the file's
step table has them. Nothing may say it "did not run".

    check-liveness-other-run.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import re
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (sql, click, find, finish, is_figure, other_views, running_app,  # noqa: E402
                        show_view, text_of, wait_for, walk)


# Per liveness step and run: the execution steps of its program and the
# programs below it, and the first of them (NULL when none).
RAN = ("WITH RECURSIVE below(ls, id) AS (SELECT id, program FROM liveness_step UNION "
       "SELECT b.ls, c.child FROM program_child c JOIN below b ON c.parent = b.id) "
       "SELECT b.ls AS ls, s.run AS run, count(*) AS n, min(s.id) AS first "
       "FROM below b JOIN step s ON s.program = b.id GROUP BY b.ls, s.run")


def visible_view(app):
    sidebar = find(app, lambda a: a.name == "Views")
    for a in walk(sidebar):
        try:
            if a.getRole() == pyatspi.ROLE_LIST_ITEM and a.getState().contains(
                    pyatspi.STATE_SELECTED):
                return " ".join(text_of(c) for c in walk(a) if c.getRole() == pyatspi.ROLE_LABEL)
        except Exception:
            pass
    return None


def details(app, view, key):
    acc = find(app, lambda a: is_figure(a, key),
               timeout=1, prune=other_views(view))
    return text_of(acc) if acc is not None else None


def picker_text(app):
    """The Execution Trace's run picker's chosen item (as
    check-program-names.py reads it)."""
    dd = find(app, lambda a: a.getRole() == pyatspi.ROLE_COMBO_BOX and
              a.name in ("Run", "Run Run"), prune=other_views("Execution Trace"))
    if dd is None:
        return None
    items = [a for a in walk(dd) if a.getRole() == pyatspi.ROLE_FILLER and
             a.name == "GtkListItemWidget"]
    return " ".join(text_of(a) for item in items for a in walk(item)
                    if a.getRole() == pyatspi.ROLE_LABEL and text_of(a))


def select_tab(app, name, prune):
    label = find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_LABEL and
                 a.parent.getRole() == pyatspi.ROLE_PAGE_TAB, prune=prune)
    if label is None:
        raise SystemExit(f"FAIL: no tab named {name!r}")
    tab = label.parent
    tab.parent.querySelection().selectChild(tab.getIndexInParent())


def main():
    app_path, tilescope, report = sys.argv[1:4]
    n_steps = int(sql(tilescope, report, "SELECT count(*) AS n FROM liveness_step")[0]["n"])
    last = int(sql(tilescope, report, "SELECT max(id) AS r FROM run")[0]["r"])
    ran = {}  # liveness step -> {run: first step}
    for r in sql(tilescope, report, RAN):
        ran.setdefault(int(r["ls"]), {})[int(r["run"])] = int(r["first"])
    others = sorted(ls for ls, runs in ran.items() if last not in runs)
    if not others:
        raise SystemExit("FAIL: every liveness step's program ran in the last run: the report "
                         "cannot show the jump to another run")
    # The longest stretch of consecutive such steps, and its middle.
    best, start = (0, 0), 0
    for i in range(1, len(others) + 1):
        if i == len(others) or others[i] != others[i - 1] + 1:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = i
    target = others[(best[0] + best[1] - 1) // 2]
    names = {int(r["position"]): r["name"] for r in sql(
        tilescope, report,
        "SELECT cp.position, coalesce(own.text, (SELECT w.text FROM program_child k "
        "JOIN program c ON c.id = k.child JOIN string w ON w.id = c.name "
        "WHERE k.parent = cp.program AND (SELECT count(*) FROM program_child j "
        "WHERE j.parent = cp.program) = 1)) AS name FROM control_program cp "
        "JOIN program p ON p.id = cp.program LEFT JOIN string own ON own.id = p.name")}
    runs = {int(r["id"]): int(r["program"]) for r in sql(tilescope, report,
                                                          "SELECT id, program FROM run")}
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        # The trace shows the last run first.
        show_view(app, "Execution Trace")
        if not wait_for(lambda: (picker_text(app) or "").startswith(f"Run {last}: ")):
            raise SystemExit(f"FAIL: the Execution Trace does not show run {last} at first: "
                             f"{picker_text(app)!r}")

        show_view(app, "Liveness")
        prune = other_views("Liveness")
        select_tab(app, "Live Variables", prune)
        chart = find(app, lambda a: a.name == "Liveness by step", prune=prune)
        if chart is None:
            raise SystemExit("FAIL: no 'Liveness by step' chart")
        x, y, w, h = chart.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + int(w * (target + 0.5) / n_steps)),
                        str(y + h // 2), "click", "1"], check=True)
        stack = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                     re.match(r"\s*Step \d+: ", text_of(a) or "") is not None, prune=prune)
        if stack is None:
            raise SystemExit("FAIL: clicking the liveness chart showed no call stack: "
                             + repr(chart.description))
        step = int(re.match(r"\s*Step (\d+): ", text_of(stack)).group(1))
        if step not in others:
            raise SystemExit(f"FAIL: the click at liveness step {target} selected step {step}, "
                             f"whose program ran in the last run {last}")
        want_run = max(ran[step])
        first = ran[step][want_run]
        want_name = names.get(runs[want_run]) or f"program {runs[want_run]}"
        row = sql(tilescope, report, f"SELECT program, cycles_from FROM step WHERE run = "
                                     f"{want_run} AND id = {first}")[0]
        show = find(app, lambda a: a.name == "Show in Execution Trace" and
                    a.getRole() == pyatspi.ROLE_PUSH_BUTTON, prune=prune)
        if show is None or not wait_for(lambda: show.getState().contains(
                pyatspi.STATE_SENSITIVE)):
            raise SystemExit("FAIL: no sensitive 'Show in Execution Trace' beside the call stack")
        click(show)
        if not wait_for(lambda: visible_view(app) == "Execution Trace"):
            said = find(app, lambda a: a.name == "Jump result", timeout=1, prune=prune)
            failures.append(f"liveness step {step} (ran in run {want_run}, not in run {last}): "
                            f"'Show in Execution Trace' stayed on {visible_view(app)!r}"
                            + (f", saying {text_of(said)!r}" if said is not None else ""))
        else:
            if not wait_for(lambda: (picker_text(app) or "").startswith(
                    f"Run {want_run}: {want_name}, ")):
                failures.append(f"the run picker shows {picker_text(app)!r}, not run {want_run} "
                                f"({want_name})")
            want_from = f"{int(row['cycles_from']):,}"
            heading = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                           text_of(a) == f"Step {first}", prune=other_views("Execution Trace"))
            wait_for(lambda: details(app, "Execution Trace", "Cycles from") == want_from)
            got_from = details(app, "Execution Trace", "Cycles from")
            got_prog = details(app, "Execution Trace", "Program") or ""
            if heading is None or got_from != want_from or \
                    re.match(rf"{row['program']}( |$)", got_prog) is None:
                failures.append(f"the trace does not show step {first} of run {want_run} "
                                f"(program {row['program']}, cycles from {want_from}): heading "
                                f"{'found' if heading else 'missing'}, program {got_prog!r}, "
                                f"cycles from {got_from!r}")
        print(f"liveness step {step}: {visible_view(app)}, {picker_text(app)!r}, "
              f"step {first} wanted, cycles from {details(app, 'Execution Trace', 'Cycles from')}")
    finish(failures)


if __name__ == "__main__":
    main()

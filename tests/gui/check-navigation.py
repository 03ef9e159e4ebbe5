#!/usr/bin/python3
"""Moving between views, and Back and Forward, used as a person would.

0. Insights: the first of "The fullest tiles" (the file's fullest, by
   tile_memory) clicked selects that tile in Memory; "Back" returns.
1. Liveness, Always Live tab: picks the variable shown there that lives
   on the fewest tiles but more than one (read from the file with
   `tilescope sql`) and
   presses "Show Tiles in Memory": Memory must be shown with exactly that
   variable's tiles in "Select tiles". "Back" returns to Liveness.
2. Program Tree: searches an OnTileExecute program that ran in the
   latest run and presses "Show Steps in Execution Trace": the Execution
   Trace must be shown with that program's first step of the run
   selected (its details: the program, "Step N", cycles from).
3. Operations (through the sidebar, which is no jump): filters the
   costliest leaf operation and presses "Show Programs": the Program
   Tree must show the first program that operation made.
4. "Back" twice: Operations, then the Program Tree with the program of
   step 2 selected again (its details). "Forward" twice: Operations,
   then the Program Tree with the operation's program; "Forward" is then
   insensitive. Alt+Left (xdotool) works as "Back": Operations again.
   There "Show Steps" shows the trace when the operation made steps in
   the latest run (the file's step table), else says it made none.
5. Liveness: a step clicked in the chart, then "Show in Execution
   Trace": the trace when the step's program ran in any run (the file's
   step table; the trace switches to that run), else words saying it
   never ran.

    check-navigation.py APP TILESCOPE REPORT
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


def parse_tiles(text):
    """ "0-3, 7" -> {0, 1, 2, 3, 7} (None when it does not read so)."""
    tiles = set()
    for part in (text or "").split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            return None
        lo = int(m.group(1))
        tiles.update(range(lo, int(m.group(2) or lo) + 1))
    return tiles


def visible_view(app):
    """The sidebar entry selected: the view shown."""
    sidebar = find(app, lambda a: a.name == "Views")
    for a in walk(sidebar):
        try:
            if a.getRole() == pyatspi.ROLE_LIST_ITEM and a.getState().contains(
                    pyatspi.STATE_SELECTED):
                return " ".join(text_of(c) for c in walk(a) if c.getRole() == pyatspi.ROLE_LABEL)
        except Exception:
            pass
    return None


def sensitive(acc):
    return acc.getState().contains(pyatspi.STATE_SENSITIVE)


def button(app, name, view):
    return find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_PUSH_BUTTON,
                prune=other_views(view) if view else None)


def details(app, view, key):
    acc = find(app, lambda a: is_figure(a, key),
               timeout=1, prune=other_views(view))
    return text_of(acc) if acc is not None else None


def pick_program(tilescope, report):
    """(program id, compute set) of the last OnTileExecute program whose
    compute set's name is unique and that has steps in the latest run."""
    rows = sql(tilescope, report,
               "SELECT p.id, cs.text AS cs FROM program p "
               "JOIN compute_set c ON c.id = p.compute_set JOIN string cs ON cs.id = c.name "
               "WHERE p.type = 'OnTileExecute' AND (SELECT count(*) FROM compute_set d "
               "WHERE d.name = c.name) = 1 AND EXISTS (SELECT 1 FROM step s WHERE "
               "s.program = p.id AND s.run = (SELECT max(id) FROM run)) "
               "ORDER BY p.id DESC LIMIT 1")
    if not rows:
        raise SystemExit("FAIL: the report has no OnTileExecute program that ran")
    return int(rows[0]["id"]), rows[0]["cs"]


def pick_operation(tilescope, report):
    """(name, id, first program id) of a leaf debug context with a unique
    name that made programs itself."""
    names = [r["name"] for r in sql(tilescope, report,
                                    "SELECT n.text AS name FROM debug_context d "
                                    "JOIN string n ON n.id = d.name")]
    rows = sql(tilescope, report,
               "SELECT d.id, n.text AS name, (SELECT min(p.id) FROM program p "
               "WHERE p.debug_context = d.id) AS first FROM debug_context d "
               "JOIN string n ON n.id = d.name WHERE NOT EXISTS (SELECT 1 FROM debug_context k "
               "WHERE k.parent = d.id) AND first IS NOT NULL ORDER BY d.id")
    for r in rows:
        lower = r["name"].lower()
        if sum(lower in other.lower() for other in names) == 1:
            return r["name"], int(r["id"]), int(r["first"])
    raise SystemExit("FAIL: the report has no leaf debug context with programs and a unique name")


def select_tab(app, name, prune):
    """Selects the notebook tab whose label is `name`."""
    label = find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_LABEL and
                 a.parent.getRole() == pyatspi.ROLE_PAGE_TAB, prune=prune)
    if label is None:
        raise SystemExit(f"FAIL: no tab named {name!r}")
    tab = label.parent
    tab.parent.querySelection().selectChild(tab.getIndexInParent())


def check_insights_tile(app, tilescope, report, failures):
    """Insights' fullest tile, clicked, is selected in Memory; "Back"
    returns to Insights."""
    show_view(app, "Insights")
    fullest = find(app, lambda a: a.name == "The fullest tiles" and
                   a.getRole() == pyatspi.ROLE_LIST, prune=other_views("Insights"))
    if fullest is None or fullest.childCount == 0:
        raise SystemExit("FAIL: Insights has no 'The fullest tiles' list")
    row = fullest.getChildAtIndex(0)
    m = re.match(r"Tile (\d+)", row.name or "")
    most = int(sql(tilescope, report,
                   "SELECT max(total_including_gaps) AS b FROM tile_memory")[0]["b"])
    if m is None or int(sql(tilescope, report, "SELECT total_including_gaps AS b FROM "
                            f"tile_memory WHERE tile = {m.group(1)}")[0]["b"]) != most:
        failures.append(f"Insights' fullest tile row {row.name!r} is not a fullest tile of "
                        "the file")
        return
    click(row)
    entry = find(app, lambda a: a.name == "Select tiles" and
                 a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY),
                 prune=other_views("Memory"))
    if not wait_for(lambda: visible_view(app) == "Memory" and text_of(entry) == m.group(1)):
        failures.append(f"clicking Insights' {row.name.split(' (')[0]!r} showed "
                        f"{visible_view(app)!r} with {text_of(entry)!r} selected")
    selected = text_of(entry)
    click(button(app, "Back", None))
    if not wait_for(lambda: visible_view(app) == "Insights"):
        failures.append(f"'Back' from the fullest tile showed {visible_view(app)!r}")
    print(f"Insights' fullest tile {m.group(1)}: Memory selected {selected!r}; Back: "
          f"{visible_view(app)}")


def check_variable(app, tilescope, report, failures):
    show_view(app, "Liveness")
    prune = other_views("Liveness")
    select_tab(app, "Always Live", prune)
    table = find(app, lambda a: a.name == "Always-live variables" and
                 a.getRole() == pyatspi.ROLE_TREE_TABLE, prune=prune)
    rows = table.getChildAtIndex(1) if table is not None and table.childCount > 1 else None
    if rows is None:
        raise SystemExit("FAIL: no 'Always-live variables' table")
    wait_for(lambda: rows.childCount > 0)  # the rows come from a worker
    most = int(sql(tilescope, report, "SELECT max(tiles) AS n FROM variable")[0]["n"])
    # Of the rows shown, the variable (unique by name in the file) on the
    # fewest tiles, more than one and fewer than the widest variable's.
    chosen, fewest = None, None
    for i in range(min(rows.childCount, 40)):
        row = rows.getChildAtIndex(i)
        name = text_of(row.getChildAtIndex(0).getChildAtIndex(0))
        lit = name.replace("'", "''")
        found = sql(tilescope, report,
                    "SELECT v.id, v.tiles FROM variable v JOIN string s ON s.id = v.name "
                    f"WHERE s.text = '{lit}' AND v.always_live = 1")
        if len(found) != 1:
            continue
        tiles = int(found[0]["tiles"])
        if 1 < tiles < most and (fewest is None or tiles < fewest):
            chosen, fewest = (i, name), tiles
    if chosen is None:
        raise SystemExit("FAIL: no always-live variable on some tiles but not all is shown")
    index, name = chosen
    lit = name.replace("'", "''")
    want = {int(r["tile"]) for r in sql(
        tilescope, report,
        "SELECT r.tile FROM variable v JOIN string s ON s.id = v.name, "
        f"tile_runs(v.bytes_by_tile) r WHERE s.text = '{lit}' AND r.value > 0")}
    rows.querySelection().selectChild(index)
    show = button(app, "Show Tiles in Memory", "Liveness")
    if show is None:
        raise SystemExit("FAIL: the Liveness view has no 'Show Tiles in Memory' button")
    if not wait_for(lambda: sensitive(show)):
        failures.append(f"picking {name!r} left 'Show Tiles in Memory' insensitive")
    click(show)
    if not wait_for(lambda: visible_view(app) == "Memory"):
        failures.append(f"'Show Tiles in Memory' showed {visible_view(app)!r}, not Memory")
    entry = find(app, lambda a: a.name == "Select tiles" and
                 a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY),
                 prune=other_views("Memory"))
    if entry is None:
        raise SystemExit("FAIL: the Memory view has no 'Select tiles' entry")
    if not wait_for(lambda: parse_tiles(text_of(entry)) == want):
        failures.append(f"'Show Tiles in Memory' for {name!r} selected {text_of(entry)!r}; "
                        f"the file has it on {len(want)} tiles ({min(want)}..{max(want)})")
    print(f"variable {name!r}: Memory selects {text_of(entry)!r} ({len(want)} tiles in the file)")
    back = button(app, "Back", None)
    if back is None or not sensitive(back):
        raise SystemExit("FAIL: no sensitive 'Back' button after a jump")
    click(back)
    if not wait_for(lambda: visible_view(app) == "Liveness"):
        failures.append(f"'Back' after the jump to Memory showed {visible_view(app)!r}")
    print(f"Back: {visible_view(app)}")


def check_liveness_step(app, tilescope, report, run, failures):
    """A liveness step clicked in the chart -> "Show in Execution Trace":
    the trace is shown when the step's program (or a program below it)
    made a step in any run, as the file's step table says (in run `run`,
    the run the earlier jumps left chosen, or in another, which the trace
    then shows: check-liveness-other-run.py); else the Liveness view must
    say that it never ran."""
    show_view(app, "Liveness")
    prune = other_views("Liveness")
    select_tab(app, "Live Variables", prune)
    chart = find(app, lambda a: a.name == "Liveness by step", prune=prune)
    if chart is None:
        raise SystemExit("FAIL: no 'Liveness by step' chart")
    x, y, w, h = chart.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w * 45 // 100), str(y + h // 2), "click",
                    "1"], check=True)
    # The call stack, innermost first, indented by depth.
    stack = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                 re.match(r"\s*Step \d+: ", text_of(a) or "") is not None, prune=prune)
    if stack is None:
        failures.append("clicking the liveness chart showed no call stack: "
                        + repr(chart.description))
        return
    step = int(re.match(r"\s*Step (\d+): ", text_of(stack)).group(1))
    program = int(sql(tilescope, report,
                      f"SELECT program FROM liveness_step WHERE id = {step}")[0]["program"])
    ran = int(sql(tilescope, report,
                  f"WITH RECURSIVE below(id) AS (SELECT {program} UNION SELECT c.child "
                  "FROM program_child c JOIN below b ON c.parent = b.id) "
                  "SELECT count(*) AS n FROM step WHERE "
                  "program IN (SELECT id FROM below)")[0]["n"])
    show = button(app, "Show in Execution Trace", "Liveness")
    if show is None or not wait_for(lambda: sensitive(show)):
        failures.append("no sensitive 'Show in Execution Trace' beside the call stack")
        return
    click(show)
    said = None
    if ran:
        if not wait_for(lambda: visible_view(app) == "Execution Trace"):
            failures.append(f"liveness step {step} (program {program}, which ran): "
                            f"'Show in Execution Trace' showed {visible_view(app)!r}")
    else:
        said = find(app, lambda a: a.name == "Jump result" and
                    "it never ran" in text_of(a), prune=prune)
        if said is None:
            failures.append(f"liveness step {step}: program {program} never ran, and the view "
                            "does not say so")
    print(f"liveness step {step} (program {program}, {ran} execution steps in all runs; "
          f"run {run} chosen before): "
          f"{visible_view(app)}" + (f"; {text_of(said)!r}" if said is not None else ""))


def main():
    app_path, tilescope, report = sys.argv[1:4]
    program, program_cs = pick_program(tilescope, report)
    op_name, op_id, op_program = pick_operation(tilescope, report)
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        back = button(app, "Back", None)
        forward = button(app, "Forward", None)
        if back is None or forward is None:
            raise SystemExit("FAIL: the header bar has no 'Back' or 'Forward' button")
        if not wait_for(lambda: visible_view(app) == "Summary"):
            raise SystemExit("FAIL: the report did not open on Summary")
        if sensitive(back) or sensitive(forward):
            failures.append("'Back' or 'Forward' is sensitive before any jump")

        # 0. Insights' fullest tile (a jump since this branch).
        check_insights_tile(app, tilescope, report, failures)

        # 1. A variable's tiles.
        check_variable(app, tilescope, report, failures)

        # 2. A program's steps.
        show_view(app, "Program Tree")
        search = find(app, lambda a: a.name == "Search programs" and
                      a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY),
                      prune=other_views("Program Tree"))
        search.queryEditableText().setTextContents("^" + re.escape(program_cs) + "$")
        if not wait_for(lambda: details(app, "Program Tree", "Program id") == f"{program:,}"):
            failures.append(f"searching {program_cs!r} selected program "
                            f"{details(app, 'Program Tree', 'Program id')!r}, not {program}")
        steps = button(app, "Show Steps in Execution Trace", "Program Tree")
        if steps is None:
            raise SystemExit("FAIL: the program's details have no 'Show Steps in Execution "
                             "Trace' button")
        click(steps)
        if not wait_for(lambda: visible_view(app) == "Execution Trace"):
            failures.append(f"'Show Steps in Execution Trace' showed {visible_view(app)!r}")
        # The trace follows the session: the program's first step of the
        # run it shows (the latest at first), as the file's step table has it.
        run = int(sql(tilescope, report, "SELECT max(id) AS r FROM run")[0]["r"])
        first = sql(tilescope, report,
                    "SELECT id, cycles_from FROM step WHERE run = "
                    f"{run} AND program = {program} ORDER BY id LIMIT 1")[0]
        trace_program = lambda: details(app, "Execution Trace", "Program") or ""  # noqa: E731
        if not wait_for(lambda: re.match(rf"{program}( |$)", trace_program()) is not None):
            failures.append(f"the Execution Trace's details show program {trace_program()!r}, "
                            f"not {program}")
        heading = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                       text_of(a) == f"Step {first['id']}",
                       prune=other_views("Execution Trace"))
        want_from = f"{int(first['cycles_from']):,}"
        wait_for(lambda: details(app, "Execution Trace", "Cycles from") == want_from)
        cycles_from = details(app, "Execution Trace", "Cycles from")
        if heading is None or cycles_from != want_from:
            failures.append(f"the Execution Trace does not show step {first['id']} of run {run} "
                            f"(cycles from {int(first['cycles_from']):,}): heading "
                            f"{'found' if heading else 'missing'}, cycles from {cycles_from!r}")
        print(f"program {program} ({program_cs}): {visible_view(app)}, program "
              f"{trace_program()!r}, step {first['id']} cycles from {cycles_from}")

        # 3. An operation's programs (the sidebar is no jump).
        show_view(app, "Operations")
        filt = find(app, lambda a: a.name == "Filter operations" and
                    a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY),
                    prune=other_views("Operations"))
        filt.queryEditableText().setTextContents(op_name)
        if not wait_for(lambda: details(app, "Operations", "Operation") == op_name):
            failures.append(f"filtering {op_name!r} shows {details(app, 'Operations', 'Operation')!r}")
        show_programs = button(app, "Show Programs", "Operations")
        if show_programs is None:
            raise SystemExit("FAIL: the operation's details have no 'Show Programs' button")
        click(show_programs)
        if not wait_for(lambda: visible_view(app) == "Program Tree"):
            failures.append(f"'Show Programs' showed {visible_view(app)!r}")
        if not wait_for(lambda: details(app, "Program Tree", "Program id") == f"{op_program:,}"):
            failures.append(f"'Show Programs' for {op_name!r} selected program "
                            f"{details(app, 'Program Tree', 'Program id')!r}; the file's first "
                            f"program of it is {op_program}")
        print(f"operation {op_name!r}: {visible_view(app)}, program "
              f"{details(app, 'Program Tree', 'Program id')}")

        # 4. Back and Forward.
        places = []

        def place():
            return (visible_view(app), details(app, "Program Tree", "Program id"))

        click(back)
        if not wait_for(lambda: visible_view(app) == "Operations"):
            failures.append(f"'Back' from the Program Tree showed {visible_view(app)!r}")
        places.append(place())
        click(back)
        if not wait_for(lambda: place() == ("Program Tree", f"{program:,}")):
            failures.append(f"'Back' again showed {place()}, not the Program Tree with "
                            f"program {program}")
        places.append(place())
        click(forward)
        if not wait_for(lambda: visible_view(app) == "Operations"):
            failures.append(f"'Forward' showed {visible_view(app)!r}, not Operations")
        places.append(place())
        click(forward)
        if not wait_for(lambda: place() == ("Program Tree", f"{op_program:,}")):
            failures.append(f"'Forward' again showed {place()}, not the Program Tree with "
                            f"program {op_program}")
        places.append(place())
        if not wait_for(lambda: not sensitive(forward)):
            failures.append("'Forward' is still sensitive at the newest place")
        print("Back, Back, Forward, Forward:", places)

        # Alt+Left from the keyboard: a click on the header bar's title
        # first, so that the window has the keyboard (no window manager);
        # X delivers the key after the click.
        x, y, w, h = app.getChildAtIndex(0).queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + 12), "click", "1"],
                       check=True)
        subprocess.run(["xdotool", "key", "alt+Left"], check=True)
        if not wait_for(lambda: visible_view(app) == "Operations"):
            failures.append(f"Alt+Left showed {visible_view(app)!r}, not Operations")
        print(f"Alt+Left: {visible_view(app)}")

        # An operation's steps, in the run Operations shows (the latest): the
        # trace when it made one there (an OnTileExecute step counts for its
        # compute set's debug context, others for their program's), else
        # words saying it made none.
        last = int(sql(tilescope, report, "SELECT max(id) AS r FROM run")[0]["r"])
        made = int(sql(tilescope, report,
                       "SELECT count(*) AS n FROM step s JOIN program p ON p.id = s.program "
                       "LEFT JOIN compute_set c ON c.id = s.compute_set "
                       f"WHERE s.run = {last} AND (CASE WHEN c.debug_context >= 1 "
                       f"THEN c.debug_context ELSE p.debug_context END) = {op_id}")[0]["n"])
        show_steps = button(app, "Show Steps", "Operations")
        if show_steps is None:
            raise SystemExit("FAIL: the operation's details have no 'Show Steps' button")
        click(show_steps)
        if made:
            if not wait_for(lambda: visible_view(app) == "Execution Trace"):
                failures.append(f"'Show Steps' for {op_name!r} ({made} steps in run {last}) "
                                f"showed {visible_view(app)!r}")
            click(back)
        else:
            said = find(app, lambda a: a.name == "Jump result" and
                        f"no steps in run {last}" in text_of(a), prune=other_views("Operations"))
            if said is None or visible_view(app) != "Operations":
                failures.append(f"'Show Steps' for {op_name!r}, which made no steps in run "
                                f"{last}, showed {visible_view(app)!r} and did not say so")
        print(f"operation {op_name!r}: {made} steps in run {last}; Show Steps: "
              f"{visible_view(app)}")

        # 5. A liveness step's execution step, in the run the program's
        # jump chose (the latest in which that program ran) and the history
        # kept since.
        run = int(sql(tilescope, report,
                      f"SELECT max(run) AS r FROM step WHERE program = {program}")[0]["r"])
        check_liveness_step(app, tilescope, report, run, failures)
    finish(failures)


if __name__ == "__main__":
    main()

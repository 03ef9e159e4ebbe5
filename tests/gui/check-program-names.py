#!/usr/bin/python3
"""Programs and runs named as the model named them (issue 26 item 7).

The names come from the file (`tilescope sql`): engine program i is
control_program i; its name is the control program's own, else that of
the one program the compiler wrapped in it; unnamed, the views say
"Program i" / "program i" as before.
1. Program Tree: the top-level rows (every row starts collapsed), one per
   engine program in engine order, each carry that name ("epoch"), and no
   named one says "Program i". Searching the last run's program by its
   name selects its top row first: the details give its engine program
   index and name the runs ("Run N: <name>").
2. Execution Trace: the run picker shows the last run (as the summary
   chooses) as "Run N: <its program's name>, <cycles> cycles, <steps>
   steps", cycles and steps from the file's run table.
3. Operations: its run picker names the last run's program too.
4. Summary: the Execution part's Run row says "(<name>, engine program
   N)", as `tilescope summary` prints it.

    check-program-names.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import re
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (sql, find, finish, is_figure, other_views, running_app,  # noqa: E402
                        show_view, table_rows, text_of, wait_for, walk)


def engine_names(tilescope, report):
    """The name of each engine program, in engine order (None: unnamed)."""
    rows = sql(tilescope, report,
               "SELECT cp.position, own.text AS own, "
               "(SELECT count(*) FROM program_child k WHERE k.parent = cp.program) AS kids, "
               "(SELECT w.text FROM program_child k JOIN program c ON c.id = k.child "
               " JOIN string w ON w.id = c.name WHERE k.parent = cp.program) AS wrapped "
               "FROM control_program cp JOIN program p ON p.id = cp.program "
               "LEFT JOIN string own ON own.id = p.name ORDER BY cp.position")
    names = []
    for r in rows:
        if r["own"]:
            names.append(r["own"])
        elif int(r["kids"]) == 1 and r["wrapped"]:
            names.append(r["wrapped"])
        else:
            names.append(None)
    return names


def labels_below(acc):
    """The texts of the labels below `acc`, in tree order."""
    out = []
    for a in walk(acc):
        try:
            if a.getRole() == pyatspi.ROLE_LABEL:
                out.append(text_of(a))
        except Exception:
            pass
    return out


def picker_text(app, name, view):
    """What the drop-down named `name` in `view` shows: the text of its
    chosen item (GTK 4.8 puts it in a list item widget inside the
    drop-down's button; its accessible name is "Run", or "Run Run" with a
    mnemonic label), or None when there is no such drop-down."""
    dd = find(app, lambda a: a.getRole() == pyatspi.ROLE_COMBO_BOX and
              a.name in (name, f"{name} {name}"), prune=other_views(view))
    if dd is None:
        return None
    items = [a for a in walk(dd) if a.getRole() == pyatspi.ROLE_FILLER and
             a.name == "GtkListItemWidget"]
    return " ".join(t for item in items for t in labels_below(item) if t)


def fmt(n):
    return f"{int(n):,}"


def main():
    app_path, tilescope, report = sys.argv[1:4]
    names = engine_names(tilescope, report)
    if not any(names):
        raise SystemExit("FAIL: the report names none of its engine programs")
    runs = sql(tilescope, report, "SELECT id, program, cycles, num_steps FROM run ORDER BY id")
    if not runs:
        raise SystemExit("FAIL: the report keeps no runs")
    last = runs[-1]
    last_name = names[int(last["program"])] or f"program {last['program']}"
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        # 1. The Program Tree's top rows.
        if show_view(app, "Program Tree") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Program Tree'")
        view = other_views("Program Tree")
        table = find(app, lambda a: a.name == "Program tree" and
                     a.getRole() in (pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE), prune=view)
        if table is None:
            raise SystemExit("FAIL: no 'Program tree' table")
        want = [n or f"Program {i}" for i, n in enumerate(names)]

        def top_rows():
            rows = [labels_below(r) for _, _, r in table_rows(table)]
            return rows[:len(want)]

        if not wait_for(lambda: len(top_rows()) == len(want) and
                        all(w in r for w, r in zip(want, top_rows()))):
            failures.append(f"the Program Tree's top rows read {top_rows()!r}; the file names "
                            f"the engine programs {want!r}")
        for i, (n, r) in enumerate(zip(names, top_rows())):
            if n and any(t.startswith(f"Program {i}") for t in r):
                failures.append(f"top row {i} says 'Program {i}' although the model named it "
                                f"{n!r}: {r!r}")
        print(f"Program Tree top rows: {top_rows()!r}")
        if names[int(last["program"])]:
            search = find(app, lambda a: a.name == "Search programs" and
                          a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=view)
            search.queryEditableText().setTextContents(
                "^" + re.escape(names[int(last["program"])]) + "$")

            def detail(key):
                acc = find(app, lambda a: is_figure(a, key), timeout=1, prune=view)
                return text_of(acc) if acc is not None else None

            run_key = f"Run {last['id']}: {last_name}"
            if not wait_for(lambda: detail("Engine program") == last["program"] and
                            detail(run_key) is not None):
                failures.append(f"searching {last_name!r}: the details show engine program "
                                f"{detail('Engine program')!r} (want {last['program']}) and "
                                f"{'a' if detail(run_key) is not None else 'no'} {run_key!r} row")
            print(f"details of {last_name!r}: engine program {detail('Engine program')}, "
                  f"{run_key}: {detail(run_key)!r}")

        # 2. The Execution Trace's run picker.
        show_view(app, "Execution Trace")
        want_run = (f"Run {last['id']}: {last_name}, {fmt(last['cycles'])} cycles, "
                    f"{fmt(last['num_steps'])} steps")
        if not wait_for(lambda: picker_text(app, "Run", "Execution Trace") == want_run):
            failures.append(f"the Execution Trace's run picker shows "
                            f"{picker_text(app, 'Run', 'Execution Trace')!r}, not {want_run!r}")
        print(f"Execution Trace run picker: {picker_text(app, 'Run', 'Execution Trace')!r}")

        # 3. The Operations view's run picker.
        show_view(app, "Operations")
        want_op = f"Run {last['id']}: {last_name}"
        if not wait_for(lambda: picker_text(app, "Run", "Operations") == want_op):
            failures.append(f"the Operations run picker shows "
                            f"{picker_text(app, 'Run', 'Operations')!r}, not {want_op!r}")
        print(f"Operations run picker: {picker_text(app, 'Run', 'Operations')!r}")

        # 4. The Summary's run row.
        show_view(app, "Summary")
        named = names[int(last["program"])]
        want_unit = (f"({named}, engine program {last['program']})" if named
                     else f"(engine program {last['program']})")
        unit = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                    text_of(a) == want_unit, prune=other_views("Summary"))
        if unit is None:
            failures.append(f"the Summary's Run row does not say {want_unit!r}")
        print(f"Summary run row: {want_unit!r} {'found' if unit is not None else 'missing'}")
    finish(failures)


if __name__ == "__main__":
    main()

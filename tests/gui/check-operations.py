#!/usr/bin/python3
"""The Operations view, used as a person would, on a copy of REPORT's
profile.pop whose model named its own debug contexts' layers after them
(as bert_synth names its layers "layer0" ...).

1. Opens the copy, selects "Operations" in the sidebar and writes into
   "Filter operations" the name of the debug context that cost the most
   cycles of its own in the latest run among those with no children
   (read with `tilescope sql`, recomputed from the step table: an
   OnTileExecute step counts for its compute set's debug context, else
   its program's; exchange steps for their program's). The filter must
   leave one row, and its details must show that operation, its
   software layer and those cycles.
2. With the filter cleared, the Layer menu must offer the software layers
   `tilescope summary --json --show-operations` gives (softwareLayer), not
   the model's own layer names; choosing each must leave as many rows as
   the CLI lists of it ("N of M operations"), and "All" all of them.

    check-operations.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (sql, click, find, finish, is_figure, other_views, running_app,  # noqa: E402
                        show_view, text_of, wait_for)


def thousands(n):
    return f"{int(n):,}"


def pick_operation(tilescope, report):
    """(path, name, layer, cycles in the latest run) of the costliest leaf
    debug context whose path ("test/fc/logits") no other context's path
    contains (so the filter, which matches paths, keeps it alone)."""
    run = sql(tilescope, report, "SELECT max(id) AS run FROM run")[0]["run"]
    if run in (None, ""):
        raise SystemExit("FAIL: the report has no runs")
    rows = sql(tilescope, report,
               "SELECT d.id, n.text AS name, l.text AS layer, "
               "(SELECT coalesce(sum(s.cycles), 0) FROM step s "
               " JOIN program p ON p.id = s.program "
               " LEFT JOIN compute_set c ON c.id = s.compute_set "
               f" WHERE s.run = {int(run)} AND s.type IN "
               " ('OnTileExecute', 'DoExchange', 'GlobalExchange', 'StreamCopy') AND "
               " (CASE WHEN s.type = 'OnTileExecute' AND c.debug_context >= 1 "
               "  THEN c.debug_context ELSE p.debug_context END) = d.id) AS cycles "
               "FROM debug_context d JOIN string n ON n.id = d.name "
               "JOIN string l ON l.id = d.layer "
               "WHERE NOT EXISTS (SELECT 1 FROM debug_context k WHERE k.parent = d.id) "
               "ORDER BY cycles DESC, d.id")
    contexts = {int(r["id"]): (r["name"], r["parent"]) for r in sql(
        tilescope, report,
        "SELECT d.id, n.text AS name, d.parent FROM debug_context d "
        "JOIN string n ON n.id = d.name")}

    def path(i):
        name, parent = contexts[i]
        return path(int(parent)) + "/" + name if parent not in (None, "") else name

    paths = [path(i).lower() for i in contexts]
    for r in rows:
        p = path(int(r["id"]))
        if int(r["cycles"]) > 0 and sum(p.lower() in other for other in paths) == 1:
            return p, r["name"], r["layer"], int(r["cycles"]), int(r["id"]), int(run)
    raise SystemExit("FAIL: the report has no leaf debug context with cycles and a unique path")


def main():
    app_path, tilescope, sample = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="ga-operations-")
    report = os.path.join(tmp, "profile.pop")
    shutil.copy(os.path.join(sample, "profile.pop") if os.path.isdir(sample) else sample, report)
    with sqlite3.connect(report) as db:
        model_layers = {r[0] for r in db.execute(
            "SELECT s.text FROM debug_context d JOIN string s ON s.id = d.name "
            "WHERE d.api IS NULL")}
        db.execute("UPDATE debug_context SET layer = name WHERE api IS NULL")
    try:
        check(app_path, tilescope, report, model_layers)
    finally:
        shutil.rmtree(tmp)


def check(app_path, tilescope, report, model_layers):
    want_path, want_name, want_layer, want_cycles, want_id, run = pick_operation(tilescope,
                                                                                  report)
    # Its cycles by step type, from the file's steps (a leaf: its own).
    by_type = {r["type"]: int(r["cycles"]) for r in sql(
        tilescope, report,
        "SELECT s.type, sum(s.cycles) AS cycles FROM step s "
        "JOIN program p ON p.id = s.program LEFT JOIN compute_set c ON c.id = s.compute_set "
        f"WHERE s.run = {run} AND s.type IN "
        "('OnTileExecute', 'DoExchange', 'GlobalExchange', 'StreamCopy') AND "
        "(CASE WHEN s.type = 'OnTileExecute' AND c.debug_context >= 1 "
        f" THEN c.debug_context ELSE p.debug_context END) = {want_id} GROUP BY s.type")}
    cli = json.loads(subprocess.run([tilescope, "summary", "--json", "--show-operations", report],
                                    check=True, capture_output=True, text=True).stdout)
    by_layer = {}
    for op in cli["operations"]:
        by_layer[op["softwareLayer"]] = by_layer.get(op["softwareLayer"], 0) + 1
        if op["id"] == want_id:
            want_layer = op["softwareLayer"]
    total = sum(by_layer.values())
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Operations") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Operations'")
        view = other_views("Operations")
        entry = find(app, lambda a: a.name == "Filter operations" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=view)
        status = find(app, lambda a: a.name == "Operations shown", prune=view)
        if entry is None or status is None:
            raise SystemExit("FAIL: the Operations view has no 'Filter operations' entry or "
                             "no 'Operations shown'")
        if not wait_for(lambda: text_of(status) == f"{thousands(total)} operations"):
            failures.append(f"the view shows {text_of(status)!r}, the file has {total} "
                            "debug contexts")

        # Upper case: the filter must ignore case; a path: it matches paths.
        entry.queryEditableText().setTextContents(want_path.upper())

        def details(key):
            acc = find(app, lambda a: is_figure(a, key), timeout=1, prune=view)
            return text_of(acc) if acc is not None else None

        if not wait_for(lambda: text_of(status) == f"1 of {thousands(total)} operations"):
            failures.append(f"filtering {want_path.upper()!r} shows {text_of(status)!r}, "
                            "not one row")
        if not wait_for(lambda: details("Operation") == want_name):
            failures.append(f"the details show {details('Operation')!r}, not {want_name!r}")
        if details("Layer") != want_layer:
            failures.append(f"the details show layer {details('Layer')!r}, the file has "
                            f"{want_layer!r}")
        if details("Cycles") != thousands(want_cycles):
            failures.append(f"the details show {details('Cycles')!r} cycles for {want_name!r}, "
                            f"the file's steps add up to {thousands(want_cycles)}")
        for step_type, cycles in by_type.items():
            if details(step_type) != thousands(cycles):
                failures.append(f"the details show {details(step_type)!r} {step_type} cycles, "
                                f"the file's steps add up to {thousands(cycles)}")
        print(f"filter {want_path.upper()!r}: {text_of(status)}; details: "
              f"{details('Operation')} ({details('Layer')}), cycles {details('Cycles')}")

        entry.queryEditableText().setTextContents("")
        if not wait_for(lambda: text_of(status) == f"{thousands(total)} operations"):
            failures.append(f"clearing the filter shows {text_of(status)!r}")
        layer_menu = find(app, lambda a: a.name == "Layer" and a.childCount > 0 and
                          a.getRole() in (pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON),
                          prune=view)
        if layer_menu is None:
            raise SystemExit("FAIL: the Operations view has no 'Layer' button")
        # The menu button's own button is what a pointer clicks.
        opener = layer_menu.getChildAtIndex(0)
        for layer, n in sorted(by_layer.items()) + [("All", total)]:
            click(opener)
            choice = find(app, lambda a: a.name == layer and a is not opener and
                          a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                          a.parent.getRole() != pyatspi.ROLE_PUSH_BUTTON,
                          prune=view)
            if choice is None:
                failures.append(f"the Layer menu has no choice {layer!r}")
                continue
            click(choice)
            want = (f"{thousands(n)} operations" if n == total
                    else f"{thousands(n)} of {thousands(total)} operations")
            if not wait_for(lambda: text_of(status) == want):
                failures.append(f"layer {layer!r} shows {text_of(status)!r}; the file has "
                                f"{n} debug context(s) of it")
            print(f"layer {layer}: {text_of(status)}")
        click(opener)
        for layer in sorted(model_layers - set(by_layer)):
            if find(app, lambda a: a.name == layer and a.getRole() == pyatspi.ROLE_PUSH_BUTTON,
                    timeout=0.5, prune=view) is not None:
                failures.append(f"the Layer menu offers the model's own layer {layer!r}")
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The Memory view and a hostile file, used as a person would.

1. Opens REPORT, selects "Memory" in the sidebar, writes "0-15, 52" into "Select tiles"
   and activates it (Enter); the Details figure "Total, Selection" (its row and
   column, as a screen reader names a table's cell) must equal the
   tiles' bytes as `tilescope sql` reads them from the file, and the chart
   ("Memory by tile") must say what is selected.
2. Turns "Include Gaps" on: the chart's description (its maximum) must
   change, and "Total including gaps, Selection" must equal the file's;
   then drags a rubber band across the chart with the pointer: the chart
   and "Select tiles" must show the tiles under it.
3. Variables graph: types the names of the two largest variables spread
   over tiles (as `tilescope sql` finds them) into "Variables graph"; each
   gets a legend entry whose figures (bytes, tiles, the fullest tile)
   are those of its line, which must be the file's bytes by tile; a name
   no variable holds is one message; "Remove" takes the first away and
   leaves the second; the Variables table's first row, clicked, is
   added by "Add Selected Variable".
4. With PIPELINE (the multi-IPU example), a report of two IPUs it writes:
   both IPUs' tile maps, titled "IPU n", side by side in the window at a
   readable size (4 px cells or more), with no scrolling; + on a map
   zooms them and Home fits them again. The window made taller and the
   maps' pane dragged narrow, the maps stack, one above the other (the
   grid that gives them the largest cells for the pane's new size,
   test-tile-layout.c's rule).
5. Compare mode, tutorial 7 (A) against tutorial 4 (B): a variable in
   both, typed into "Variables graph", is a line on A's chart and on B's,
   its legend entry giving A's figures and B's ("; in B: ...") as
   `tilescope sql` reads each file, and each chart's description the top
   of its lines' right-hand axis (the fullest tile's bytes of that
   report); a variable B lacks says "absent in B".
6. Opens a file that is not a report: the window shows reportlib's one
   line ("not an SQLite database") and the app stays up and usable (the
   "Open Another Report…" button is there, the process alive).

    check-memory.py APP TILESCOPE REPORT [PIPELINE]
(the samples of 5. are REPORT's siblings tut7_mk1 and tut4_profiling)
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (click, find, finish, is_figure, other_views, plain,  # noqa: E402
                        running_app, show_view, sql, table_rows, text_of, wait_for)

TILES = list(range(16)) + [52]


def sql_sum(tilescope, report, column):
    ids = ",".join(str(t) for t in TILES)
    out = subprocess.run([tilescope, "sql", "--csv", report,
                          f"SELECT sum({column}) AS s FROM tile_memory WHERE tile IN ({ids})"],
                         check=True, capture_output=True, text=True).stdout
    return int(out.splitlines()[1])


def variable_line(tilescope, report, where, top_only=False):
    """The legend entry's text for the line of the variable `where`
    picks, from the file's bytes by tile (top_only: its fullest tile's
    bytes)."""
    rows = sql(tilescope, report, "SELECT s.text AS name, r.tile, r.value FROM variable v "
               "JOIN string s ON s.id = v.name, tile_runs(v.bytes_by_tile) r "
               f"WHERE {where} AND r.value > 0 ORDER BY r.tile")
    top = max(rows, key=lambda r: (int(r["value"]), -int(r["tile"])))
    total = sum(int(r["value"]) for r in rows)
    if top_only:
        return int(top["value"])
    return (rows[0]["name"], f"{rows[0]['name']}: {total:,} B on {len(rows):,} tiles, most "
            f"{int(top['value']):,} B on tile {top['tile']}")


def type_into(entry, text):
    """Typed and Enter pressed through X: GTK 4.8's entry ignores the
    AT-SPI "activate" action."""
    x, y, w, h = entry.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"],
                   check=True)
    entry.queryEditableText().setTextContents(text)
    subprocess.run(["xdotool", "key", "Return"], check=True)


def check_variables_graph(app, tilescope, report, memory, failures):
    """Two variables typed into "Variables graph", their lines' figures
    against the file, a bad name, and Remove."""
    picks = sql(tilescope, report, "SELECT v.id FROM variable v WHERE v.tiles > 1 AND "
                "(SELECT count(*) FROM variable w WHERE w.name = v.name) = 1 "
                "ORDER BY v.bytes DESC, v.id LIMIT 2")
    lines = [variable_line(tilescope, report, f"v.id = {int(p['id'])}") for p in picks]
    entry = find(app, lambda a: a.name == "Variables graph" and
                 a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=memory)
    if entry is None or len(lines) < 2:
        failures.append("no 'Variables graph' entry, or the file has too few variables")
        return
    def enter(text):
        type_into(entry, text)
    for name, want in lines:
        enter(name)
        got = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                   (a.name or "").endswith(" " + want), prune=memory)
        if got is None:
            shown = find(app, lambda a: (a.name or "").startswith(name + ":"), timeout=0,
                         prune=memory)
            failures.append(f"variable {name}'s line: {shown.name if shown else None!r}, the "
                            f"file says {want!r}")
    enter("no such variable in this report")
    if find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
            "No variable's name holds" in (a.name or ""), prune=memory) is None:
        failures.append("a name no variable holds gave no message")
    remove = find(app, lambda a: a.name == "Remove " + lines[0][0] and
                  a.getRole() == pyatspi.ROLE_PUSH_BUTTON, prune=memory)
    if remove is None:
        failures.append(f"no 'Remove {lines[0][0]}' button")
        return
    click(remove)
    if not wait_for(lambda: find(app, lambda a: a.name == lines[0][1], timeout=0,
                                 prune=memory) is None):
        failures.append(f"Remove left {lines[0][0]}'s line")
    if find(app, lambda a: a.name == lines[1][1], timeout=0, prune=memory) is None:
        failures.append(f"Remove {lines[0][0]} took {lines[1][0]}'s line too")
    print(f"variables graph: {lines[0][1]}; {lines[1][1]}; the first removed")
    # The variable picked in the Variables table (the selection's largest
    # there), added by "Add Selected Variable".
    tab = find(app, lambda a: a.getRole() == pyatspi.ROLE_PAGE_TAB and a.name == "Variables",
               prune=memory)
    tab.parent.querySelection().selectChild(tab.getIndexInParent())
    table = find(app, lambda a: a.name == "Variables on the selection", prune=memory)
    first = lambda: next((row for _, _, row in table_rows(table) if row.childCount > 1 and  # noqa
                          text_of(row.getChildAtIndex(0).getChildAtIndex(0))), None)
    if table is None or not wait_for(lambda: first() is not None):
        failures.append("the Variables table shows no variable of the selection")
        return
    row = first()
    name = text_of(row.getChildAtIndex(0).getChildAtIndex(0))
    x, y, w, h = row.getChildAtIndex(0).queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"],
                   check=True)
    wait_for(lambda: row.getState().contains(pyatspi.STATE_SELECTED))
    add = find(app, lambda a: plain(a.name).endswith("Add Selected Variable") and
               a.getRole() == pyatspi.ROLE_PUSH_BUTTON, prune=memory)
    click(add)
    quoted = name.replace("'", "''")
    want = variable_line(tilescope, report, f"v.id = (SELECT min(w.id) FROM variable w JOIN "
                         f"string t ON t.id = w.name WHERE t.text = '{quoted}')")[1]
    if find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
            (a.name or "").endswith(" " + want), prune=memory) is None:
        failures.append(f"Add Selected Variable did not draw {name!r}'s line ({want!r})")
    print(f"from the Variables table: {want}")


def check_multi_ipu(app_path, pipeline, tmp, failures):
    """A two-IPU report's maps side by side at a readable size, zoomable."""
    report = os.path.join(tmp, "multi_ipu")
    env = dict(os.environ, POPLAR_ENGINE_OPTIONS=json.dumps(
        {"autoReport.all": "true", "autoReport.directory": report}))
    subprocess.run([pipeline, "--steps", "1"], env=env, check=True, stdout=subprocess.DEVNULL)
    with running_app(app_path, [report]) as (proc, app, _):
        if show_view(app, "Memory") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Memory'")
        memory = other_views("Memory")
        frame = find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME)
        maps = [find(app, lambda a, i=i: a.name == f"Tile map, IPU {i}", prune=memory)
                for i in range(2)]
        titles = [find(app, lambda a, i=i: a.getRole() == pyatspi.ROLE_LABEL and
                       a.name == f"IPU {i}", prune=memory) for i in range(2)]
        if None in maps or None in titles:
            failures.append(f"the two IPUs' maps or titles are missing: {maps} {titles}")
            return

        def extents(acc):
            return acc.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        fx, fy, fw, fh = frame.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        # 46 x 32 cells of at least 4 px each (the ramp's legend below
        # the grid takes 43 px more), in the window, on one row.
        wait_for(lambda: all(extents(m)[2] >= 46 * 4 for m in maps))
        boxes = [extents(m) for m in maps]
        for i, (x, y, w, h) in enumerate(boxes):
            if w < 46 * 4 or h < 32 * 4 + 43 or x < fx or y < fy or x + w > fx + fw or \
                    y + h > fy + fh:
                failures.append(f"IPU {i}'s map at {(x, y, w, h)} is not whole and readable in "
                                f"the window {(fx, fy, fw, fh)}")
        if abs(boxes[0][1] - boxes[1][1]) > 2 or boxes[1][0] <= boxes[0][0]:
            failures.append(f"the maps are not side by side: {boxes}")
        # A click gives map 0 the keys; + and ctrl+wheel up zoom, Home fits.
        x, y, w, h = boxes[0]
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 3), "click", "1"],
                       check=True)
        for zoom in (["key", "plus"], ["keydown", "ctrl", "click", "4", "keyup", "ctrl"]):
            subprocess.run(["xdotool"] + zoom, check=True)
            if not wait_for(lambda: extents(maps[0])[2] > w * 1.2):
                failures.append(f"{zoom} did not zoom the maps: {extents(maps[0])}, was {w} wide")
            # Around the pane's centre (right of map 0's
            # left edge): the pane scrolls, map 0's left edge moves left.
            elif not wait_for(lambda: extents(maps[0])[0] < x - 20):
                failures.append(f"{zoom} zoomed around the pane's corner: {extents(maps[0])}")
            subprocess.run(["xdotool", "key", "Home"], check=True)
            if not wait_for(lambda: extents(maps[0])[2] == w):
                failures.append(f"Home did not fit the maps again: {extents(maps[0])}, was {w}")
        print(f"multi-IPU maps: {boxes}")
        # A taller window, and the maps' pane dragged narrow by its
        # divider with the selection: the maps stack.
        subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "Graph Analyser",
                        "windowsize", "1280", "1000"], check=True)
        wait_for(lambda: extents(maps[0])[3] > boxes[0][3])
        x, y, w, h = extents(maps[1])
        subprocess.run(["xdotool", "mousemove", str(x + w + 2), str(y + h // 2), "mousedown", "1",
                        "mousemove", str(x + w - 100), str(y + h // 2), "mousemove",
                        str(x + w - 380), str(y + h // 2), "mouseup", "1"], check=True)
        if not wait_for(lambda: extents(maps[1])[1] > extents(maps[0])[1] + 32 * 4 and
                        abs(extents(maps[1])[0] - extents(maps[0])[0]) <= 2):
            failures.append("in a narrow, tall pane the maps did not stack: "
                            f"{[extents(m) for m in maps]}")
        print(f"narrow pane: maps at {[extents(m) for m in maps]}")


def check_compare_variables(app_path, tilescope, samples, failures):
    """A variable in both reports drawn on A's chart and B's, with both
    reports' figures; one only in A said to be absent in B."""
    a, b = os.path.join(samples, "tut7_mk1"), os.path.join(samples, "tut4_profiling")
    both, only_a = "vertexCode", "matrix"
    where = "v.id = (SELECT min(w.id) FROM variable w JOIN string t ON t.id = w.name " \
            "WHERE t.text = '{}')"
    want_a = variable_line(tilescope, a, where.format(both))[1]
    want_b = variable_line(tilescope, b, where.format(both))[1][len(both) + 2:]
    if sql(tilescope, b, f"SELECT 1 FROM variable v JOIN string s ON s.id = v.name "
           f"WHERE s.text = '{only_a}'"):
        failures.append(f"the compare check needs {only_a} absent from {b}")
    with running_app(app_path, [a, b]) as (proc, app, _):
        if show_view(app, "Memory") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Memory'")
        memory = other_views("Memory")
        entry = find(app, lambda a: a.name == "Variables graph" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=memory)
        chart_a = find(app, lambda a: a.name == "Memory by tile", prune=memory)
        chart_b = find(app, lambda a: a.name == "Memory by tile, report B", prune=memory)
        if None in (entry, chart_a, chart_b):
            raise SystemExit("FAIL: no 'Variables graph' entry or no A and B charts")
        type_into(entry, both)
        want = f"{want_a}; in B: {want_b}"
        if find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                (a.name or "").endswith(" " + want), prune=memory) is None:
            shown = find(app, lambda a: (a.name or "").startswith(both + ":"), timeout=0,
                         prune=memory)
            failures.append(f"{both}'s entry: {shown.name if shown else None!r}, the files say "
                            f"{want!r}")
        for chart, report in ((chart_a, a), (chart_b, b)):
            top = variable_line(tilescope, report, where.format(both), top_only=True)
            if not wait_for(lambda: f"lines on the right axis, up to {top:,} B" in
                            (chart.description or "")):
                failures.append(f"{chart.name} does not draw {both}'s line to {top:,} B on "
                                f"its right axis: {chart.description!r}")
        type_into(entry, only_a)
        if find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                f" {only_a}: " in (a.name or "") and
                (a.name or "").endswith("; absent in B"), prune=memory) is None:
            failures.append(f"{only_a}'s entry does not say it is absent in B")
        print(f"compare variables: {want}; {only_a} absent in B")


def check_memory(app_path, tilescope, report, tmp, failures):
    want_total = sql_sum(tilescope, report, "total")
    want_gaps = sql_sum(tilescope, report, "total_including_gaps")
    with running_app(app_path, [report]) as (proc, app, _):
        # Opens on Summary: go to Memory by its sidebar entry.
        if show_view(app, "Memory") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Memory'")
        memory = other_views("Memory")
        entry = find(app, lambda a: a.name == "Select tiles" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=memory)
        chart = find(app, lambda a: a.name == "Memory by tile", prune=memory)
        if entry is None or chart is None:
            raise SystemExit("FAIL: the Memory view has no 'Select tiles' entry or no chart")
        entry.queryEditableText().setTextContents("0-15, 52")
        entry.queryAction().doAction(0)  # "activate": Enter
        total = find(app, lambda a: is_figure(a, "Total, Selection"), prune=memory)
        if total is None:
            raise SystemExit("FAIL: no 'Total, Selection' figure after selecting tiles")
        if not wait_for(lambda: text_of(total) == f"{want_total:,}"):
            failures.append(f"Total, Selection shows {text_of(total)!r}, the file has "
                            f"{want_total:,}")
        if not wait_for(lambda: "selected" in (chart.description or "")):
            failures.append(f"the chart does not say what is selected: {chart.description!r}")
        before = chart.description
        gaps = find(app, lambda a: plain(a.name) == "Include Gaps" and
                    a.getRole() in (pyatspi.ROLE_CHECK_BOX, pyatspi.ROLE_TOGGLE_BUTTON),
                    prune=memory)
        if gaps is None:
            raise SystemExit("FAIL: no 'Include Gaps' check box")
        click(gaps)
        if not wait_for(lambda: chart.description != before):
            failures.append("Include Gaps did not change the chart: " + repr(before))
        with_gaps = find(app, lambda a: is_figure(a, "Total including gaps, Selection"),
                         prune=memory)
        if with_gaps is None or not wait_for(lambda: text_of(with_gaps) == f"{want_gaps:,}"):
            failures.append("Total including gaps, Selection shows "
                            f"{text_of(with_gaps) if with_gaps else None!r}, the file has "
                            f"{want_gaps:,}")
        print(f"memory: selection {want_total:,} B ({want_gaps:,} B with gaps) as the file "
              f"says; chart: {chart.description}")
        # A rubber band dragged with the pointer across a fifth of the chart
        # selects the tiles under it (real pointer events, through X).
        x, y, w, h = chart.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        x1, x2, ym = x + int(w * 0.45), x + int(w * 0.65), y + h // 2
        subprocess.run(["xdotool", "mousemove", str(x1), str(ym), "mousedown", "1",
                        "mousemove", str((x1 + x2) // 2), str(ym), "mousemove", str(x2), str(ym),
                        "mouseup", "1"], check=True)
        if not wait_for(lambda: "items selected" in chart.description and
                        "17 items selected" not in chart.description):
            failures.append("a rubber band over the chart selected nothing new: "
                            + repr(chart.description))
        else:
            # The app is busy for seconds after a selection of hundreds of
            # tiles (a read then gets no reply): polled, not read once.
            wait_for(lambda: text_of(entry) not in ("", "0-15, 52"))
            entry_text = text_of(entry)
            if not entry_text or entry_text == "0-15, 52":
                failures.append(f"the rubber band's tiles did not reach Select tiles: "
                                f"{entry_text!r}")
            print(f"rubber band: {entry_text}; chart: {chart.description}")
        check_variables_graph(app, tilescope, report, memory, failures)


def check_hostile(app_path, tmp, failures):
    bad = os.path.join(tmp, "profile.pop")
    with open(bad, "wb") as f:
        f.write(b"This is not a report.\n" * 64)
    with running_app(app_path, [bad]) as (proc, app, _):
        # GTK 4.8 names a label by its text once the text is set.
        message = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and bad in a.name)
        if message is None:
            raise SystemExit("FAIL: no error message for a file that is not a report")
        shown = text_of(message)
        if "not an SQLite database" not in shown or bad not in shown:
            failures.append(f"the error message does not say what is wrong: {shown!r}")
        button = find(app, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                      "Open Another Report" in plain(a.name))
        if button is None:
            failures.append("no 'Open Another Report…' button after the error")
        # Still up: it answers on the bus (the window is still there) after
        # showing the error, and has not exited.
        if find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME) is None or \
                proc.poll() is not None:
            failures.append(f"the app exited ({proc.poll()}) after a bad file")
        print(f"hostile file: {shown!r}; the app is up")


def main():
    app_path, tilescope, report = sys.argv[1:4]
    failures = []
    with tempfile.TemporaryDirectory(prefix="ga-gui-") as tmp:
        check_memory(app_path, tilescope, report, tmp, failures)
        if len(sys.argv) > 4:
            check_multi_ipu(app_path, sys.argv[4], tmp, failures)
        check_compare_variables(app_path, tilescope, os.path.dirname(report), failures)
        check_hostile(app_path, tmp, failures)
    finish(failures)


if __name__ == "__main__":
    main()

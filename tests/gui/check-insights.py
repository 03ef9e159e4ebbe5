#!/usr/bin/python3
"""The Insights view read through AT-SPI.

Opens REPORT, selects "Insights" in the sidebar and reads the level bar of
IPU 0 ("IPU 0 memory used"): its value must be the memory used including
gaps of `tilescope summary --json --show-per-ipu-memory`'s IPU 0 part and
its maximum that part's capacity; the verdict ("insights.verdict") must say
whether the program fits as the JSON's out-of-memory tiles say.

Memory by scope, each figure against `tilescope sql`: in the Model scope
and then the Tile scope (the tile with the most vertex memory, typed in
"Tile number"; then the lowest of two tiles selected in the Memory view),
the rows of "Vertex memory by vertex type" (vertices, state, descriptors,
edge and copy pointers, padding, code, total) and of "Exchange memory by
exchange" (code, and the bytes of the message buffers live from the
exchange's step); with "User variables", the bytes of the largest
variables and constants on that tile; the IPU scope names IPU 0. The
tables are read by a worker: each check polls until they land, and three
scope changes in a row end on the last one's figures.

With PIPELINE (the multi-IPU example), on a two-IPU report it writes: in
the Tile scope the greyed "IPU in scope" drop-down shows the tile's IPU (not
the last one picked), and the IPU scope then names that IPU.

    check-insights.py APP TILESCOPE REPORT [PIPELINE]
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (click, find, finish, other_views, running_app, show_view,  # noqa: E402
                        sql, table_rows, text_of, walk, wait_for)

# The figures of a scope, as `tilescope sql` gives them: {tile} is the
# tile, or NULL for the whole model (tile_value is then replaced by the
# whole's column).
VERTICES = """
SELECT CASE WHEN {tile} IS NULL THEN t.instances
            ELSE {vd} / t.state_bytes END AS vertices,
       {vd} AS state, {desc} AS descriptors, {edge} AS edge, {copy} AS copy,
       {pad} AS padding, {code} AS code, {total} AS total
  FROM memory_by_vertex_type m JOIN vertex_type t ON t.id = m.vertex_type
 WHERE total > 0 ORDER BY total DESC, m.vertex_type"""
EXCHANGES = """
SELECT p.instr_total AS code,
       (SELECT ifnull(sum({bytes}), 0) FROM variable v JOIN liveness_step l ON l.id = v.live_from
         WHERE l.program = p.id
           AND v.category IN ('message', 'hostMessage', 'globalMessage')) AS buffers
  FROM program p WHERE p.exchange IS NOT NULL
   AND (buffers > 0 OR ({tile} IS NULL AND code > 0))
 ORDER BY buffers DESC, code DESC, p.id"""
VARIABLES = """
SELECT {bytes} AS bytes FROM variable v
 WHERE v.category IN ('variable', 'constant') AND bytes > 0 ORDER BY bytes DESC LIMIT 10"""


def scope_sql(tilescope, report, query, tile):
    """`query` for the whole model (tile None) or one tile: the rows'
    values as tuples of ints."""
    def col(name, table="m"):
        return (f"{table}.{name}" if tile is None else
                f"tile_value({table}.{name}_by_tile, {tile})")
    q = query.format(tile="NULL" if tile is None else tile, vd=col("vertex_data_bytes"),
                     desc=col("descriptor_bytes"), edge=col("edge_ptr_bytes"),
                     copy=col("copy_ptr_bytes"), pad=col("padding_bytes"),
                     code=col("code_bytes"), total=col("total_bytes"),
                     bytes="v.bytes" if tile is None else f"tile_value(v.bytes_by_tile, {tile})")
    return [tuple(int(v) for v in r.values()) for r in sql(tilescope, report, q)]


def figures(row_name, n):
    """The last `n` cells of a list row's accessible name ("name, 1,234,
    ..."), as ints."""
    return tuple(int(c.replace(",", "")) for c in row_name.split(", ")[-n:])


def list_figures(app, name, n, prune):
    lst = find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_LIST, prune=prune,
               timeout=5)
    if lst is None:
        return None
    rows = [lst.getChildAtIndex(i).name for i in range(lst.childCount)]
    # The first row names the columns; "and N more" has no name.
    return [figures(r, n) for r in rows[1:] if r]


def check_scope(app, tilescope, report, tile, status, prune, failures):
    """The two tables of the scope shown against `tilescope sql`."""
    where = "the model (" if tile is None else f"tile {tile} ("
    counts = []
    for name, query, n in (("Vertex memory by vertex type", VERTICES, 8),
                           ("Exchange memory by exchange", EXCHANGES, 2)):
        want = scope_sql(tilescope, report, query, tile)
        counts.append(len(want))
        want = want[:25]
        if not wait_for(lambda: where in text_of(status) and
                        list_figures(app, name, n, prune) == want):
            failures.append(f"{where}: {name!r} shows {list_figures(app, name, n, prune)} "
                            f"(status {text_of(status)!r}); the file {want}")
    print(f"insights: {where.rstrip(' (')}: {counts[0]} vertex types, {counts[1]} exchanges")


def main():
    app_path, tilescope, report = sys.argv[1:4]
    doc = json.loads(subprocess.run([tilescope, "summary", "--json", "--show-per-ipu-memory",
                                     report], check=True, capture_output=True,
                                    text=True).stdout)
    ipu0 = next(m for m in doc["memory"] if m.get("ipu") == 0)
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Insights") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Insights'")
        prune = other_views("Insights")
        bar = find(app, lambda a: a.name == "IPU 0 memory used" and
                   a.getRole() == pyatspi.ROLE_LEVEL_BAR, prune=prune)
        if bar is None:
            raise SystemExit("FAIL: no level bar named 'IPU 0 memory used'")
        value = bar.queryValue()
        used, cap = ipu0["includingGaps"], ipu0["capacity"]
        if not wait_for(lambda: round(value.currentValue) == min(used, cap) and
                        round(value.maximumValue) == cap):
            failures.append(f"IPU 0 shows {value.currentValue:,.0f} of "
                            f"{value.maximumValue:,.0f} B; the report says {used:,} of {cap:,}")
        # The headline, a sentence a reader reads as it is.
        verdict = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                       text_of(a).startswith("The program "), prune=prune)
        fits = not ipu0.get("outOfMemoryTiles")
        if verdict is not None:
            wait_for(lambda: ("fits" in text_of(verdict)) == fits)
        text = text_of(verdict) if verdict is not None else ""
        if verdict is None or (("fits" in text) != fits):
            failures.append(f"the verdict {text!r} does not match "
                            f"{'no' if fits else 'some'} out-of-memory tiles")
        print(f"insights: IPU 0 {value.currentValue:,.0f} of {value.maximumValue:,.0f} B; "
              f"verdict: {text}")
        check_memory_by_scope(app, tilescope, report, prune, failures)
    if len(sys.argv) > 4:
        check_tile_ipu(app_path, tilescope, sys.argv[4], failures)
    finish(failures)


def type_tile(app, tile, prune):
    entry = find(app, lambda a: a.name == "Tile number" and
                 a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=prune)
    if entry is None:
        raise SystemExit("FAIL: Memory by scope has no 'Tile number' entry")
    entry.queryEditableText().setTextContents(str(tile))
    entry.queryAction().doAction(0)


def check_tile_ipu(app_path, tilescope, pipeline, failures):
    """The Tile scope's drop-down shows the tile's IPU on a two-IPU report."""
    with tempfile.TemporaryDirectory(prefix="insights-") as tmp:
        report = os.path.join(tmp, "multi_ipu")
        env = dict(os.environ, POPLAR_ENGINE_OPTIONS=json.dumps(
            {"autoReport.all": "true", "autoReport.directory": report}))
        subprocess.run([pipeline, "--steps", "1", "--tiles-per-ipu", "16"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        with running_app(app_path, [report]) as (proc, app, _):
            if show_view(app, "Insights") is None:
                raise SystemExit("FAIL: no sidebar entry named 'Insights'")
            prune = other_views("Insights")
            status = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                          " on the model (" in text_of(a), prune=prune)
            button = find(app, lambda a: a.name == "IPU in scope" and
                          a.getRole() in (pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_PUSH_BUTTON),
                          prune=prune)
            if status is None or button is None:
                raise SystemExit("FAIL: Memory by scope has no status or 'IPU in scope'")

            def shown():
                return [text_of(a) for a in walk(button) if a.getRole() == pyatspi.ROLE_LABEL
                        and text_of(a).startswith("IPU ")]
            toggle(app, "IPU", prune)
            wait_for(lambda: "on IPU 0 (tiles 0 to 15)" in text_of(status))
            type_tile(app, 20, prune)
            if not wait_for(lambda: "on tile 20 (IPU 1)" in text_of(status) and
                            shown() == ["IPU 1"]):
                failures.append(f"the Tile scope of tile 20 shows {shown()} in 'IPU in scope', "
                                f"not IPU 1 (status {text_of(status)!r})")
            check_scope(app, tilescope, report, 20, status, prune, failures)
            toggle(app, "IPU", prune)
            if not wait_for(lambda: "on IPU 1 (tiles 16 to 31)" in text_of(status)):
                failures.append(f"back in the IPU scope, the status says {text_of(status)!r}, "
                                "not IPU 1")
            print(f"insights: two IPUs: tile 20's scope shows {shown()}")


def toggle(app, name, prune):
    # GTK 4.8 gives a toggle button the push button's role.
    b = find(app, lambda a: a.name == name and a.getRole() in (pyatspi.ROLE_TOGGLE_BUTTON,
                                                               pyatspi.ROLE_PUSH_BUTTON),
             prune=prune)
    if b is None:
        raise SystemExit(f"FAIL: Insights has no {name!r} toggle button")
    click(b)
    return b


def check_memory_by_scope(app, tilescope, report, prune, failures):
    status = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                  " on the model (" in text_of(a), prune=prune)
    if status is None:
        raise SystemExit("FAIL: Memory by scope shows no status naming the model")
    check_scope(app, tilescope, report, None, status, prune, failures)
    toggle(app, "IPU", prune)
    if not wait_for(lambda: "on IPU 0 (tiles 0 to " in text_of(status)):
        failures.append(f"the IPU scope says {text_of(status)!r}, not IPU 0")
    # The Tile scope: the tile with the most vertex memory, typed.
    tile = int(sql(tilescope, report, "SELECT r.tile AS tile FROM memory_by_vertex_type m, "
                   "tile_runs(m.total_bytes_by_tile) r GROUP BY r.tile "
                   "ORDER BY sum(r.value) DESC, r.tile LIMIT 1")[0]["tile"])
    type_tile(app, tile, prune)
    check_scope(app, tilescope, report, tile, status, prune, failures)
    # Three changes in a row, each cancelling the last's worker: the
    # tables end on the last scope's figures.
    for name in ("Model", "IPU", "Tile"):
        toggle(app, name, prune)
    check_scope(app, tilescope, report, tile, status, prune, failures)
    # The Tile scope follows the tiles selected in the Memory view.
    tile = 0 if tile else 1
    show_view(app, "Memory")
    tiles = find(app, lambda a: a.name == "Select tiles" and
                 a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY),
                 prune=other_views("Memory"))
    if tiles is None:
        raise SystemExit("FAIL: the Memory view has no 'Select tiles' entry")
    tiles.queryEditableText().setTextContents(f"{tile}, {tile + 5}")
    tiles.queryAction().doAction(0)
    show_view(app, "Insights")
    check_scope(app, tilescope, report, tile, status, prune, failures)
    # User variables on that tile: the largest ten's bytes, in order.
    toggle(app, "User variables", prune)
    table = find(app, lambda a: a.name == "User variables in scope" and
                 a.getRole() in (pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE), prune=prune)
    want = [r[0] for r in scope_sql(tilescope, report, VARIABLES, tile)]

    def shown():
        rows = [[text_of(a) for a in walk(r) if a.getRole() == pyatspi.ROLE_LABEL]
                for part, i, r in table_rows(table)]
        return [int(r[1].replace(",", "")) for r in rows
                if len(r) > 1 and r[1].replace(",", "").isdigit()][:len(want)]
    if table is None or not want or not wait_for(
            lambda: f"on tile {tile} " in text_of(status) and shown() == want):
        failures.append(f"tile {tile}: the user variables' bytes read "
                        f"{shown() if table else None}; the file {want} "
                        f"(status {text_of(status)!r})")
    print(f"insights: tile {tile}: user variables {want}")


if __name__ == "__main__":
    main()

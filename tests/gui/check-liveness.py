#!/usr/bin/python3
"""The Liveness view, used as a person would.

Opens REPORT, selects "Liveness" in the sidebar and checks against
`tilescope summary --json` (liveness.peakStep, maxLiveBytes, alwaysLiveBytes):
1. the caption under the chart names the peak step, its not-always-live
   bytes (maxLiveBytes - alwaysLiveBytes), the maximum live bytes and the
   always-live bytes, with the text summary's thousands separators;
2. the chart ("Liveness by step") says in its accessible description that
   its maximum is those bytes at that step;
3. "Include Always-Live" stacks the always-live bytes: the chart's maximum
   becomes maxLiveBytes;
4. a compute-set step and an exchange step clicked on the chart: the
   Vertices tab lists the compute set's vertex types (count, tiles holding
   the type's code, state bytes) or says the exchange runs none; the Cycle
   Estimates tab has the step's per-tile cycles (slowest, least, greatest,
   mean, sum, tiles), active cycles by vertex type and the busiest tiles,
   all against `tilescope sql` over the same file.

    check-liveness.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (click, find, finish, other_views, plain,  # noqa: E402
                        running_app, show_view, sql, text_of, walk, wait_for)

# A liveness step's program, compute set and exchange; its per-tile
# cycles are the blob of the one it has.
STEP = ("SELECT l.id, p.type, p.compute_set AS cs, x.kind, x.id AS ex FROM liveness_step l "
        "JOIN program p ON p.id = l.program LEFT JOIN exchange x ON x.id = p.exchange AND "
        "x.kind = CASE p.type WHEN 'DoExchange' THEN 'internal' WHEN 'GlobalExchange' THEN "
        "'external' WHEN 'StreamCopy' THEN 'host' END")


def n(text):
    return int(text.replace(",", ""))


def contents(app, prune):
    """What the shown details tab says, read in one walk: its figures by
    caption, its lists' rows (each as its cells: a row is named by its
    cells joined by ", ", a name cut but never split; "and N more" is
    unnamed) and its labels."""
    figures, lists, labels = {}, {}, []
    for a in walk(app, prune=prune):
        try:
            role, name, text = a.getRole(), a.name or "", text_of(a) or ""
            if role == pyatspi.ROLE_LABEL:
                labels.append(text)
                if name and text != name:
                    figures[name] = text
            elif role == pyatspi.ROLE_LIST_ITEM and a.parent.name and name:
                lists.setdefault(a.parent.name, []).append(name.split(", "))
        except Exception:
            continue
    return figures, lists, labels


def shown_step(app, prune, want=None):
    """The step the call stack starts with, once there is one (and it is
    `want`, when given: polled until then)."""
    said = []

    def step():
        acc = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                   re.match(r"\s*Step \d+: ", text_of(a) or ""), prune=prune, timeout=1)
        said.append(int(re.match(r"\s*Step (\d+): ", text_of(acc)).group(1)) if acc else None)
        return said[-1] is not None and want in (None, said[-1])

    wait_for(step, timeout=30)
    return said[-1] if said else None


def select_step(app, chart, target, prune):
    """Selects liveness step `target` as a person would: a click on the
    chart's middle, the arrow keys to it, Return; returns the step the
    call stack then starts with."""
    x, y, w, h = chart.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    select_tab(app, "Live Variables", prune)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"],
                   check=True)
    step = shown_step(app, prune)
    if step is not None and step != target:
        subprocess.run(["xdotool", "key"] + ["Right" if target > step else "Left"] *
                       abs(target - step) + ["Return"], check=True)
        step = shown_step(app, prune, target)
    return step


def check_step(app, tilescope, report, target, chart, prune, failures):
    """Item 4 for liveness step `target`."""
    row = sql(tilescope, report, f"{STEP} WHERE l.id = {target}")[0]
    blob = (f"compute_set c, tile_runs(c.cycles_by_tile) t WHERE c.id = {row['cs']}" if row["cs"]
            else f"exchange c, tile_runs(c.cycles_by_tile) t WHERE c.kind = '{row['kind']}' "
                 f"AND c.id = {row['ex']}") + " AND t.value > 0"
    want = sql(tilescope, report, f"SELECT max(t.value) AS mx, min(t.value) AS mn, avg(t.value) "
                                  f"AS mean, sum(t.value) AS total, count(*) AS n FROM {blob}")[0]
    busiest = sql(tilescope, report, f"SELECT t.tile, t.value FROM {blob} "
                                     f"ORDER BY t.value DESC, t.tile LIMIT 8")
    types = sql(tilescope, report, (
        "SELECT c.vertex_count AS count, c.vertex_count * v.state_bytes AS state, "
        "c.active_cycles AS active, (SELECT count(*) FROM compute_set k, "
        "tile_runs(k.cycles_by_tile) a, memory_by_vertex_type m, tile_runs(m.code_bytes_by_tile) b "
        "WHERE k.id = c.compute_set AND m.vertex_type = c.vertex_type AND a.tile = b.tile AND "
        "a.value > 0 AND b.value > 0) AS tiles FROM compute_set_vertex_type c JOIN vertex_type v "
        f"ON v.id = c.vertex_type WHERE c.compute_set = {row['cs'] or -1}"))
    step = select_step(app, chart, target, prune)
    if step != target:
        failures.append(f"selecting liveness step {target} on the chart selected {step}")
        return
    select_tab(app, "Cycle Estimates", prune)
    figures, lists, labels = contents(app, prune)
    if not any(t.startswith(f"Step {target}: ") and "\n" not in t for t in labels):
        failures.append(f"step {target}: the Cycle Estimates tab does not name it: {labels}")
    wanted = {"Cycle estimate (slowest tile)": want["mx"], "Tiles with cycles": want["n"],
              "Minimum over those tiles": want["mn"], "Maximum over those tiles": want["mx"],
              "Sum over tiles": want["total"]}
    for caption, value in wanted.items():
        if n(figures.get(caption, "-1")) != n(value):
            failures.append(f"step {target}: {caption} is {figures.get(caption)}, the file "
                            f"says {value}")
    mean = figures.get("Mean over those tiles", "nan").replace(",", "")
    if not abs(float(mean) - float(want["mean"])) <= 0.051:
        failures.append(f"step {target}: the mean is {mean}, the file says {want['mean']}")
    got = [c[:2] for c in lists.get("Busiest tiles", [])]
    wanted = [[f"Tile {b['tile']}", f"{n(b['value']):,} cycles"] for b in busiest]
    if got != wanted:
        failures.append(f"step {target}: busiest tiles {got}, the file says {wanted}")
    got = sorted(c[-1] for c in lists.get("Active cycles by vertex type, summed over tiles", []))
    wanted = sorted(f"{n(t['active']):,} active cycles" for t in types)
    if got != wanted:
        failures.append(f"step {target}: active cycles by type {got}, the file says {wanted}")
    select_tab(app, "Vertices", prune)
    figures, lists, labels = contents(app, prune)
    if not types:
        if not any(t.startswith(f"Step {target}: ") and "runs no vertices" in t for t in labels):
            failures.append(f"step {target} ({row['type']}): Vertices does not say it runs none")
        return
    got = sorted(c[-3:] for c in lists.get("Vertices by type", []))
    wanted = sorted([f"{n(t['count']):,} vertices", f"{n(t['tiles']):,} tiles",
                     f"{n(t['state']):,} bytes of state"] for t in types)
    if got != wanted:
        failures.append(f"step {target}: vertices by type {got}, the file says {wanted}")
    print(f"step {target}: {len(got)} vertex types, {want['mx']} cycles on {want['n']} tiles")


def select_tab(app, name, prune):
    label = find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_LABEL and
                 a.parent.getRole() == pyatspi.ROLE_PAGE_TAB, prune=prune)
    if label is None:
        raise SystemExit(f"FAIL: no tab named {name!r}")
    label.parent.parent.querySelection().selectChild(label.parent.getIndexInParent())



def main():
    app_path, tilescope, report = sys.argv[1:4]
    summary = json.loads(subprocess.run([tilescope, "summary", "--json", report], check=True,
                                        capture_output=True, text=True).stdout)
    live = summary["liveness"]
    step, max_live, always = live["peakStep"], live["maxLiveBytes"], live["alwaysLiveBytes"]
    peak = max_live - always
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Liveness") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Liveness'")
        prune = other_views("Liveness")
        caption = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                       text_of(a).startswith("Peak at step"), prune=prune)
        chart = find(app, lambda a: a.name == "Liveness by step", prune=prune)
        if caption is None or chart is None:
            raise SystemExit("FAIL: the Liveness view has no peak caption or no chart")
        text = text_of(caption)
        m = re.match(r"Peak at step (\d+) \(.*\): ([\d,]+) bytes not always live; maximum "
                     r"live bytes \(including always-live\) ([\d,]+); always-live bytes "
                     r"([\d,]+)$", text)
        if m is None:
            failures.append(f"the caption does not read as expected: {text!r}")
        else:
            got = (int(m.group(1)), m.group(2), m.group(3), m.group(4))
            want = (step, f"{peak:,}", f"{max_live:,}", f"{always:,}")
            if got != want:
                failures.append(f"the caption says step, peak, max, always-live {got}; "
                                f"the summary has {want}")
        if not wait_for(lambda: f"{peak:,}" in (chart.description or "") and
                        f"Step {step}:" in (chart.description or "")):
            desc = chart.description or ""
            failures.append(f"the chart's description does not name its maximum "
                            f"({peak:,} B at step {step}): {desc!r}")
        check = find(app, lambda a: plain(a.name) == "Include Always-Live" and
                     a.getRole() in (pyatspi.ROLE_CHECK_BOX, pyatspi.ROLE_TOGGLE_BUTTON),
                     prune=prune)
        if check is None:
            raise SystemExit("FAIL: no 'Include Always-Live' check box")
        click(check)
        if not wait_for(lambda: f"{max_live:,}" in (chart.description or "")):
            failures.append(f"with Include Always-Live the chart's maximum is not "
                            f"{max_live:,}: {chart.description!r}")
        print(f"liveness: {text}\nchart: {chart.description}")
        # The compute set on the most tiles and the exchange with the most
        # cycles, first of equals.
        ote = sql(tilescope, report, f"{STEP} LEFT JOIN compute_set c ON c.id = p.compute_set "
                                     f"ORDER BY coalesce(c.tiles, 0) DESC, l.id LIMIT 1")[0]
        ex = sql(tilescope, report, f"{STEP} WHERE p.type = 'DoExchange' "
                                    f"ORDER BY x.cycles DESC, l.id LIMIT 1")[0]
        # The tables of variables are not searched (hundreds of rows).
        tables = lambda a: prune(a) or a.name in ("Live variables", "Always-live variables")
        for target in (int(ote["id"]), int(ex["id"])):
            check_step(app, tilescope, report, target, chart, tables, failures)
    finish(failures)


if __name__ == "__main__":
    main()

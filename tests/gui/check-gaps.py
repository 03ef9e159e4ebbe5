#!/usr/bin/python3
"""One figure on every screen: a tile's memory with and without gaps, and
its parts before and after overlapped storage is shared (issue 26 items
1 to 3), read through AT-SPI and checked against `tilescope summary
--json` and `tilescope sql`.

For each report (the directories given, and one of several IPUs written
here by PIPELINE, the multi-IPU example, with autoReport):
1. Memory: for a few tiles (tile 0, the fullest with and without gaps,
   the first of the last IPU), selected through "Select tiles", the chart
   ("Memory by tile") must give the tile's total in every stacking
   (Region, Category, Liveness), with Include Gaps off and on; the tile
   map of its IPU the same; Details "Total, Bytes" / "Total including
   gaps, Bytes" the same, and "Parts before sharing" less "Shared by
   overlapping" the total, the parts being the categories' bytes on the
   tile as the file has them.
2. Summary: every memory part's "includingGaps" and the maxima against
   the JSON; `tilescope diff --format=json`'s totals with gaps the same.
3. Insights: each IPU's level bar against the JSON's includingGaps; the
   fullest tiles ranked by bytes in use (excluding gaps), lowest tile
   first among ties, as the file sorts them, in the list, the headline and
   any tip that names "the fullest"; each listed tile's breakdown adds up
   (parts - shared = bytes in use).

    check-gaps.py APP TILESCOPE PIPELINE REPORT...
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (sql, click, figure, find, finish, is_figure, other_views,  # noqa: E402
                        plain, running_app, show_view, text_of, wait_for, walk)

STACKINGS = ["Region", "Category", "Liveness"]


def summary_json(tilescope, report):
    return json.loads(subprocess.run([tilescope, "summary", "--json", "--show-per-ipu-memory",
                                      report], check=True, capture_output=True,
                                     text=True).stdout)


def selected_bytes(description, tile, ipu):
    """The bytes a chart's or map's description gives for the selected
    tile, or None."""
    m = re.search(rf"selected Tile {tile} \(IPU {ipu}\), ([\d,]+) B", description or "")
    return int(m.group(1).replace(",", "")) if m else None


def stack_label(dd):
    labels = [text_of(a) for a in walk(dd) if a.getRole() == pyatspi.ROLE_LABEL]
    # The drop-down's button shows the chosen item's label (then the
    # popover's list holds every item).
    shown = [t for t in labels if t in STACKINGS]
    return shown[0] if shown else None


def choose_stacking(dd, want):
    """Picks `want` in the "Stack by" drop-down as a person would with the
    keyboard: click it open, arrow keys from the chosen item, Enter."""
    now = stack_label(dd)
    if now == want:
        return True
    steps = STACKINGS.index(want) - STACKINGS.index(now)
    x, y, w, h = dd.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"],
                   check=True)
    # The popover's list has the keyboard once it shows; poll for that
    # by the list's focused item before pressing keys.
    wait_for(lambda: any(a.getRole() == pyatspi.ROLE_LIST_ITEM and
                         a.getState().contains(pyatspi.STATE_FOCUSED) for a in walk(dd)),
             timeout=10)
    keys = ["Down" if steps > 0 else "Up"] * abs(steps) + ["Return"]
    subprocess.run(["xdotool", "key"] + keys, check=True)
    return wait_for(lambda: stack_label(dd) == want)


def set_gaps(check, on):
    if check.getState().contains(pyatspi.STATE_CHECKED) != on:
        click(check)
    return wait_for(lambda: check.getState().contains(pyatspi.STATE_CHECKED) == on)


def check_memory(app, name, tiles, rows, parts, failures):
    """Item 1: the chart in every stacking and the tile map, with and
    without gaps, and Details."""
    prune = other_views("Memory")
    if show_view(app, "Memory") is None:
        raise SystemExit("FAIL: no sidebar entry named 'Memory'")
    entry = find(app, lambda a: a.name == "Select tiles" and
                 a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=prune)
    chart = find(app, lambda a: a.name == "Memory by tile", prune=prune)
    dd = find(app, lambda a: a.getRole() == pyatspi.ROLE_COMBO_BOX and
              plain(a.name) == "Stack by", prune=prune)
    gaps = find(app, lambda a: plain(a.name) == "Include Gaps" and
                a.getRole() in (pyatspi.ROLE_CHECK_BOX, pyatspi.ROLE_TOGGLE_BUTTON), prune=prune)
    if None in (entry, chart, dd, gaps):
        raise SystemExit("FAIL: the Memory view lacks Select tiles, the chart, Stack by or "
                         "Include Gaps")
    maps = {}
    for tile in tiles:
        ipu = int(rows[tile]["ipu"])
        if ipu not in maps:
            maps[ipu] = find(app, lambda a: a.name == f"Tile map, IPU {ipu}", prune=prune)
            if maps[ipu] is None:
                raise SystemExit(f"FAIL: no 'Tile map, IPU {ipu}'")
    # The figures of one selected tile: its row's caption and the column
    # header "Bytes".
    details = {}
    for key in ("Total", "Total including gaps", "Parts before sharing",
                "Shared by overlapping", "In use after sharing"):
        details[key] = None
    for stacking in STACKINGS:
        if not choose_stacking(dd, stacking):
            failures.append(f"{name}: could not choose stacking {stacking} "
                            f"(shows {stack_label(dd)!r})")
            continue
        for with_gaps in (False, True):
            if not set_gaps(gaps, with_gaps):
                failures.append(f"{name}: Include Gaps did not turn {with_gaps}")
                continue
            for tile in tiles:
                ipu = int(rows[tile]["ipu"])
                want = int(rows[tile]["total_including_gaps" if with_gaps else "total"])
                entry.queryEditableText().setTextContents(str(tile))
                entry.queryAction().doAction(0)
                what = f"{name}, tile {tile}, by {stacking}, gaps {'on' if with_gaps else 'off'}"
                if not wait_for(lambda: selected_bytes(chart.description, tile, ipu) == want):
                    failures.append(f"{what}: the chart gives "
                                    f"{selected_bytes(chart.description, tile, ipu)} B, the "
                                    f"file {want:,} B ({chart.description!r})")
                if stacking != "Region":
                    continue  # the map does not follow the stacking
                desc = lambda: maps[ipu].description  # noqa: E731
                if not wait_for(lambda: selected_bytes(desc(), tile, ipu) == want):
                    failures.append(f"{what}: the tile map gives "
                                    f"{selected_bytes(desc(), tile, ipu)} B, the file "
                                    f"{want:,} B")
                if with_gaps:
                    continue
                # Details, once per tile.
                for key in details:
                    details[key] = find(app, lambda a: is_figure(a, key + ", Bytes"),
                                        prune=prune, timeout=1)
                total, gaps_total = (int(rows[tile]["total"]),
                                     int(rows[tile]["total_including_gaps"]))
                want_details = {
                    "Total": total,
                    "Total including gaps": gaps_total,
                    "Parts before sharing": parts[tile],
                    "Shared by overlapping": parts[tile] - total,
                    "In use after sharing": total,
                }
                for key, value in want_details.items():
                    acc = details[key]
                    text = f"−{value:,}" if "Shared" in key and value else f"{value:,}"
                    if key == "Shared by overlapping" and not value:
                        text = "−0"
                    if acc is None or not wait_for(lambda: text_of(acc) == text):
                        failures.append(f"{what}: Details {key!r} shows "
                                        f"{text_of(acc) if acc else None!r}, want {text!r}")
    print(f"{name}: memory chart, map and details checked for tiles {tiles}")


def expander_of(label):
    """The expander whose title is `label` (named by it), or None."""
    a = label.parent
    for _ in range(3):
        if a is None:
            return None
        if a.getRole() == pyatspi.ROLE_PUSH_BUTTON and a.name == label.name:
            return a
        a = a.parent
    return None


def check_summary(app, name, doc, failures):
    """Item 1: the Summary's figures with gaps against the JSON."""
    if show_view(app, "Summary") is None:
        raise SystemExit("FAIL: no sidebar entry named 'Summary'")
    prune = other_views("Summary")
    for i, part in enumerate(doc["memory"]):
        if part.get("ipu") is not None:
            # Each IPU's part is a section shown collapsed: open it.
            # (GTK 4.8: the expander is a button above its title label.)
            title = f"IPU {part['ipu']}"
            label = find(app, lambda a: a.name == title and a.getRole() == pyatspi.ROLE_LABEL
                         and expander_of(a) is not None, prune=prune)
            exp = expander_of(label) if label is not None else None
            if exp is None:
                failures.append(f"{name}: the Summary has no section {title!r}")
                continue
            if not exp.getState().contains(pyatspi.STATE_EXPANDED):
                click(exp)
        # memory[i]'s figures, read down from its section's title.
        section = "All IPUs" if part.get("ipu") is None else f"IPU {part['ipu']}"
        summary = find(app, lambda a: a.getRole() == pyatspi.ROLE_PANEL and a.name == "Summary")
        for caption, want in (("Including gaps", part["includingGaps"]),
                              ("Maximum (including gaps)", part["maxTileIncludingGaps"]["bytes"]),
                              ("Maximum (excluding gaps)",
                               part["maxTileExcludingGaps"]["bytes"])):
            key = f"{section}: {caption}"
            acc = figure(summary, section, caption)
            if acc is None or not wait_for(lambda: text_of(acc) == f"{want:,}"):
                failures.append(f"{name}: Summary {key} shows "
                                f"{text_of(acc) if acc else None!r}, the JSON {want:,}")


def check_insights(app, name, doc, ranked, rows, parts, failures):
    """Items 1 to 3: Insights' bars, ranking and breakdowns."""
    if show_view(app, "Insights") is None:
        raise SystemExit("FAIL: no sidebar entry named 'Insights'")
    prune = other_views("Insights")
    for part in doc["memory"]:
        if part.get("ipu") is None:
            continue
        bar = find(app, lambda a: a.name == f"IPU {part['ipu']} memory used" and
                   a.getRole() == pyatspi.ROLE_LEVEL_BAR, prune=prune)
        used, cap = part["includingGaps"], part["capacity"]
        if bar is None or not wait_for(lambda: round(bar.queryValue().currentValue) ==
                                       min(used, cap)):
            failures.append(f"{name}: IPU {part['ipu']}'s level bar is not {used:,} B")
    fullest = ranked[0]
    verdict = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                   text_of(a).startswith("The program "), prune=prune)
    text = text_of(verdict) if verdict is not None else ""
    max_gaps = doc["memory"][0]["maxTileIncludingGaps"]["bytes"]
    if f"{max_gaps:,} B" not in text or "including gaps" not in text:
        failures.append(f"{name}: the headline does not give the most a tile needs including "
                        f"gaps ({max_gaps:,} B): {text!r}")
    named = re.findall(r"fullest tile by bytes in use \(excluding gaps\) is tile (\d+)", text)
    if named != [str(fullest)]:
        failures.append(f"{name}: the headline names {named} the fullest by bytes in use, the "
                        f"file tile {fullest}: {text!r}")
    heading = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                   "fullest tiles, by bytes in use (excluding gaps)" in (a.name or ""),
                   prune=prune)
    if heading is None:
        failures.append(f"{name}: no heading saying the fullest tiles are ranked by bytes in "
                        "use (excluding gaps)")
    lst = find(app, lambda a: a.name == "The fullest tiles" and
               a.getRole() == pyatspi.ROLE_LIST, prune=prune)
    shown = []
    if lst is None:
        failures.append(f"{name}: no list 'The fullest tiles'")
    else:
        for i in range(lst.childCount):
            row = lst.getChildAtIndex(i)
            m = re.match(r"Tile (\d+) \((.*)\), ([\d,]+) B in use, ([\d,]+) B with gaps",
                         row.name or "")
            if not m:
                failures.append(f"{name}: a fullest tile's row reads {row.name!r}")
                continue
            tile = int(m.group(1))
            shown.append(tile)
            used = int(m.group(3).replace(",", ""))
            with_gaps = int(m.group(4).replace(",", ""))
            if used != int(rows[tile]["total"]) or \
                    with_gaps != int(rows[tile]["total_including_gaps"]):
                failures.append(f"{name}: tile {tile}'s row gives {used:,} / {with_gaps:,} B, "
                                f"the file {rows[tile]['total']} / "
                                f"{rows[tile]['total_including_gaps']}")
            # The breakdown adds up: parts - shared = in use.
            b = re.search(r"= ([\d,]+) B; less ([\d,]+) B shared by overlapping = ([\d,]+) B "
                          r"in use", m.group(2))
            total = int(rows[tile]["total"])
            if parts[tile] != total:
                if not b:
                    failures.append(f"{name}: tile {tile}'s breakdown does not say what is "
                                    f"shared ({parts[tile]:,} B of parts, {total:,} B in "
                                    f"use): {m.group(2)!r}")
                    continue
                p, s, t = (int(g.replace(",", "")) for g in b.groups())
                if (p, s, t) != (parts[tile], parts[tile] - total, total):
                    failures.append(f"{name}: tile {tile}'s breakdown {p:,} - {s:,} = {t:,}; "
                                    f"the file {parts[tile]:,} - {parts[tile] - total:,} = "
                                    f"{total:,}")
    if shown != ranked[:len(shown)] or not shown:
        failures.append(f"{name}: the fullest tiles listed {shown}, the file ranks "
                        f"{ranked[:5]} (bytes in use, lowest tile first among ties)")
    tips = find(app, lambda a: a.name == "Tips" and a.getRole() == pyatspi.ROLE_LIST,
                prune=prune, timeout=2)
    for i in range(tips.childCount if tips is not None else 0):
        tip = tips.getChildAtIndex(i).name or ""
        for t in re.findall(r"tile (\d+), the fullest", tip):
            if int(t) != fullest:
                failures.append(f"{name}: a tip calls tile {t} the fullest, the headline tile "
                                f"{fullest}: {tip!r}")
    print(f"{name}: insights ranks {shown}; headline: {text}")


def check_diff(tilescope, report, name, doc, failures):
    """The diff's totals with gaps are reportlib's too (the report against
    itself: its base side)."""
    out = subprocess.run([tilescope, "diff", "--format=json", report, report],
                         capture_output=True, text=True).stdout
    deltas = {d["metric"]: d for d in json.loads(out)["deltas"]}
    want = {"memory.total_including_gaps": doc["memory"][0]["includingGaps"],
            "memory.max_tile": doc["memory"][0]["maxTileIncludingGaps"]["bytes"]}
    for part in doc["memory"]:
        if part.get("ipu") is not None:
            want[f"memory.ipu{part['ipu']}.total_including_gaps"] = part["includingGaps"]
    for metric, value in want.items():
        got = deltas.get(metric, {}).get("base")
        if got != value:
            failures.append(f"{name}: diff's {metric} is {got}, the summary's {value:,}")


def check_report(app_path, tilescope, report, name, failures):
    doc = summary_json(tilescope, report)
    rows = {int(r["tile"]): r for r in sql(
        tilescope, report, "SELECT tile, ipu, total, total_including_gaps FROM tile_memory")}
    ranked = [int(r["tile"]) for r in sql(
        tilescope, report, "SELECT tile FROM tile_memory ORDER BY total DESC, tile LIMIT 5")]
    parts = {int(r["tile"]): int(r["parts"]) for r in sql(
        tilescope, report,
        "SELECT t.tile AS tile, (SELECT coalesce(sum(tile_value(c.by_tile, t.tile)), 0) "
        "FROM memory_category c) AS parts FROM tile_memory t")}
    part0 = doc["memory"][0]
    # Tile 0, the fullest with and without gaps, the one with the most
    # gaps and the one with the most bytes shared.
    tiles = [0, part0["maxTileExcludingGaps"]["tile"], part0["maxTileIncludingGaps"]["tile"],
             max(rows, key=lambda t: (int(rows[t]["total_including_gaps"]) -
                                      int(rows[t]["total"]), -t)),
             max(rows, key=lambda t: (parts[t] - int(rows[t]["total"]), -t))]
    ipus = sorted({int(r["ipu"]) for r in rows.values()})
    if len(ipus) > 1:
        tiles.append(min(t for t, r in rows.items() if int(r["ipu"]) == ipus[-1]))
    tiles = sorted(set(tiles))
    check_diff(tilescope, report, name, doc, failures)
    with running_app(app_path, [report]) as (proc, app, _):
        check_summary(app, name, doc, failures)
        check_insights(app, name, doc, ranked, rows, parts, failures)
        check_memory(app, name, tiles, rows, parts, failures)


def main():
    app_path, tilescope, pipeline = sys.argv[1:4]
    reports = [(r, os.path.basename(os.path.normpath(r))) for r in sys.argv[4:]]
    failures = []
    with tempfile.TemporaryDirectory(prefix="ga-gaps-") as tmp:
        multi = os.path.join(tmp, "multi_ipu")
        env = dict(os.environ, POPLAR_ENGINE_OPTIONS=json.dumps(
            {"autoReport.all": "true", "autoReport.directory": multi}))
        subprocess.run([pipeline, "--steps", "1", "--tiles-per-ipu", "16"], env=env,
                       check=True, stdout=subprocess.DEVNULL)
        reports.append((multi, "multi_ipu_pipeline"))
        for report, name in reports:
            check_report(app_path, tilescope, report, name, failures)
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The Summary view read as a screen reader reads it.

Opens REPORT in the Graph Analyser, selects the "Summary" sidebar entry,
finds figures as a screen reader user does, by the captions they are named
by under their section and heading (tsd-a11y.h), and compares their text
with `tilescope summary --json` at the figure's key path. Also checks
that the Insights entry exists and shows its verdict.

    check-summary.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import subprocess
import sys
import time

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import figure, find, finish, running_app, text_of  # noqa: E402

# Integer figures: the JSON key path to compare with -> the captions a
# person reads down to the figure (section, headings, the figure's own);
# MEM stands for the first memory section's title.
MEM = object()
INTEGER_KEYS = {
    "target.numIpus": ("Target", "Number of IPUs"),
    "target.tilesPerIpu": ("Target", "Tiles per IPU"),
    "target.totalTiles": ("Target", "Total tiles"),
    "target.numReplicas": ("Target", "Number of replicas"),
    "graph.numVertices": ("Graph", "Number of vertices"),
    "graph.numEdges": ("Graph", "Number of edges"),
    "graph.numVariables": ("Graph", "Number of variables"),
    "graph.numComputeSets": ("Graph", "Number of compute sets"),
    "memory[0].capacity": (MEM, "Capacity"),
    "memory[0].includingGaps": (MEM, "Including gaps"),
    "memory[0].excludingGaps": (MEM, "Excluding gaps, by memory region", "Total"),
    "memory[0].byRegion.nonInterleaved": (MEM, "Excluding gaps, by memory region",
                                          "Non-interleaved"),
    "memory[0].byRegion.interleaved": (MEM, "Excluding gaps, by memory region", "Interleaved"),
    "memory[0].byDataType.notOverlappedTotal": (MEM, "Excluding gaps, by data type",
                                                "Not overlapped", "Total"),
    "memory[0].byDataType.overlappedTotal": (MEM, "Excluding gaps, by data type", "Overlapped",
                                             "Total"),
    "memory[0].byDataType.totalAfterOverlapping": (MEM, "Excluding gaps, by data type",
                                                   "Total after overlapping"),
    "memory[0].vertexData.total": (MEM, "Vertex data", "Total (without code)"),
    "memory[0].maxTileIncludingGaps.bytes": (MEM, "Maximum (including gaps)"),
    "memory[0].maxTileExcludingGaps.bytes": (MEM, "Maximum (excluding gaps)"),
    "liveness.alwaysLiveBytes": ("Liveness", "Always-live bytes"),
    "liveness.maxLiveBytes": ("Liveness", "Maximum live bytes (including always-live)"),
    "execution.totalCycles": ("Execution", "Total cycles"),
    "execution.computeCycles": ("Execution", "Compute (including idle threads)"),
    "execution.activeComputeCycles": ("Execution", "Compute (excluding idle threads)"),
    "execution.hostExchangeCycles": ("Execution", "Host exchange"),
    "execution.syncCycles": ("Execution", "Tile cycles, summed over tiles", "Sync"),
}
# Fractions shown as percentages with one decimal.
PERCENT_KEYS = {"execution.tileBalance": ("Execution", "Total tile balance")}


def lookup(doc, path):
    """The value at a key path such as memory[0].byRegion.interleaved."""
    value = doc
    for part in path.split("."):
        if "[" in part:
            name, index = part[:-1].split("[")
            value = value[name][int(index)]
        else:
            value = value[part]
    return value


def main():
    app_path, tilescope, report = sys.argv[1:4]
    expected = json.loads(subprocess.run([tilescope, "summary", "--json", report],
                                         check=True, capture_output=True, text=True).stdout)
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        entry = find(app, lambda a: a.name == "Summary" and
                     a.getRole() in (pyatspi.ROLE_LIST_ITEM, pyatspi.ROLE_PAGE_TAB,
                                     pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_LABEL))
        if entry is None:
            raise SystemExit("FAIL: no sidebar entry named 'Summary'")
        insights = find(app, lambda a: a.name == "Insights")
        if insights is None:
            failures.append("no sidebar entry named 'Insights'")
        # Select it (the stack sidebar's rows are a list's children).
        parent = entry.parent
        while parent is not None and entry.getRole() == pyatspi.ROLE_LABEL:
            entry, parent = parent, parent.parent
        try:
            parent.querySelection().selectChild(entry.getIndexInParent())
        except Exception:
            try:
                entry.queryAction().doAction(0)
            except Exception:
                pass
        summary = find(app, lambda a: a.getRole() == pyatspi.ROLE_PANEL and a.name == "Summary")
        if summary is None or figure(summary, "Target", "Number of IPUs") is None:
            raise SystemExit("FAIL: the Summary view shows no figure named 'Number of IPUs'")
        mem = expected["memory"][0]
        mem_title = "All IPUs" if mem.get("ipu") is None or mem["ipu"] < 0 else f"IPU {mem['ipu']}"
        checked = 0
        for keys, percent in ((INTEGER_KEYS, False), (PERCENT_KEYS, True)):
            for key, path in keys.items():
                path = tuple(mem_title if p is MEM else p for p in path)
                acc = figure(summary, *path, timeout=5)
                if acc is None:
                    failures.append(f"{key}: no figure named {path[-1]!r} under {path[:-1]}")
                    continue
                shown = text_of(acc)
                want = lookup(expected, key)
                if percent:
                    want_text = "n/a" if want is None else f"{want * 100:,.1f}%"
                else:
                    want_text = f"{want:,}"
                if shown != want_text:
                    failures.append(f"{key} ({' / '.join(path)}): shows {shown!r}, tilescope "
                                    f"summary --json has {want} ({want_text})")
                elif not (acc.description or "").startswith(shown):
                    failures.append(f"{key}: a reader does not hear its value: the "
                                    f"description is {acc.description!r}")
                else:
                    checked += 1
        print(f"{checked} figures of the Summary view match "
              f"tilescope summary --json")
    finish(failures)


if __name__ == "__main__":
    main()

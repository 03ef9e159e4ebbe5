#!/usr/bin/python3
"""The Summary view read as a screen reader reads it.

Opens REPORT in the Graph Analyser, selects the "Summary" sidebar entry,
finds figure labels by their accessible names (the key paths of
`tilescope summary --json`) and compares their text with the JSON. Also
checks that the Insights entry exists and shows its verdict.

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
from atspi_util import find, finish, running_app, text_of, walk  # noqa: E402

# Integer figures: key path -> the JSON path to compare with.
INTEGER_KEYS = [
    "target.numIpus", "target.tilesPerIpu", "target.totalTiles", "target.numReplicas",
    "graph.numVertices", "graph.numEdges", "graph.numVariables", "graph.numComputeSets",
    "memory[0].capacity", "memory[0].includingGaps", "memory[0].excludingGaps",
    "memory[0].byRegion.nonInterleaved", "memory[0].byRegion.interleaved",
    "memory[0].byDataType.notOverlappedTotal", "memory[0].byDataType.overlappedTotal",
    "memory[0].byDataType.totalAfterOverlapping", "memory[0].vertexData.total",
    "memory[0].maxTileIncludingGaps.bytes", "memory[0].maxTileExcludingGaps.bytes",
    "liveness.alwaysLiveBytes", "liveness.maxLiveBytes",
    "execution.totalCycles", "execution.computeCycles", "execution.activeComputeCycles",
    "execution.hostExchangeCycles", "execution.syncCycles",
]
# Fractions shown as percentages with one decimal.
PERCENT_KEYS = ["execution.tileBalance"]


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
        first = find(app, lambda a: a.name == INTEGER_KEYS[0])
        if first is None:
            raise SystemExit("FAIL: the Summary view shows no figure named "
                             + INTEGER_KEYS[0])
        labels = {}
        for acc in walk(app):
            try:
                if acc.getRole() == pyatspi.ROLE_LABEL and acc.name:
                    labels.setdefault(acc.name, acc)
            except Exception:
                pass
        checked = 0
        for key in INTEGER_KEYS:
            acc = labels.get(key)
            if acc is None:
                failures.append("no label named " + key)
                continue
            shown = text_of(acc)
            want = lookup(expected, key)
            want_text = f"{want:,}"
            if shown != want_text:
                failures.append(f"{key}: shows {shown!r}, tilescope summary --json has "
                                f"{want} ({want_text})")
            else:
                checked += 1
        for key in PERCENT_KEYS:
            acc = labels.get(key)
            want = lookup(expected, key)
            want_text = "n/a" if want is None else f"{want * 100:,.1f}%"
            if acc is None:
                failures.append("no label named " + key)
            elif text_of(acc) != want_text:
                failures.append(f"{key}: shows {text_of(acc)!r}, expected {want_text!r}")
            else:
                checked += 1
        print(f"{checked} figures of the Summary view match "
              f"tilescope summary --json")
    finish(failures)


if __name__ == "__main__":
    main()

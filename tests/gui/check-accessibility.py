#!/usr/bin/python3
"""Both apps' accessible trees read as a screen reader reads them (issue 28
item 4).

Opens a report in the Graph Analyser and shows each of its views in turn
(tiles selected in Memory, a program found in the Program Tree, so that
their details show), then two in compare mode, then a trace in the
System Analyser with each of its details tabs and a span found, walks
the accessible tree of what is shown and fails on:
- a value (a figure beside its caption in a grid of figures) whose
  accessible name is not its visible caption, or whose value a reader
  cannot read (its text and its description are the value);
- a tab, button or chart without a name of its own;
- a name that is a GTK type name ("GtkLabel", "GtkImage", "GtkExpander")
  or a JSON key ("target.numIpus"): what GTK 4.8 says for a widget nobody
  named, or what a programmer named it for a test.

    check-accessibility.py GA SA SAMPLES_DIR
(tutorial 5's report and trace, and tutorial 4 against 5 in compare mode)
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import re
import sqlite3
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (compare_cell, find, finish, is_figure, other_views,  # noqa: E402
                        running_app, show_view, text_of, walk)

# GTK's fallback name for an unnamed widget is its type name: GTK's own
# and this project's (Ga, Sa, Tsc, Tsd) prefixes.
TYPE_NAME = re.compile(r"^(Gtk|Gdk|Gsk|Adw|Ga|Sa|Tsc|Tsd)[A-Z][A-Za-z]*$")
OUR_TYPE = re.compile(r"^(Ga|Sa|Tsc|Tsd)[A-Z]")
# GTK 4.8's own scaffolding, which it names by type and an app cannot reach
# (a scroll bar's range, a paned's handle, a column view's rows and cells,
# a stack's pages, a check box's or expander's icon): roles a reader does
# not say as content. A type name is a fault on any other role (a label,
# an image, a button, a tab), on a drawing area, and on a widget of ours.
SCAFFOLDING = {pyatspi.ROLE_FILLER, pyatspi.ROLE_PANEL, pyatspi.ROLE_SCROLL_BAR,
               pyatspi.ROLE_LIST, pyatspi.ROLE_TABLE_ROW, pyatspi.ROLE_TABLE_CELL,
               pyatspi.ROLE_SEPARATOR}
# A key path as `tilescope summary --json` spells it: lower camel case
# words joined by dots, maybe with an index ("memory[0].byRegion.interleaved",
# "cycles.total.change").
JSON_KEY = re.compile(r"^[a-z][A-Za-z0-9_]*(\[\d+\])?(\.[A-Za-z0-9_]+(\[\d+\])?)+$")
# A figure as the apps print one: digits with separators, a sign, a
# percentage or a unit after it ("1,472", "-56", "+3.5%", "624.0 KiB").
FIGURE = re.compile(r"^[-+−]?\d[\d,.]*( ?%| ?(B|KiB|MiB|GiB|KB|MB|MHz|s|ms|µs|ns|cycles))?$")
# Roles a person activates or that show a picture: each needs a name.
NAMED_ROLES = {pyatspi.ROLE_PUSH_BUTTON: "button", pyatspi.ROLE_TOGGLE_BUTTON: "toggle button",
               pyatspi.ROLE_CHECK_BOX: "check box", pyatspi.ROLE_RADIO_BUTTON: "radio button",
               pyatspi.ROLE_PAGE_TAB: "tab", pyatspi.ROLE_IMAGE: "chart or image",
               pyatspi.ROLE_SLIDER: "slider", pyatspi.ROLE_LEVEL_BAR: "level bar"}
# Containers whose cells a reader names by their column headers: a value
# in them needs no caption of its own.
TABLE_ROLES = {pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_LIST,
               pyatspi.ROLE_LIST_ITEM, pyatspi.ROLE_TABLE_ROW, pyatspi.ROLE_TABLE_CELL,
               pyatspi.ROLE_TREE, pyatspi.ROLE_TREE_ITEM, pyatspi.ROLE_LIST_BOX}

# Each view of the Graph Analyser and something in it that says it is built.
GA_VIEWS = [
    ("Summary", lambda a: a.getRole() == pyatspi.ROLE_LABEL and a.name == "Number of IPUs"),
    ("Insights", lambda a: a.getRole() == pyatspi.ROLE_LEVEL_BAR),
    ("Memory", lambda a: a.name == "Memory by tile"),
    ("Liveness", lambda a: a.name == "Liveness by step"),
    ("Program Tree", lambda a: a.name == "Program tree"),
    ("Operations", lambda a: a.name == "Filter operations"),
    ("Execution Trace", lambda a: a.name == "Execution trace"),
]
SA_TABS = ["Statistics", "Call Tree", "Flame Graph", "Span"]


def describe(a):
    """Where an accessible is, for a failure: its role, name and the names
    of its nearest named ancestors."""
    path = []
    p = a.parent
    while p is not None and len(path) < 3:
        if p.name:
            path.append(f"{p.getRoleName()} '{p.name}'")
        p = p.parent
    return f"{a.getRoleName()} '{a.name}' (in {' < '.join(path) or 'the window'})"


def extents(a):
    return a.queryComponent().getExtents(pyatspi.WINDOW_COORDS)


def in_table(a):
    p = a.parent
    while p is not None:
        if p.getRole() in TABLE_ROLES:
            return True
        p = p.parent
    return False


def shown_as_text(a, name):
    """Whether `name` is on screen: the text of a itself or of a label
    beside it (an engine option's caption is its key)."""
    if name == text_of(a):
        return True
    parent = a.parent
    for i in range(parent.childCount if parent is not None else 0):
        c = parent.getChildAtIndex(i)
        if c is not None and c.getRole() == pyatspi.ROLE_LABEL and text_of(c) == name:
            return True
    return False


def captions_in(parent, cache):
    """The labels in `parent` that are not figures, as (text, x, y, w, h),
    read once per parent: a grid of figures has hundreds of labels and
    each read is a round trip on the bus."""
    key = parent.path if hasattr(parent, "path") else id(parent)
    if key not in cache:
        found = []
        for i in range(parent.childCount):
            c = parent.getChildAtIndex(i)
            if c is None or c.getRole() != pyatspi.ROLE_LABEL:
                continue
            ct = (text_of(c) or "").strip()
            if not ct or FIGURE.match(ct):
                continue
            cx, cy, cw, ch = extents(c)
            if cw > 0 and ch > 0:
                found.append((ct, cx, cy, cw, ch))
        cache[key] = found
    return cache[key]


def check_value(a, failures, where, cache):
    """A figure in a grid: named by the caption on its left (", " and its
    column's header may follow, where the grid is a table of figures), its
    value in its text and at the start of its description."""
    text = text_of(a) if a.getRole() == pyatspi.ROLE_LABEL else None
    if not text or not FIGURE.match(text.strip()) or in_table(a):
        return
    x, y, w, h = extents(a)
    if w <= 0 or h <= 0:
        return
    caption, header = None, set()
    for ct, cx, cy, cw, ch in captions_in(a.parent, cache):
        # A caption on the left has words (not "—" for a missing figure);
        # a header above may be a sign ("Δ", "%").
        if abs(cy - y) <= max(h, ch) // 2 and cx + cw <= x and re.search(r"\w", ct):
            if caption is None or cx > caption[0]:
                caption = (cx, ct)
        elif cy + ch <= y and cx < x + w and cx + cw > x:
            header.add(ct)
    if caption is None:
        return
    name = a.name
    # In a table of figures: the row's caption, then the column's header
    # (which may say the metric the header leaves out: "Cycles Δ" under "Δ").
    ok = name == caption[1] or any(name.startswith(f"{caption[1]}, ") and name.endswith(h)
                                   for h in header)
    if not ok:
        failures.append(f"{where}: the value '{text}' beside '{caption[1]}' is named "
                        f"'{a.name}', not by its caption")
    elif not (a.description or "").startswith(text):
        failures.append(f"{where}: the value '{text}' of '{caption[1]}' is not in its "
                        f"description ('{a.description}')")


def check_tree(root, where, failures, prune=None):
    """Walks what root shows (less `prune`d views) once; returns how many
    accessibles it read."""
    seen, cache = 0, {}
    for a in walk(root, prune=prune):
        seen += 1
        try:
            role, name = a.getRole(), a.name or ""
            if TYPE_NAME.match(name) and (role not in SCAFFOLDING or OUR_TYPE.match(name) or
                                          name == "GtkDrawingArea"):
                failures.append(f"{where}: a GTK type name for a name: {describe(a)}")
            elif JSON_KEY.match(name) and not shown_as_text(a, name):
                failures.append(f"{where}: a JSON key for a name: {describe(a)}")
            elif name.startswith("Details: "):
                failures.append(f"{where}: a value named 'Details: …': {describe(a)}")
            elif role == pyatspi.ROLE_LABEL and not name and text_of(a):
                failures.append(f"{where}: a label a reader skips: '{text_of(a)}' has no "
                                f"name {describe(a)}")
            elif role == pyatspi.ROLE_PAGE_TAB and name in ("", "Tab"):
                failures.append(f"{where}: an unnamed tab: {describe(a)}")
            elif role in NAMED_ROLES and not name.strip():
                failures.append(f"{where}: an unnamed {NAMED_ROLES[role]}: {describe(a)}")
            check_value(a, failures, where, cache)
        except Exception:
            continue  # gone from the bus while we walked (a view rebuilt)
    return seen


def first_compute_set(report):
    """The name of the report's first compute set, read from the file."""
    db = sqlite3.connect(f"file:{os.path.join(report, 'profile.pop')}?mode=ro", uri=True)
    try:
        return db.execute("SELECT s.text FROM compute_set c JOIN string s ON s.id = c.name "
                          "ORDER BY c.id LIMIT 1").fetchone()[0]
    finally:
        db.close()


def fill_details(app, view, report, prune, failures):
    """Makes a view show its details, where they wait for a choice: tiles
    in Memory, a compute set's program in the Program Tree."""
    if view == "Memory":
        entry = find(app, lambda a: a.name == "Select tiles" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=prune)
        if entry is not None:
            entry.queryEditableText().setTextContents("0-3")
            entry.queryAction().doAction(0)
        if entry is None or find(app, lambda a: is_figure(a, "Total, Selection"),
                                 prune=prune) is None:
            failures.append("Memory: selecting tiles 0-3 showed no 'Total, Selection'")
    elif view == "Program Tree":
        entry = find(app, lambda a: a.name == "Search programs" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=prune)
        if entry is not None:
            entry.queryEditableText().setTextContents(
                "^" + re.escape(first_compute_set(report)) + "$")
        if entry is None or find(app, lambda a: is_figure(a, "Tiles"), prune=prune) is None:
            failures.append("Program Tree: searching a compute set showed no 'Tiles' detail")


def check_graph_analyser(ga, args, views, failures, details_of=None):
    """Each of `views` of the Graph Analyser opened on `args`."""
    what = "Graph Analyser" + (", compare" if len(args) > 1 else "")
    with running_app(ga, args) as (proc, app, tmp):
        for view, ready in views:
            if show_view(app, view) is None:
                failures.append(f"{what}: no sidebar entry '{view}'")
                continue
            prune = other_views(view)
            if find(app, ready, prune=prune) is None:
                failures.append(f"{what}, {view}: the view never showed what it shows")
                continue
            if details_of:
                fill_details(app, view, details_of, prune, failures)
            n = check_tree(app, f"{what}, {view}", failures, prune=prune)
            print(f"{what}, {view}: {n} accessibles", flush=True)


def check_system_analyser(sa, trace, failures):
    with running_app(sa, [trace]) as (proc, app, tmp):
        if find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE) is None:
            failures.append("System Analyser: the timeline never appeared")
            return
        for tab in SA_TABS:
            acc = find(app, lambda a: a.getRole() == pyatspi.ROLE_PAGE_TAB and a.name == tab,
                       timeout=10)
            if acc is None:
                failures.append(f"System Analyser: no tab named '{tab}'")
                continue
            acc.parent.querySelection().selectChild(acc.getIndexInParent())
            n = check_tree(app, f"System Analyser, {tab}", failures)
            print(f"System Analyser, {tab}: {n} accessibles", flush=True)
        # A span found by search (Ctrl+F) fills the Span tab with its fields.
        subprocess.run(["xdotool", "key", "ctrl+f"], check=True)
        entry = find(app, lambda a: a.name == "Search" and
                     a.getRole() in (pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT))
        span = find(app, lambda a: a.getRole() == pyatspi.ROLE_PAGE_TAB and a.name == "Span")
        if entry is not None and span is not None:
            entry.queryEditableText().setTextContents("run program 1")
            span.parent.querySelection().selectChild(span.getIndexInParent())
        if find(app, lambda a: is_figure(a, "Name")) is None:
            failures.append("System Analyser: a span found by search showed no 'Name' in the "
                            "Span tab")
            return
        n = check_tree(app, "System Analyser, Span of a span", failures)
        print(f"System Analyser, Span of a span: {n} accessibles", flush=True)


def main():
    ga, sa, samples = sys.argv[1:4]
    report = os.path.join(samples, "tut5_ml")
    failures = []
    check_graph_analyser(ga, [report], GA_VIEWS, failures, details_of=report)
    # Compare mode's tables of figures: tutorial 4 against 5 (operations in
    # one report only).
    check_graph_analyser(ga, [os.path.join(samples, "tut4_profiling"), report], [
        ("Summary", lambda a: a.name == "cycles.total, Δ"),
        ("Memory", lambda a: a.name == "Memory difference by tile (B − A)"),
        ("Operations", lambda a: compare_cell(a) is not None),
    ], failures)
    check_system_analyser(sa, os.path.join(report, "tut5_ml.pvti"), failures)
    # One line per kind of fault and place, not per label.
    finish(sorted(set(failures)))


if __name__ == "__main__":
    main()

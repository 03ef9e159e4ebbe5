#!/usr/bin/python3
"""Both apps driven with the keyboard alone (issue 28 item 3): every key
goes through xdotool, and after each the test asks AT-SPI where the focus
is (the accessible whose state is "focused", polled until a deadline).

ga: the Graph Analyser on REPORT.
 1. From launch (Shift+Tab when the focus is in the view) the focus gets
    to the sidebar, and Tab leaves it for the Summary view's content, the
    view unchanged (a GtkStackSidebar walked
    its rows on Tab, showing each view in turn, and never let go).
 2. For every view in the sidebar's order: Down in the sidebar shows it
    (the row selected, the focus still on the row), F6 enters its content
    (the figure: the start of its split when it has one), F6 again its
    details pane (named "Details") where it has one, then on to the header
    bar and back to the sidebar.
 3. Search and back: Ctrl+F from the Program Tree's tree puts the focus in
    "Search programs"; Escape puts it back on the tree.
 4. Ctrl+? opens the Keyboard Shortcuts window, listing the keys of the
    app's table (ga-keys.c), and Escape closes it.

sa: the System Analyser on TRACE.
 1. From launch the focus is on the timeline; F6 goes to the details'
    tabs, the header bar, and back to the timeline; Alt+2 .. Alt+4 and
    Alt+1 choose each details tab, F6 reaching into the tab shown.
 2. Search and back: Ctrl+F puts the focus in "Search"; Escape puts it
    back on the timeline (it went to "Visible width", where W then typed
    a "w"), and W then zooms the timeline in.
 3. Ctrl+? opens the Keyboard Shortcuts window, and Escape closes it.

    check-keyboard.py ga APP REPORT
    check-keyboard.py sa APP TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import re
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import WAIT, find, finish, other_views, running_app, walk, wait_for  # noqa: E402

GA_VIEWS = ["Summary", "Insights", "Memory", "Liveness", "Program Tree", "Operations",
            "Execution Trace"]
# The views with a split between their figure and a details pane.
GA_DETAILS = {"Memory", "Liveness", "Program Tree", "Operations", "Execution Trace"}


def key(*keys):
    subprocess.run(["xdotool", "key", *keys], check=True)


def focused(app, prune=None):
    """The accessible that has the keyboard focus now, or None."""
    for a in walk(app, prune=prune):
        try:
            if a.getState().contains(pyatspi.STATE_FOCUSED):
                return a
        except Exception:
            pass
    return None


def ancestors(a):
    """a and its ancestors up to the application."""
    while a is not None:
        yield a
        try:
            a = a.parent
        except Exception:
            return


def describe(a):
    if a is None:
        return "nowhere"
    chain = [f"{x.getRoleName()} {x.name!r}" for x in ancestors(a) if x.name][:4]
    return f"{a.getRoleName()} {a.name!r}" + (f" (in {' < '.join(chain[1:])})"
                                                if len(chain) > 1 else "")


def focus_where(app, what, predicate, failures, prune=None):
    """Waits until the focused accessible satisfies predicate; records a
    failure saying `what` and where the focus is otherwise. Returns the
    focused accessible."""
    seen = []

    def check():
        seen.append(focused(app, prune))
        return seen[-1] is not None and predicate(seen[-1])

    if wait_for(check, timeout=WAIT / 2):
        print(f"{what}: {describe(seen[-1])}", flush=True)
        return seen[-1]
    failures.append(f"{what}: the focus is on {describe(seen[-1] if seen else None)}")
    return None


def inside(a, predicate):
    return any(predicate(x) for x in ancestors(a))


def is_view(name):
    return lambda x: x.getRole() == pyatspi.ROLE_PANEL and x.name == name


def is_sidebar_row(a):
    return a.getRole() == pyatspi.ROLE_LIST_ITEM and inside(
        a.parent, lambda x: x.getRole() == pyatspi.ROLE_LIST and x.name in ("Sidebar", "Views"))


def is_header(a):
    """A button of the header bar: the window's top strip (there is no
    window manager, so the header bar is the window's first 50 pixels)."""
    if a.getRole() not in (pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON):
        return False
    x, y, w, h = a.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    return 0 <= y and y + h <= 50


def row_title(row):
    for x in walk(row):
        if x.getRole() == pyatspi.ROLE_LABEL and x.name:
            return x.name
    return row.name


def selected_view(app):
    """The title of the sidebar's selected row, or None."""
    for a in walk(app, prune=other_views()):
        try:
            if is_sidebar_row(a) and a.getState().contains(pyatspi.STATE_SELECTED):
                return row_title(a)
        except Exception:
            pass
    return None


def shortcuts_window(app, failures, titles):
    """Ctrl+? opens the Keyboard Shortcuts window listing `titles`;
    Escape closes it."""
    key("ctrl+question")

    def window():
        for i in range(app.childCount):
            w = app.getChildAtIndex(i)
            if w is not None and w.name == "Keyboard Shortcuts":
                return w
        return None

    if not wait_for(lambda: window() is not None, timeout=WAIT / 2):
        failures.append("Ctrl+? opened no Keyboard Shortcuts window")
        return
    w = window()
    names = set()
    wait_for(lambda: names.update(a.name for a in walk(w) if a.name) or
             all(t in names for t in titles), timeout=WAIT / 2)
    missing = [t for t in titles if t not in names]
    if missing:
        failures.append(f"the Keyboard Shortcuts window does not list {missing}")
    else:
        print(f"Ctrl+?: the Keyboard Shortcuts window lists {titles}")
    key("Escape")
    if not wait_for(lambda: window() is None or
                    not window().getState().contains(pyatspi.STATE_SHOWING), timeout=WAIT / 2):
        failures.append("Escape left the Keyboard Shortcuts window open")


def check_ga(app_path, report, failures):
    with running_app(app_path, [report]) as (proc, app, tmp):
        if find(app, lambda a: a.getRole() == pyatspi.ROLE_PANEL and a.name == "Summary") is None:
            raise SystemExit("FAIL: the report never showed its Summary")
        summary = other_views("Summary")
        # 1. Into the sidebar and out again with Tab.
        start = focus_where(app, "launch", lambda a: True, failures, summary)
        if start is not None and not is_sidebar_row(start):
            key("shift+Tab")
            if not focus_where(app, "Shift+Tab from the view", is_sidebar_row, failures,
                               summary):
                return
        key("Tab")
        focus_where(app, "Tab from the sidebar",
                    lambda a: inside(a, is_view("Summary")) and not is_sidebar_row(a),
                    failures, summary)
        if selected_view(app) != "Summary":
            failures.append(f"Tab through the sidebar showed {selected_view(app)!r}, "
                            "not the Summary it left from")
            return
        # 2. Every view: Down in the sidebar, F6 to the content, the details,
        # the header bar and the sidebar again.
        key("shift+Tab")
        focus_where(app, "back to the sidebar", is_sidebar_row, failures, summary)
        for i, view in enumerate(GA_VIEWS):
            prune = other_views(view)
            if i > 0:
                key("Down")
                if not wait_for(lambda: selected_view(app) == view, timeout=WAIT / 2):
                    failures.append(f"Down in the sidebar showed {selected_view(app)!r}, "
                                    f"not {view!r}")
                    return
                focus_where(app, f"Down to {view}", is_sidebar_row, failures, prune)
            key("F6")
            if not focus_where(app, f"F6 into {view}",
                               lambda a: inside(a, is_view(view)) and
                               not inside(a, lambda x: x.name == "Details"), failures, prune):
                return
            if view in GA_DETAILS:
                key("F6")
                focus_where(app, f"F6 into {view}'s details",
                            lambda a: inside(a, is_view(view)) and
                            inside(a, lambda x: x.name == "Details"), failures, prune)
            key("F6")
            focus_where(app, f"F6 from {view} to the header bar", is_header, failures, prune)
            key("F6")
            focus_where(app, "F6 to the sidebar", is_sidebar_row, failures, prune)
            if view == "Program Tree":
                search_ga(app, failures, prune)
        shortcuts_window(app, failures, ["Open a report", "Memory", "Zoom in",
                                         "Move the focus to the next region"])


def search_ga(app, failures, prune):
    """Ctrl+F from the Program Tree's tree, Escape back to it; the focus is
    left on the sidebar as it was found."""
    key("F6")
    tree = focus_where(app, "F6 to the program tree",
                       lambda a: inside(a, is_view("Program Tree")) and
                       inside(a, lambda x: x.getRole() in (pyatspi.ROLE_TREE_TABLE,
                                                           pyatspi.ROLE_TABLE)),
                       failures, prune)
    if tree is None:
        return
    key("ctrl+f")
    focus_where(app, "Ctrl+F", lambda a: inside(a, lambda x: x.name == "Search programs"),
                failures, prune)
    key("Escape")
    focus_where(app, "Escape from the search",
                lambda a: inside(a, is_view("Program Tree")) and
                not inside(a, lambda x: x.name == "Search programs") and
                inside(a, lambda x: x.getRole() in (pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_TABLE)),
                failures, prune)
    key("shift+F6")
    focus_where(app, "Shift+F6 back to the sidebar", is_sidebar_row, failures, prune)


def visible_ms(desc):
    """The visible window's width in ms from the timeline's description."""
    m = re.match(r"Showing ([\d.]+) ms – ([\d.]+) ms", desc or "")
    return float(m.group(2)) - float(m.group(1)) if m else None


def check_sa(app_path, trace, failures):
    with running_app(app_path, [trace]) as (proc, app, tmp):
        timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
        if timeline is None or not wait_for(
                lambda: (timeline.description or "").startswith("Showing")):
            raise SystemExit("FAIL: the trace never showed")
        tabs = find(app, lambda a: a.getRole() == pyatspi.ROLE_PAGE_TAB_LIST)
        if tabs is None:
            raise SystemExit("FAIL: no details tabs")

        def on_timeline(a):
            return a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE

        # The details' notebook: the tabs' list's ancestor in the split (the
        # notebook itself takes the focus for its tabs).
        notebook = next((x for x in ancestors(tabs.parent)
                         if x.parent is not None and x.parent.getRole() == pyatspi.ROLE_FILLER),
                        None)
        if notebook is None:
            raise SystemExit("FAIL: the details' tabs are not in the split")

        def in_tabs(a):
            return inside(a, lambda x: x == notebook)

        # 1. The regions, and every details tab.
        focus_where(app, "launch", on_timeline, failures)
        key("F6")
        focus_where(app, "F6 to the details", in_tabs, failures)
        key("F6")
        focus_where(app, "F6 to the header bar", is_header, failures)
        key("F6")
        focus_where(app, "F6 back to the timeline", on_timeline, failures)
        for n, tab in [(2, "Call Tree"), (3, "Flame Graph"), (4, "Span"), (1, "Statistics")]:
            key(f"alt+{n}")
            page = None
            if wait_for(lambda: any(
                    tabs.getChildAtIndex(i).name == tab and
                    tabs.getChildAtIndex(i).getState().contains(pyatspi.STATE_SELECTED)
                    for i in range(tabs.childCount)), timeout=WAIT / 2):
                page = tab
            if page is None:
                failures.append(f"Alt+{n} did not show the {tab} tab")
                continue
            key("F6")
            focus_where(app, f"Alt+{n}, F6 into {tab}", in_tabs, failures)
            if tab == "Statistics":
                key("Tab")
                focus_where(app, "Tab into the Statistics table",
                            lambda a: inside(a, lambda x: x.name == "Statistics" and
                                             x.getRole() == pyatspi.ROLE_TREE_TABLE), failures)
            key("shift+F6")
            focus_where(app, "Shift+F6 back to the timeline", on_timeline, failures)
        # 2. Search and back, then W zooms.
        key("ctrl+f")
        focus_where(app, "Ctrl+F", lambda a: inside(a, lambda x: x.name == "Search") and
                    a.getRole() in (pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT), failures)
        key("Escape")
        focus_where(app, "Escape from the search", on_timeline, failures)
        before = visible_ms(timeline.description)
        key("w")
        if before is None or not wait_for(
                lambda: (visible_ms(timeline.description) or before) < before, timeout=WAIT / 2):
            failures.append(f"W after Escape did not zoom: {timeline.description!r} "
                            f"(was {before} ms wide)")
        else:
            print(f"W: {timeline.description}")
        shortcuts_window(app, failures, ["Open traces", "Zoom in", "Find spans",
                                         "Move the focus to the next region"])


def main():
    mode, app_path, path = sys.argv[1:4]
    failures = []
    if mode == "ga":
        check_ga(app_path, path, failures)
    else:
        check_sa(app_path, path, failures)
    finish(failures)


if __name__ == "__main__":
    main()

"""Remembered state (issue 28 item 5): what a person set in one launch is
there in the next, through GSettings (tsd-settings.h) with the keyfile
backend in the test's own XDG_CONFIG_HOME (the memory backend forgets
between processes), and the System Analyser's start page lists the sample
trace and, once a trace was opened, that trace as recent.

The Graph Analyser on tutorial 5's report: the Operations view, a column
shown and one hidden, the window resized, the sidebar dragged wider and
the dark style switched on (Ctrl+Shift+D); quit with Ctrl+Q, launched
again on the report: the same view, columns, sidebar width, window size,
a dark window. `--view summary` then wins over the remembered view.

The System Analyser: the start page's Sample Traces row opens tutorial
5's trace; the Call Tree tab chosen, the window resized, dark style; quit,
launched again without a file: Recent Traces lists the trace, which opens
at the Call Tree tab in a window of the same size, dark.

usage: check-remembered.py GRAPH_ANALYSER SYSTEM_ANALYSER REPORT_DIR"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import WAIT, click, find, find_app, finish, show_view, text_of, wait_for, walk  # noqa: E402

import pyatspi  # noqa: E402

ga_path, sa_path, report = sys.argv[1:4]
trace = os.path.join(report, os.path.basename(os.path.normpath(report)) + ".pvti")
failures = []


def key(*keys):
    subprocess.run(["xdotool", "key", *keys], check=True)


def launch(app_path, args, home):
    env = dict(os.environ)
    for var in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env[var] = home
    env["GSETTINGS_BACKEND"] = "keyfile"
    proc = subprocess.Popen([app_path] + list(args), env=env)
    return proc, find_app(proc.pid, proc=proc)


def quit_app(proc, what):
    """Ctrl+Q, the way a person ends the app (no window close-request)."""
    key("ctrl+q")
    try:
        rc = proc.wait(timeout=WAIT)
    except subprocess.TimeoutExpired:
        failures.append(f"{what}: Ctrl+Q did not end the app")
        proc.kill()
        proc.wait()
        return
    if rc != 0:
        failures.append(f"{what}: the app ended with status {rc}")


def x_window(pid):
    """The largest mapped X window of process `pid` (its main window, not
    a tooltip or a popover's), by xdotool."""
    out = []
    wait_for(lambda: out.append(subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--pid", str(pid)], capture_output=True,
        text=True).stdout.split()) or out[-1])
    wins = [(geometry(w) or (0, 0), w) for w in (out[-1] if out else [])]
    return max(wins, key=lambda g: g[0][0] * g[0][1])[1] if wins else None


def geometry(win):
    """(width, height) of X window `win`."""
    out = subprocess.run(["xdotool", "getwindowgeometry", win], capture_output=True,
                         text=True).stdout
    m = re.search(r"Geometry: (\d+)x(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def resize(pid, size):
    """Resizes the app's window to `size` (X pixels) and returns the X
    geometry it took, once it took it."""
    win = x_window(pid)
    if win is None:
        failures.append("no X window to resize")
        return None
    subprocess.run(["xdotool", "windowsize", win, str(size[0]), str(size[1])], check=True)
    wait_for(lambda: geometry(win) == size)
    return geometry(win)


def darkness(pid):
    """The mean lightness (0 black .. 1 white) of the app's window on the
    screen: the dark style turns it from about 0.9 to about 0.2."""
    win = x_window(pid)
    if win is None:
        return None
    with tempfile.NamedTemporaryFile(suffix=".png") as shot:
        subprocess.run(["import", "-window", win, shot.name], check=True)
        out = subprocess.run(["convert", shot.name, "-colorspace", "Gray", "-format",
                              "%[fx:mean]", "info:"], capture_output=True, text=True).stdout
    try:
        return float(out)
    except ValueError:
        return None


def wait_dark(pid, want, what):
    """Polls until the window is dark (want True) or light."""
    seen = []

    def ok():
        seen.append(darkness(pid))
        return seen[-1] is not None and (seen[-1] < 0.5) == want
    if not wait_for(ok):
        failures.append(f"{what}: the window is not {'dark' if want else 'light'} "
                        f"(mean lightness {seen[-1] if seen else None})")


def extents(acc):
    return acc.queryComponent().getExtents(pyatspi.WINDOW_COORDS)


# --- The Graph Analyser -------------------------------------------------------------------

def selected_view(app):
    """The title of the sidebar's selected row (the view shown), or None."""
    sidebar = find(app, lambda a: a.name == "Views", timeout=5)
    for a in walk(sidebar):
        try:
            if a.getRole() == pyatspi.ROLE_LIST_ITEM and a.getState().contains(
                    pyatspi.STATE_SELECTED):
                return " ".join(text_of(c) for c in walk(a) if c.getRole() == pyatspi.ROLE_LABEL)
        except Exception:
            pass
    return None


def column_titles(app):
    """The Operations table's column titles shown: the labels of its header
    row (GTK 4.8 leaves a hidden column's title out)."""
    table = find(app, lambda a: a.name == "Operations" and a.getRole() in (
        pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE), timeout=10)
    titles = set()
    header = table.getChildAtIndex(0) if table is not None and table.childCount else None
    if header is None or header.getRole() != pyatspi.ROLE_TABLE_ROW:
        return titles
    for a in walk(header):
        try:
            if a.getRole() == pyatspi.ROLE_LABEL and a.name:
                titles.add(a.name)
        except Exception:
            pass
    return titles


def toggle_column(app, title):
    """The Columns chooser opened, its check box `title` switched, the
    chooser closed."""
    button = find(app, lambda a: a.name == "Columns" and a.getRole() != pyatspi.ROLE_LABEL)
    if button is None:
        failures.append("no Columns button in Operations")
        return
    click(button)
    check = find(app, lambda a: a.getRole() == pyatspi.ROLE_CHECK_BOX and
                 (a.name or "").replace("_", "") == title)
    if check is None:
        failures.append(f"no '{title}' in the Columns chooser")
        return
    # Clicks in a popover land by screen position, which GTK 4.8 does not
    # tell AT-SPI: Tab to the box (its focus state says when), then Space.
    for _ in range(30):
        if wait_for(lambda: check.getState().contains(pyatspi.STATE_FOCUSED), timeout=0.5):
            key("space")
            key("Escape")
            return
        key("Tab")
    failures.append(f"Tab never reached '{title}' in the Columns chooser")


def sidebar_width(app):
    sidebar = find(app, lambda a: a.name == "Views", timeout=10)
    return extents(sidebar).width if sidebar is not None else None


def check_graph_analyser(home):
    proc, app = launch(ga_path, [report], home)
    try:
        if show_view(app, "Operations") is None or not wait_for(
                lambda: selected_view(app) == "Operations"):
            failures.append("GA: could not show Operations")
            return
        before = column_titles(app)
        if "Self cycles" in before or "Layer" not in before:
            failures.append(f"GA: Operations' default columns are not as built: {sorted(before)}")
        toggle_column(app, "Self cycles")
        toggle_column(app, "Layer")
        if not wait_for(lambda: "Self cycles" in column_titles(app) and
                        "Layer" not in column_titles(app)):
            failures.append(f"GA: the column choice did not take: {sorted(column_titles(app))}")
        # Resized first: a narrower window could squeeze the sidebar.
        size = resize(proc.pid, (1340, 860))
        # The sidebar dragged 60 px wider by its handle (just right of it).
        sidebar = find(app, lambda a: a.name == "Views")
        x, y, w, h = extents(sidebar)
        width0 = w
        hx, hy = x + w + 1, y + h // 2
        subprocess.run(["xdotool", "mousemove", str(hx), str(hy), "mousedown", "1"], check=True)
        for dx in (10, 30, 45, 60):
            subprocess.run(["xdotool", "mousemove", str(hx + dx), str(hy)], check=True)
        subprocess.run(["xdotool", "mouseup", "1"], check=True)
        if not wait_for(lambda: sidebar_width(app) >= width0 + 40):
            failures.append(f"GA: dragging the sidebar's edge did not widen it "
                            f"({width0} -> {sidebar_width(app)})")
        width = sidebar_width(app)
        key("ctrl+shift+d")
        wait_dark(proc.pid, True, "GA after Ctrl+Shift+D")
    finally:
        quit_app(proc, "GA, first launch")

    proc, app = launch(ga_path, [report], home)
    try:
        if not wait_for(lambda: selected_view(app) == "Operations"):
            failures.append(f"GA relaunched: the view shown is {selected_view(app)!r}, "
                            f"not the remembered Operations")
            show_view(app, "Operations")
        cols = set()
        if not wait_for(lambda: cols.update(column_titles(app)) or (
                "Self cycles" in cols and "Layer" not in cols), timeout=10):
            failures.append(f"GA relaunched: Operations' columns are {sorted(column_titles(app))}, "
                            f"not the ones chosen (Self cycles shown, Layer hidden)")
        if not wait_for(lambda: sidebar_width(app) == width, timeout=10):
            failures.append(f"GA relaunched: the sidebar is {sidebar_width(app)} px wide, "
                            f"not the {width} px it was dragged to")
        win = x_window(proc.pid)
        if size is None or win is None or geometry(win) != size:
            failures.append(f"GA relaunched: the window is {geometry(win) if win else None}, "
                            f"not the {size} it was resized to")
        wait_dark(proc.pid, True, "GA relaunched")
    finally:
        quit_app(proc, "GA, second launch")

    # The command line wins over the remembered view.
    proc, app = launch(ga_path, ["--view", "summary", report], home)
    try:
        if not wait_for(lambda: selected_view(app) == "Summary"):
            failures.append(f"GA --view summary: the view shown is {selected_view(app)!r}")
    finally:
        quit_app(proc, "GA, --view summary")
    print("GA: view, columns, sidebar, size and dark style checked", flush=True)


# --- The System Analyser --------------------------------------------------------------------

def start_rows(app, list_name):
    """{title: row} of the start page's list `list_name` (empty when the
    list is not shown)."""
    lst = find(app, lambda a: a.name == list_name and a.getRole() in (
        pyatspi.ROLE_LIST, pyatspi.ROLE_LIST_BOX), timeout=2)
    rows = {}
    if lst is None or not lst.getState().contains(pyatspi.STATE_VISIBLE):
        return rows
    for i in range(lst.childCount):
        row = lst.getChildAtIndex(i)
        if row is not None:
            rows[row.name] = row
    return rows


def selected_tab(app):
    tabs = find(app, lambda a: a.getRole() == pyatspi.ROLE_PAGE_TAB_LIST, timeout=10)
    for i in range(tabs.childCount if tabs else 0):
        tab = tabs.getChildAtIndex(i)
        if tab.getState().contains(pyatspi.STATE_SELECTED):
            return tab.name
    return None


def activate_row(row):
    """A start page row, clicked (a list box row opens on one click)."""
    x, y, w, h = extents(row)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"],
                   check=True)


def trace_shown(app):
    return find(app, lambda a: a.getRole() == pyatspi.ROLE_PAGE_TAB and a.name == "Call Tree",
                timeout=1) is not None


def check_system_analyser(home):
    proc, app = launch(sa_path, [], home)
    recent_file = os.path.join(home, "recently-used.xbel")
    try:
        samples = {}
        name = os.path.basename(os.path.normpath(report))
        if not wait_for(lambda: samples.update(start_rows(app, "Sample Traces")) or
                        name in samples):
            failures.append(f"SA: the start page's sample traces are {sorted(samples)}, "
                            f"not {name}")
        if start_rows(app, "Recent Traces"):
            failures.append("SA: a first launch in a new home lists recent traces")
        if name in samples:
            activate_row(samples[name])
        else:
            # The rest checked all the same, on the trace opened by name.
            quit_app(proc, "SA, no samples")
            proc, app = launch(sa_path, [trace], home)
        if not wait_for(lambda: trace_shown(app)):
            failures.append("SA: the trace did not open")
            return
        key("alt+2")
        if not wait_for(lambda: selected_tab(app) == "Call Tree"):
            failures.append(f"SA: Alt+2 shows {selected_tab(app)!r}, not Call Tree")
        size = resize(proc.pid, (1000, 720))
        key("ctrl+shift+d")
        wait_dark(proc.pid, True, "SA after Ctrl+Shift+D")
        # The recent files are written by GTK in the background.
        if not wait_for(lambda: os.path.exists(recent_file) and
                        os.path.realpath(trace) in open(recent_file).read().replace(
                            "file://", "")):
            failures.append("SA: the trace opened never reached the recent files")
    finally:
        quit_app(proc, "SA, first launch")

    proc, app = launch(sa_path, [], home)
    try:
        recent = {}
        base = os.path.basename(trace)
        if not wait_for(lambda: recent.update(start_rows(app, "Recent Traces")) or base in recent):
            failures.append(f"SA relaunched: Recent Traces lists {sorted(recent)}, not {base}")
        if "tut5_ml" not in start_rows(app, "Sample Traces"):
            failures.append("SA relaunched: the sample trace is gone from the start page")
        win = x_window(proc.pid)
        if size is None or win is None or geometry(win) != size:
            failures.append(f"SA relaunched: the window is {geometry(win) if win else None}, "
                            f"not the {size} it was resized to")
        wait_dark(proc.pid, True, "SA relaunched")
        if base in recent:
            activate_row(recent[base])
        else:
            # The tab checked all the same, on the trace opened by name.
            quit_app(proc, "SA, no recent trace")
            proc, app = launch(sa_path, [trace], home)
        if not wait_for(lambda: trace_shown(app)):
            failures.append("SA relaunched: the trace did not open")
        elif not wait_for(lambda: selected_tab(app) == "Call Tree"):
            failures.append(f"SA relaunched: the details show {selected_tab(app)!r}, not "
                            f"the remembered Call Tree")
    finally:
        quit_app(proc, "SA, second launch")
    print("SA: sample and recent traces, tab, size and dark style checked", flush=True)


with tempfile.TemporaryDirectory(prefix="remembered-") as home:
    for part, check in (("ga", check_graph_analyser), ("sa", check_system_analyser)):
        os.makedirs(os.path.join(home, part))
        check(os.path.join(home, part))
finish(failures)

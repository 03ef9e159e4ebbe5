"""Running the app and finding its widgets on the AT-SPI bus, for the GUI
tests.

Nothing here waits a fixed time: every wait polls for the state it needs
until a deadline, and the deadlines are far (WAIT seconds, many times
what the slowest wait takes on an idle machine) so that a busy or slow
machine passes as a fast one does; only a failing test waits them out.
A probe that must answer "is it there now" passes a short timeout: find
always walks the tree once, however long that takes."""
import contextlib
import csv
import io
import os
import signal
import subprocess
import sys
import tempfile
import time

import pyatspi

# The deadline of a wait, in seconds: the app's start, a view built, a
# description updated. An idle machine needs a second or two at most.
WAIT = 60


def _stopped(signum, frame):
    raise SystemExit(f"FAIL: stopped by signal {signum} (meson's timeout?)")


# Meson stops a test that runs out of time with SIGTERM: unwind, so that
# the apps and writers a test started are stopped and its temporary
# directories removed (Python's default would leave them).
signal.signal(signal.SIGTERM, _stopped)


def gave_up(what, timeout):
    """Says where a wait ran out (the test's line), so that a test that
    then runs into meson's timeout still shows what it waited for."""
    frame = sys._getframe(2)
    print(f"(waited {timeout:g} s in vain: {what} at "
          f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno})", flush=True)


def find_app(pid, timeout=WAIT, proc=None):
    """The application of process `pid` on the bus, once its window is
    there and has the keyboard (the frame's "active" state: GTK focuses a
    window it presents, X then sends it the keys xdotool types; a key sent
    earlier would be lost). Exits with a failure when `proc` (its Popen)
    ends first."""
    end = time.time() + timeout
    found = None
    while True:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"FAIL: the app exited ({proc.returncode}) before it showed a window")
        try:
            for app in pyatspi.Registry.getDesktop(0):
                if app is not None and app.get_process_id() == pid and app.childCount > 0:
                    found = app
                    if any(app.getChildAtIndex(i).getState().contains(pyatspi.STATE_ACTIVE)
                           for i in range(app.childCount)):
                        return app
        except Exception:
            pass
        if time.time() >= end:
            break
        time.sleep(0.2)
    if found is None:
        raise SystemExit("FAIL: the app never appeared on the AT-SPI bus")
    print(f"(the app's window never became active in {timeout:g} s: keys may not reach it)",
          flush=True)
    return found


def walk(acc, depth=0, prune=None):
    """Every accessible below acc, depth first. `prune(a)` true skips a's
    subtree (GTK 4.8 marks hidden stack pages neither hidden nor not
    showing, so a test names the views it does not want to search: the
    bus is slow and the Summary view alone has a thousand labels)."""
    if acc is None or depth > 60:
        return
    yield acc
    if prune is not None and depth > 0:
        try:
            if prune(acc):
                return
        except Exception:
            pass
    try:
        # A widget the app disposes while we walk (a table rebuilt by a
        # reload) is gone from the bus: skip it, the next pass sees the new one.
        n = acc.childCount
    except Exception:
        return
    for i in range(n):
        try:
            child = acc.getChildAtIndex(i)
        except Exception:
            continue
        yield from walk(child, depth + 1, prune)


def other_views(*keep):
    """A prune for walk(): the view panels not named in `keep`."""
    views = {"Summary", "Insights", "Memory", "Liveness", "Program Tree", "Operations",
             "Execution Trace", "History"} - set(keep)
    return lambda a: a.getRole() == pyatspi.ROLE_PANEL and a.name in views


def find(app, predicate, timeout=WAIT, prune=None):
    """The first accessible below app for which predicate is true, polled
    until `timeout` seconds pass (at least one whole walk); None when there
    is none."""
    end = time.time() + timeout
    while True:
        for acc in walk(app, prune=prune):
            try:
                if predicate(acc):
                    return acc
            except Exception:
                pass
        if time.time() >= end:
            if timeout >= 5:  # not a probe (a short "is it there now")
                gave_up("find", timeout)
            return None
        time.sleep(0.3)


def is_figure(acc, caption):
    """Whether acc is the value captioned `caption`: the apps name a value
    by the caption beside it and keep the value in its text (tsd-a11y.h),
    so the caption's own label, named by its text, is not it."""
    return (acc.getRole() == pyatspi.ROLE_LABEL and acc.name == caption and
            text_of(acc) != caption)


def figure(root, *path, prune=None, timeout=WAIT):
    """The figure a person finds by reading down from root: past each of
    path[:-1] in turn (a section's button, a heading, a row's caption: an
    accessible with that name or text) to the first value captioned
    path[-1] after them (is_figure). Polled until timeout; None when there
    is none."""
    def once():
        i = 0
        for acc in walk(root, prune=prune):
            try:
                if i < len(path) - 1:
                    if acc.name == path[i] or (acc.getRole() == pyatspi.ROLE_LABEL and
                                               text_of(acc) == path[i]):
                        i += 1
                elif is_figure(acc, path[-1]):
                    return acc
            except Exception:
                pass
        return None

    found = []
    wait_for(lambda: found.append(once()) or found[-1] is not None, timeout=timeout)
    return found[-1] if found else None


COMPARE_PARTS = {"A": "base", "B": "new", "Δ": "change", "%": "percent"}


def compare_cell(acc):
    """(row, metric title or None, key) of a compare figure, named "ROW,
    [TITLE ]PART" by the Graph Analyser ("cycles.total, Δ", "OP, Cycles A"),
    key one of base, new, change, percent; None for another accessible."""
    name = acc.name or ""
    row, sep, said = name.rpartition(", ")
    if not sep or acc.getRole() != pyatspi.ROLE_LABEL:
        return None
    title, _, part = said.rpartition(" ")
    if part not in COMPARE_PARTS:
        return None
    return row, title or None, COMPARE_PARTS[part]


# The metric of an operation's compare figure, by its column's title.
OPERATION_METRICS = {"Cycles": "cycles", "Memory": "memory", "FLOPs": "flops"}


def compare_figures(app, view):
    """{(metric, key): accessible} of the compare figures shown in `view`:
    a figure's metric is its row's caption (the diff's metric in the
    Summary), or the operation's path under its column's title (Operations:
    "cycles.operation.PATH")."""
    found = {}
    for acc in walk(app, prune=other_views(view)):
        try:
            cell = compare_cell(acc)
        except Exception:
            continue
        if cell is None:
            continue
        row, title, key = cell
        metric = f"{OPERATION_METRICS[title]}.operation.{row}" if title in OPERATION_METRICS \
            else row
        found[(metric, key)] = acc
    return found


def verdict_of(acc):
    """The diff's verdict a compare change figure says after its value in
    its description ("+1,234, worse")."""
    return (acc.description or "").rpartition(", ")[2]


def text_of(acc):
    try:
        t = acc.queryText()
        return t.getText(0, t.characterCount)
    except NotImplementedError:
        return acc.name


def table_rows(table):
    """The rows of a GTK column view's accessible `table`, top to bottom:
    GTK 4.8 exposes the header and the rows as lists under it; each row
    yielded is (list, index in it, row)."""
    for i in range(table.childCount):
        part = table.getChildAtIndex(i)
        if part is None or part.getRole() != pyatspi.ROLE_LIST:
            continue
        for r in range(part.childCount):
            yield part, r, part.getChildAtIndex(r)


def plain(name):
    """An accessible name as a person reads it: GTK 4.8 leaves the
    mnemonic's underscore in the names of buttons and check boxes
    ("Include _Gaps")."""
    return (name or "").replace("_", "")


def click(acc):
    """Clicks acc as a person would: its action when it has one, else the
    pointer at its centre (xdotool; the window is at the screen's top left
    under Xvfb without a window manager, so window coordinates are the
    screen's)."""
    import subprocess

    try:
        action = acc.queryAction()
        if action.nActions > 0:
            action.doAction(0)
            return
    except Exception:
        pass
    x, y, w, h = acc.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"],
                   check=True)


def show_view(app, name, timeout=WAIT):
    """Selects the sidebar entry `name` ("Summary", "Memory" ...) as a
    person would; returns the entry, or None when there is none."""
    entry = find(app, lambda a: a.name == name and
                 a.getRole() in (pyatspi.ROLE_LIST_ITEM, pyatspi.ROLE_PAGE_TAB,
                                 pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_LABEL) and
                 a.parent is not None and
                 (a.parent.getRole() == pyatspi.ROLE_LIST_ITEM or
                  a.getRole() == pyatspi.ROLE_LIST_ITEM), timeout=timeout)
    if entry is None:
        return None
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
    return entry


def wait_for(predicate, timeout=WAIT):
    """Polls predicate() until it is true (True) or timeout seconds pass
    (False; predicate() is asked at least once)."""
    end = time.time() + timeout
    while True:
        try:
            if predicate():
                return True
        except Exception:
            pass
        if time.time() >= end:
            if timeout >= 5:  # not a probe (a short "is it there now")
                gave_up("wait_for", timeout)
            return False
        time.sleep(0.2)


@contextlib.contextmanager
def running_app(app_path, args):
    """Runs the app with `args` in a home of its own (recent files and
    settings stay in a temporary directory) and yields (process, its
    accessible application, the temporary directory); stops it after."""
    with tempfile.TemporaryDirectory(prefix="ga-gui-") as tmp:
        env = dict(os.environ)
        for var in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            env[var] = tmp
        proc = subprocess.Popen([app_path] + list(args), env=env)
        try:
            yield proc, find_app(proc.pid, proc=proc), tmp
        finally:
            # Stopped and reaped before its home goes (a slow exit is
            # killed, not left behind).
            proc.terminate()
            try:
                proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def sql(tilescope, report, query):
    """The rows of `tilescope sql --csv REPORT QUERY`, as dicts: what the
    tests compare the screens with."""
    out = subprocess.run([tilescope, "sql", "--csv", report, query], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def finish(failures):
    """Prints the failures and exits 1, or prints PASS."""
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print("PASS")

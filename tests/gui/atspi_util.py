"""Running the app and finding its widgets on the AT-SPI bus, for the GUI
tests."""
import contextlib
import os
import subprocess
import sys
import tempfile
import time

import pyatspi


def find_app(pid, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        desktop = pyatspi.Registry.getDesktop(0)
        for app in desktop:
            try:
                if app is not None and app.get_process_id() == pid and app.childCount > 0:
                    return app
            except Exception:
                pass
        time.sleep(0.2)
    raise SystemExit("FAIL: the app never appeared on the AT-SPI bus")


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
             "Execution Trace"} - set(keep)
    return lambda a: a.getRole() == pyatspi.ROLE_PANEL and a.name in views


def find(app, predicate, timeout=20, prune=None):
    end = time.time() + timeout
    while time.time() < end:
        for acc in walk(app, prune=prune):
            try:
                if predicate(acc):
                    return acc
            except Exception:
                pass
        time.sleep(0.3)
    return None


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


def show_view(app, name, timeout=20):
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


def wait_for(predicate, timeout=15):
    """Polls predicate() until it is true (True) or timeout seconds pass."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            if predicate():
                return True
        except Exception:
            pass
        time.sleep(0.2)
    return False


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
            yield proc, find_app(proc.pid), tmp
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def finish(failures):
    """Prints the failures and exits 1, or prints PASS."""
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print("PASS")

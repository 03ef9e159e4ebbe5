"""Issue 33: a report that could not be opened (a model was rewriting it,
say) is opened again from the error page, as a person would: Try Again
(and Reload) retries the same file, which opens once it is whole.
Issue 28: both apps' windows are the one shell (tsd-window.h), so the
System Analyser's error page has Try Again too, both titles say the app,
and the Graph Analyser's menu has Open Recent, listing what it opened.

usage: check-error-retry.py GRAPH-ANALYSER GOOD-REPORT-DIR SYSTEM-ANALYSER GOOD-TRACE"""
import os
import shutil
import sys
import tempfile

import pyatspi

from atspi_util import click, find, finish, plain, running_app, wait_for


def retry(failures, app_path, good, name, suffix):
    """Opens a broken `name`, makes it whole from `good`, presses Try
    Again: the window must then show it, and its Open Recent list it."""
    with tempfile.TemporaryDirectory(prefix="ts-retry-") as tmp:
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(b"Half a file.\n" * 64)
        with running_app(app_path, [path]) as (proc, app, _):
            message = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and path in a.name)
            if message is None:
                failures.append(f"{suffix}: no error message for a broken {name}")
                return
            button = find(app, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                          "Try Again" in plain(a.name))
            if button is None:
                failures.append(f"{suffix}: no 'Try Again' button on the error page")
                return
            if not button.getState().contains(pyatspi.STATE_SENSITIVE):
                failures.append(f"{suffix}: 'Try Again' is disabled on the error page")
            # The writer finishes: the whole file replaces the broken one.
            shutil.copyfile(good, os.path.join(tmp, "new"))
            os.replace(os.path.join(tmp, "new"), path)
            click(button)
            # The window's title names what is shown, then the app (a
            # report by its directory, a trace by its file).
            want = f"{'' if name == 'profile.pop' else name} — {suffix}"
            if not wait_for(lambda: find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME and
                                         a.name.endswith(want), timeout=1) is not None):
                frame = find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME)
                failures.append(f"{suffix}: not shown after Try Again: the window is "
                                f"{frame.name if frame else None!r}")
            else:
                print(f"after Try Again: {find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME).name!r}")
            # What was opened is in the main menu's Open Recent.
            click(find(app, lambda a: a.name == "Main Menu" and a.getRole() in
                       (pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_PUSH_BUTTON)))
            sub = find(app, lambda a: a.getRole() == pyatspi.ROLE_MENU_ITEM and
                       plain(a.name or "") == "Open Recent")
            if sub is None:
                failures.append(f"{suffix}: the main menu has no 'Open Recent'")
            else:
                click(sub)
                if find(app, lambda a: a.getRole() == pyatspi.ROLE_MENU_ITEM and
                        a.name == name) is None:
                    failures.append(f"{suffix}: 'Open Recent' does not list {name}")
            if proc.poll() is not None:
                failures.append(f"{suffix}: the app exited ({proc.poll()})")


def main():
    ga, report, sa, trace = sys.argv[1:5]
    failures = []
    retry(failures, ga, os.path.join(report, "profile.pop"), "profile.pop", "Graph Analyser")
    retry(failures, sa, trace, "run.pvti", "System Analyser")
    finish(failures)


if __name__ == "__main__":
    main()

"""Issue 33: a report that could not be opened (a model was rewriting it,
say) is opened again from the error page, as a person would: Try Again
(and Reload) retries the same file, which opens once it is whole.

usage: check-error-retry.py GRAPH-ANALYSER GOOD-REPORT-DIR"""
import os
import shutil
import sys
import tempfile

import pyatspi

from atspi_util import click, find, finish, plain, running_app, wait_for


def main():
    app_path, good = sys.argv[1:3]
    failures = []
    with tempfile.TemporaryDirectory(prefix="ga-retry-") as tmp:
        path = os.path.join(tmp, "profile.pop")
        with open(path, "wb") as f:
            f.write(b"Half a report.\n" * 64)
        with running_app(app_path, [path]) as (proc, app, _):
            message = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and path in a.name)
            if message is None:
                raise SystemExit("FAIL: no error message for a file that is not a report")
            retry = find(app, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                         "Try Again" in plain(a.name))
            if retry is None:
                raise SystemExit("FAIL: no 'Try Again' button on the error page")
            if not retry.getState().contains(pyatspi.STATE_SENSITIVE):
                failures.append("'Try Again' is disabled on the error page")
            # The writer finishes: the whole report replaces the broken one.
            shutil.copyfile(os.path.join(good, "profile.pop"), os.path.join(tmp, "new.pop"))
            os.replace(os.path.join(tmp, "new.pop"), path)
            click(retry)
            # The window's title names the report once it is shown.
            if not wait_for(lambda: find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME and
                                         a.name.endswith("— Graph Analyser") and
                                         a.name != "Graph Analyser", timeout=1) is not None):
                failures.append("the report was not shown after Try Again")
            else:
                frame = find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME)
                print(f"after Try Again: {frame.name!r}")
            if proc.poll() is not None:
                failures.append(f"the app exited ({proc.poll()})")
    finish(failures)


if __name__ == "__main__":
    main()

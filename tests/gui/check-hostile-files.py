"""Issue 33: the apps survive what a file can do. Every file of the fuzz
corpora (reports for the Graph Analyser; .pvti and Chrome JSON traces for
the System Analyser), and a trace whose schema runs a slow generated
column, is opened in its app under Xvfb as a person would open it: the
window must show the file's content or its error page (a label naming the
file), the process must stay up, and Ctrl+Q must end it with status 0.

Nothing here waits for a fixed time: each state is polled under the
common deadline (atspi_util.WAIT); the time each file took is printed,
and the slowest is named at the end, so a regression shows in the log
without a wall-clock assertion.

usage: check-hostile-files.py GRAPH-ANALYSER SYSTEM-ANALYSER CORPUS-DIR SAMPLE-TRACE"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

import pyatspi

from atspi_util import WAIT, find, finish, running_app, wait_for

TITLES = {"ga": "Graph Analyser", "sa": "System Analyser"}


def slow_schema_trace(sample, tmp):
    """A copy of `sample` with a generated column that costs a second a row
    to compute (instr over megabyte strings): the schema check must refuse
    it before anything reads a row."""
    path = os.path.join(tmp, "slow-schema.pvti")
    shutil.copyfile(sample, path)
    db = sqlite3.connect(path)
    table = db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' "
                       "AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 1").fetchone()[0]
    db.execute(f'ALTER TABLE "{table}" ADD COLUMN slow GENERATED ALWAYS AS '
               "(instr(printf('%.*c', 1000000, 'a'), printf('%.*c', 100000, 'a') || 'b')) "
               "VIRTUAL")
    db.commit()
    db.close()
    return path


def open_one(kind, app_path, path, failures):
    """Opens `path` in the app; returns the seconds until it showed the
    content or the error page."""
    name = os.path.basename(path)
    title = TITLES[kind]
    start = time.time()
    with running_app(app_path, [path]) as (proc, app, _):
        def shown():
            frame = find(app, lambda a: a.getRole() == pyatspi.ROLE_FRAME, timeout=0.5)
            if frame is not None and frame.name not in ("", title):
                return "content"
            # The error message names the file; the loading page's
            # heading ("Opening NAME") does too, and is not an answer.
            if find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and name in (a.name or "")
                    and len(a.name) > len(name) and not a.name.startswith("Opening "),
                    timeout=0.5) is not None:
                return "error page"
            return None

        state = [None]
        if not wait_for(lambda: state.__setitem__(0, shown()) or state[0] is not None):
            failures.append(f"{kind} {name}: neither content nor an error page within {WAIT} s")
            return WAIT
        took = time.time() - start
        if proc.poll() is not None:
            failures.append(f"{kind} {name}: the app exited ({proc.returncode})")
            return took
        subprocess.run(["xdotool", "key", "ctrl+q"], check=True)
        try:
            rc = proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            failures.append(f"{kind} {name}: Ctrl+Q did not end the app")
            return took
        if rc != 0:
            failures.append(f"{kind} {name}: the app ended with status {rc} on Ctrl+Q")
        print(f"{kind} {name}: {state[0]} in {took:.2f} s, quit with {rc}", flush=True)
        return took


def main():
    ga, sa, corpus, sample = sys.argv[1:5]
    failures = []
    times = []
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        cases = [("ga", ga, os.path.join(corpus, "report", f))
                 for f in sorted(os.listdir(os.path.join(corpus, "report")))]
        for sub in ("trace", "chrome_json"):
            cases += [("sa", sa, os.path.join(corpus, sub, f))
                      for f in sorted(os.listdir(os.path.join(corpus, sub)))]
        cases.append(("sa", sa, slow_schema_trace(sample, tmp)))
        for kind, app_path, path in cases:
            if os.path.isfile(path):
                times.append((open_one(kind, app_path, path, failures), kind, path))
    slowest = max(times)
    print(f"{len(times)} files; the slowest: {slowest[1]} {os.path.basename(slowest[2])} "
          f"in {slowest[0]:.2f} s", flush=True)
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The format's words the Summary view shows: the target's IPU version and
the report's profiler mode, which reportlib hands out as enumerations with
the file's word beside them (issue 27 item 1).

Opens REPORT in the Graph Analyser and reads the Target and Profiler mode
figures against `tilescope summary --json` and `tilescope sql`; then opens
a copy edited as a newer writer might write it (an IPU version, a target
name and a profiler mode this reader's vocabulary lacks) and checks that
the view shows those words as the file spells them, as the command does.

    check-summary-words.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import figure, find, finish, running_app, show_view, sql, text_of  # noqa: E402


def shown_words(app_path, report, failures):
    """(Target figure, Profiler mode figure) as the Summary view shows them
    for `report`, or None where a figure is missing."""
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Summary") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Summary'")
        summary = find(app, lambda a: a.getRole() == pyatspi.ROLE_PANEL and a.name == "Summary")
        if summary is None:
            raise SystemExit("FAIL: no panel named 'Summary'")
        got = []
        for path in (("Target", "Target"), ("Report", "Profiler mode")):
            acc = figure(summary, *path)
            if acc is None:
                failures.append(f"{report}: no figure named {path[-1]!r} under {path[0]!r}")
                got.append(None)
            else:
                got.append(text_of(acc))
        return tuple(got)


def expected_words(tilescope, report):
    """(Target, Profiler mode) as the command reads them from the file."""
    doc = json.loads(subprocess.run([tilescope, "summary", "--json", report], check=True,
                                    capture_output=True, text=True).stdout)
    t = doc["target"]
    mode = sql(tilescope, report, "SELECT value FROM meta WHERE key = 'profiler_mode'")
    return f"{t['type']} {t['name']} ({t['ipuVersion']})", mode[0]["value"]


def main():
    app_path, tilescope, report = sys.argv[1:4]
    failures = []

    want = expected_words(tilescope, report)
    got = shown_words(app_path, report, failures)
    if got != want:
        failures.append(f"{report}: the Summary view shows {got}, the file says {want}")

    with tempfile.TemporaryDirectory(prefix="summary-words-") as tmp:
        newer = os.path.join(tmp, "newer")
        shutil.copytree(report, newer)
        db = sqlite3.connect(os.path.join(newer, "profile.pop"))
        with db:
            db.execute("INSERT OR REPLACE INTO meta(key, value) "
                       "VALUES ('profiler_mode', 'TRACE_ALL')")
            db.execute("UPDATE target SET ipu_version = 'Mk3', name = 'ipu3'")
        db.close()
        want_newer = expected_words(tilescope, newer)
        if want_newer != (f"{want[0].split()[0]} ipu3 (Mk3)", "TRACE_ALL"):
            failures.append(f"tilescope reads the newer report as {want_newer}")
        got = shown_words(app_path, newer, failures)
        if got != want_newer:
            failures.append(f"a newer writer's report: the Summary view shows {got}, the file "
                            f"says {want_newer}")
    print(f"the Summary view shows {want} and a newer writer's words as the file spells them")
    finish(failures)


if __name__ == "__main__":
    main()

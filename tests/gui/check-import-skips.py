#!/usr/bin/python3
"""What a Chrome JSON import skipped, in the System Analyser (issue 33,
item 6): a banner over the timeline, one line per kind, in the words
`tilescope trace` prints on stderr.

1. A Chrome JSON file of 10,000 X spans each inside the previous, a B
   never ended and an X of negative dur opens with a banner (an alert
   named "Events skipped on import") whose text and description are the
   CLI's lines for the same file ("deep.json: 9,750 events skipped:
   nested past 250 levels" ...); its close button hides it.
2. A clean Chrome JSON file and a .pvti open with no such banner (looked
   for once the trace's statistics are shown, which the same load fills).

    check-import-skips.py SYSTEM_ANALYSER TILESCOPE SAMPLE_TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import click, find, finish, running_app, text_of, wait_for  # noqa: E402

BANNER = "Events skipped on import"


def deep_json(path):
    """10,000 nested spans (9,750 past the 250 levels a .pvti holds), a B
    never ended, an X of negative dur, and one span that is kept."""
    with open(path, "w") as f:
        f.write("[")
        for i in range(10000):
            f.write(f'{{"ph":"X","name":"deep","pid":1,"tid":1,"ts":{i},"dur":{100000 - 2 * i}}},\n')
        f.write('{"ph":"B","name":"open","pid":1,"tid":2,"ts":3},\n')
        f.write('{"ph":"X","name":"neg","pid":1,"tid":3,"ts":3,"dur":-1},\n')
        f.write('{"ph":"X","name":"ok","pid":1,"tid":3,"ts":5,"dur":10}]\n')


def clean_json(path):
    with open(path, "w") as f:
        f.write('[{"ph":"X","name":"parent","pid":1,"tid":1,"ts":10,"dur":50},\n'
                ' {"ph":"B","name":"child","pid":1,"tid":1,"ts":20},\n'
                ' {"ph":"E","pid":1,"tid":1,"ts":30}]\n')


def cli_lines(tilescope, directory, name):
    """The lines `tilescope trace` prints about `name` (run in its
    directory, so that it names the file as the window does)."""
    err = subprocess.run([tilescope, "trace", name], cwd=directory, capture_output=True,
                         text=True, check=True).stderr
    prefix = "tilescope: "
    return [line[len(prefix):] for line in err.splitlines() if line.startswith(prefix)]


def banner_of(app, timeout):
    return find(app, lambda a: a.getRole() == pyatspi.ROLE_ALERT and a.name == BANNER,
                timeout=timeout)


def statistics_shown(app):
    table = find(app, lambda a: a.name == "Statistics" and a.getRole() == pyatspi.ROLE_TREE_TABLE)
    return table is not None and wait_for(lambda: table.description.startswith("Whole trace:"))


def check_skips(failures, app_path, tilescope, tmp):
    path = os.path.join(tmp, "deep.json")
    deep_json(path)
    want = cli_lines(tilescope, tmp, "deep.json")
    kinds = ("deep.json: 9,750 events skipped: nested past 250 levels",
             "deep.json: 1 event skipped: begun (B) and never ended",
             "deep.json: 1 event skipped: a negative duration, or an end before the begin")
    if want != list(kinds):
        failures.append(f"tilescope trace said {want!r}, expected {list(kinds)!r}")
    with running_app(app_path, [path]) as (proc, app, _):
        banner = banner_of(app, timeout=60)
        if banner is None:
            failures.append(f"deep.json: no alert named {BANNER!r}")
            return
        label = find(banner, lambda a: a.getRole() == pyatspi.ROLE_LABEL and a.name, timeout=60)
        shown = text_of(label).splitlines() if label is not None else []
        if shown != want:
            failures.append(f"deep.json: the banner says {shown!r}; the CLI {want!r}")
        else:
            print("banner:", " | ".join(shown), flush=True)
        if banner.description.splitlines() != want:
            failures.append(f"deep.json: the banner's description is {banner.description!r}")
        close = find(banner, lambda a: a.getRole() == pyatspi.ROLE_PUSH_BUTTON, timeout=60)
        if close is None:
            failures.append("deep.json: the banner has no close button")
            return
        click(close)
        if not wait_for(lambda: banner_of(app, timeout=0) is None):
            failures.append("deep.json: the banner stayed after its close button")
        else:
            print("the close button hid the banner", flush=True)
        if proc.poll() is not None:
            failures.append(f"deep.json: the app exited ({proc.returncode})")


def check_clean(failures, app_path, path):
    name = os.path.basename(path)
    with running_app(app_path, [path]) as (proc, app, _):
        if not statistics_shown(app):
            failures.append(f"{name}: the trace's statistics never showed")
            return
        if banner_of(app, timeout=0) is not None:
            failures.append(f"{name}: a banner of skipped events for a file that skipped none")
        elif find(app, lambda a: "skipped" in (a.name or ""), timeout=0) is not None:
            failures.append(f"{name}: something says 'skipped' for a file that skipped nothing")
        else:
            print(f"{name}: no banner", flush=True)


def main():
    # Absolute: the CLI runs in the temporary directory.
    app_path, tilescope, sample = (os.path.abspath(a) for a in sys.argv[1:4])
    failures = []
    with tempfile.TemporaryDirectory(prefix="sa-skips-") as tmp:
        check_skips(failures, app_path, tilescope, tmp)
        clean = os.path.join(tmp, "clean.json")
        clean_json(clean)
        if cli_lines(tilescope, tmp, "clean.json"):
            failures.append("tilescope trace says clean.json skipped events")
        check_clean(failures, app_path, clean)
        check_clean(failures, app_path, sample)
    finish(failures)


if __name__ == "__main__":
    main()

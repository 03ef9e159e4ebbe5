#!/usr/bin/python3
"""The System Analyser's search and details, used as a person would.

1. Ctrl+F opens the search bar (an entry named "Search"); typing "run
   program" must count as many hits as `tilescope trace --json` has spans
   whose label contains it (ignoring case: the default), and select the
   earliest of them, which `tilescope export --chrome-trace` says: the
   timeline (an image named "Timeline") must name it and show its extent.
2. Enter, F3, Shift+F3 and the Next / Previous buttons step through the
   hits in time order (the count reads "2 of 3" ...), wrapping at the
   ends; each time the timeline's description names the hit and its
   visible window holds it.
3. The regular-expression toggle: "Run program [12]" counts 2 hits; a bad
   expression shows reportlib's message in the bar.
4. Shift+drag marks a window: the Call Tree (a tree table named "Call
   Tree") must hold, for that window, the paths of `tilescope trace
   --call-tree --json --from A --to B`, with the same counts, inclusive
   and exclusive times. The Flame Graph (an image named "Flame Graph")
   must say the same root total.
5. Selecting a span by search fills the Span tab ("Span"): its name,
   duration and self time against `tilescope trace --json` (the label
   has one span).

    check-system-analyser-search.py APP TILESCOPE TRACE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import click, find, finish, running_app, text_of, wait_for  # noqa: E402


def cli(tilescope, *args):
    out = subprocess.run([tilescope, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def key(*keys):
    subprocess.run(["xdotool", "key", *keys], check=True)


def shown_window(desc):
    """The visible window of the timeline's description, in ns relative
    to the trace's start."""
    m = re.match(r"Showing (\d+)\.(\d{6}) ms – (\d+)\.(\d{6}) ms", desc or "")
    if not m:
        return None
    a = int(m.group(1)) * 1000000 + int(m.group(2))
    b = int(m.group(3)) * 1000000 + int(m.group(4))
    return a, b


def check_hit(failures, what, timeline, hit):
    """The timeline names `hit` as selected and its window holds it."""
    name, start, end = hit
    if not wait_for(lambda: f"; selected {name}," in (timeline.description or "")):
        failures.append(f"{what}: the timeline does not select {name!r}: "
                        f"{timeline.description!r}")
        return
    if not wait_for(lambda: (shown_window(timeline.description) or (0, -1))[0] <= start and
                    end <= (shown_window(timeline.description) or (0, -1))[1]):
        failures.append(f"{what}: the view {shown_window(timeline.description)} does not hold "
                        f"{name!r} [{start}, {end}] ns")
        return
    print(f"{what}: {timeline.description}")


def expect_status(failures, what, entry, want):
    if not wait_for(lambda: (entry.description or "") == want, timeout=10):
        failures.append(f"{what}: the search says {entry.description!r}, not {want!r}")
        return False
    return True


def search_part(failures, app, tilescope, trace, whole):
    timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
    if timeline is None:
        raise SystemExit("FAIL: no image named 'Timeline'")
    if not wait_for(lambda: (timeline.description or "").startswith("Showing")):
        raise SystemExit(f"FAIL: the trace never showed: {timeline.description!r}")
    key("ctrl+f")
    entry = find(app, lambda a: a.name == "Search" and a.getRole() in (
        pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT, pyatspi.ROLE_PASSWORD_TEXT) or
        (a.name == "Search" and a.getRole() != pyatspi.ROLE_PUSH_BUTTON and
         a.getRole() != pyatspi.ROLE_LABEL), timeout=10)
    if entry is None:
        raise SystemExit("FAIL: Ctrl+F shows no entry named 'Search'")

    # The hits, in time order, from the CLI's Chrome export.
    start_ns = whole["trace"]["start_ns"]
    chrome = cli(tilescope, "export", "--chrome-trace", trace)
    hits = sorted((round(e["ts"] * 1000) - start_ns, e["name"],
                   round((e["ts"] + e["dur"]) * 1000) - start_ns)
                  for e in chrome["traceEvents"]
                  if e.get("ph") == "X" and "run program" in e["name"].lower())
    hits = [(n, a, b) for a, n, b in hits]
    count = sum(lab["count"] for lab in whole["labels"] if "run program" in lab["name"].lower())
    if count != len(hits) or count < 2:
        failures.append(f"the CLI's labels count {count} 'run program' spans, its export "
                        f"{len(hits)}")
        return
    subprocess.run(["xdotool", "type", "--delay", "30", "run program"], check=True)
    if expect_status(failures, "typing 'run program'", entry, f"1 of {count}"):
        print(f"search: {entry.description} (CLI: {count} spans)")
    check_hit(failures, "the first hit", timeline, hits[0])

    key("Return")
    if expect_status(failures, "Enter", entry, f"2 of {count}"):
        check_hit(failures, "Enter", timeline, hits[1])
    key("shift+Return")
    if expect_status(failures, "Shift+Enter", entry, f"1 of {count}"):
        check_hit(failures, "Shift+Enter", timeline, hits[0])
    key("shift+F3")
    if expect_status(failures, "Shift+F3 from the first (wraps)", entry, f"{count} of {count}"):
        check_hit(failures, "Shift+F3 (wrapped)", timeline, hits[-1])
    key("F3")
    if expect_status(failures, "F3 from the last (wraps)", entry, f"1 of {count}"):
        check_hit(failures, "F3 (wrapped)", timeline, hits[0])
    nxt = find(app, lambda a: a.name == "Next" and a.getRole() == pyatspi.ROLE_PUSH_BUTTON)
    prev = find(app, lambda a: a.name == "Previous" and a.getRole() == pyatspi.ROLE_PUSH_BUTTON)
    if nxt is None or prev is None:
        failures.append("no Next / Previous buttons")
    else:
        click(nxt)
        if expect_status(failures, "the Next button", entry, f"2 of {count}"):
            check_hit(failures, "Next", timeline, hits[1])
        click(prev)
        if expect_status(failures, "the Previous button", entry, f"1 of {count}"):
            check_hit(failures, "Previous", timeline, hits[0])

    # Regular expressions: a narrower one, then a bad one.
    regex = find(app, lambda a: a.name == "Regular expression" and
                 a.getRole() in (pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_PUSH_BUTTON))
    if regex is None:
        failures.append("no 'Regular expression' toggle")
        return
    click(regex)
    key("ctrl+f")
    subprocess.run(["xdotool", "type", "--delay", "30", "Run program [12]"], check=True)
    want = sum(1 for n, a, b in hits if re.search("Run program [12]", n, re.I))
    if expect_status(failures, "regex 'Run program [12]'", entry, f"1 of {want}"):
        print(f"regex: {entry.description}")
        check_hit(failures, "the first regex hit",
                  timeline, [h for h in hits if re.search("Run program [12]", h[0], re.I)][0])
    key("ctrl+f")
    subprocess.run(["xdotool", "type", "--delay", "30", "Run ("], check=True)
    if not wait_for(lambda: "regular expression" in (entry.description or "")):
        failures.append(f"a bad expression shows no message: {entry.description!r}")
    else:
        print(f"bad regex: {entry.description}")
    click(regex)
    key("ctrl+f")
    subprocess.run(["xdotool", "type", "--delay", "30", "run program"], check=True)
    expect_status(failures, "substring again", entry, f"1 of {count}")
    key("Escape")


def main():
    app_path, tilescope, trace = sys.argv[1:4]
    whole = cli(tilescope, "trace", "--json", trace)
    failures = []
    with running_app(app_path, [trace]) as (proc, app, tmp):
        search_part(failures, app, tilescope, trace, whole)
        if proc.poll() is not None:
            failures.append(f"the app died (status {proc.returncode})")
    finish(failures)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""From the System Analyser to the Graph Analyser (issue 16), as a person
goes there.

1. Runs EXAMPLE (tutorial 4) with autoReport.all and PVTI_OPTIONS in a
   temporary directory, so its trace links its spans to its report.
2. Opens the trace: the header bar's "Open in Graph Analyser" button is
   there and disabled while nothing is selected.
3. Clicks "Graph construction" (a span without a report): still disabled.
4. Clicks "Run program 0 (main)": the timeline says it is selected and
   the button is enabled; Alt+G launches the Graph Analyser (a stand-in
   named by TILESCOPE_GRAPH_ANALYSER that records its arguments) with
   "--run 0 -- DIR", DIR the report's absolute directory.

    check-sa-graph-link.py APP TILESCOPE EXAMPLE
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import find, finish, plain, running_app, wait_for  # noqa: E402


def enabled(acc):
    """GTK 4.8 says "sensitive" (not "enabled") for a button whose action
    is enabled."""
    return acc.getState().contains(pyatspi.STATE_SENSITIVE)


def main():
    app_path, tilescope, example = sys.argv[1:4]
    failures = []
    with tempfile.TemporaryDirectory(prefix="sa-link-") as d:
        env = dict(os.environ,
                   POPLAR_ENGINE_OPTIONS=json.dumps({"autoReport.all": "true",
                                                     "autoReport.directory": "report"}),
                   PVTI_OPTIONS=json.dumps({"enable": "true", "directory": "trace"}))
        subprocess.run([os.path.abspath(example)], cwd=d, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        trace = glob.glob(os.path.join(d, "trace", "*.pvti"))[0]
        report = os.path.realpath(os.path.join(d, "report"))
        whole = json.loads(subprocess.run([tilescope, "trace", "--json", trace], check=True,
                                          capture_output=True, text=True).stdout)["trace"]
        start, length = whole["start_ns"], whole["end_ns"] - whole["start_ns"]
        events = json.loads(subprocess.run([tilescope, "export", "--chrome-trace", trace],
                                           check=True, capture_output=True,
                                           text=True).stdout)
        events = events["traceEvents"] if isinstance(events, dict) else events
        spans = {e["name"]: e for e in events if e.get("ph") == "X"}

        # The stand-in Graph Analyser: its arguments, one a line.
        args_file = os.path.join(d, "ga-args")
        stub = os.path.join(d, "ga-stub")
        with open(stub, "w") as f:
            f.write(f"#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > '{args_file}'\n")
        os.chmod(stub, 0o755)
        os.environ["TILESCOPE_GRAPH_ANALYSER"] = stub

        with running_app(app_path, [trace]) as (proc, app, tmp):
            timeline = find(app, lambda a: a.name == "Timeline" and
                            a.getRole() == pyatspi.ROLE_IMAGE)
            button = find(app, lambda a: plain(a.name).startswith("Open in Graph Analyser") and
                          a.getRole() == pyatspi.ROLE_PUSH_BUTTON)
            if timeline is None or button is None:
                raise SystemExit("FAIL: no 'Timeline' image or no 'Open in Graph Analyser' "
                                 "button")
            wait_for(lambda: "spans in view" in (timeline.description or ""))
            if enabled(button):
                failures.append("the button is enabled with nothing selected")

            x, y, w, h = timeline.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
            plot_x, plot_w = x + 200, w - 200
            row0 = y + 5 + 24 + 22 + 9  # depth 0 of the first thread (see check-system-analyser)

            def click_span(name):
                e = spans[name]
                mid_ns = int(e["ts"] * 1000 + e["dur"] * 500) - start
                px = plot_x + int(plot_w * mid_ns / length)
                subprocess.run(["xdotool", "mousemove", str(px), str(row0), "click", "1"],
                               check=True)
                return wait_for(lambda: f"; selected {name}," in (timeline.description or ""))

            if not click_span("Graph construction"):
                failures.append(f"no click selected 'Graph construction': "
                                f"{timeline.description!r}")
            elif wait_for(lambda: enabled(button), timeout=2):
                failures.append("the button is enabled for a span without a report")
            if not click_span("Run program 0 (main)"):
                failures.append(f"no click selected 'Run program 0 (main)': "
                                f"{timeline.description!r}")
            elif not wait_for(lambda: enabled(button)):
                failures.append("the button stays disabled for the run span")
            else:
                subprocess.run(["xdotool", "key", "alt+g"], check=True)
                want = ["--run", "0", "--", report]
                if not wait_for(lambda: os.path.exists(args_file) and
                                open(args_file).read().split("\n")[:4] == want):
                    got = open(args_file).read() if os.path.exists(args_file) else None
                    failures.append(f"Alt+G launched the Graph Analyser with {got!r}, "
                                    f"not {want!r}")
                else:
                    print("launched with:", want)
    finish(failures)


if __name__ == "__main__":
    main()

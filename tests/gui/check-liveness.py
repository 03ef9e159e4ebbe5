#!/usr/bin/python3
"""The Liveness view, used as a person would.

Opens REPORT, selects "Liveness" in the sidebar and checks against
`tilescope summary --json` (liveness.peakStep, maxLiveBytes, alwaysLiveBytes):
1. the caption under the chart names the peak step, its not-always-live
   bytes (maxLiveBytes - alwaysLiveBytes), the maximum live bytes and the
   always-live bytes, with the text summary's thousands separators;
2. the chart ("Liveness by step") says in its accessible description that
   its maximum is those bytes at that step;
3. "Include Always-Live" stacks the always-live bytes: the chart's maximum
   becomes maxLiveBytes.

    check-liveness.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import re
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (click, find, finish, other_views, plain, running_app,  # noqa: E402
                        show_view, text_of, wait_for)



def main():
    app_path, tilescope, report = sys.argv[1:4]
    summary = json.loads(subprocess.run([tilescope, "summary", "--json", report], check=True,
                                        capture_output=True, text=True).stdout)
    live = summary["liveness"]
    step, max_live, always = live["peakStep"], live["maxLiveBytes"], live["alwaysLiveBytes"]
    peak = max_live - always
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Liveness") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Liveness'")
        prune = other_views("Liveness")
        caption = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                       text_of(a).startswith("Peak at step"), prune=prune)
        chart = find(app, lambda a: a.name == "Liveness by step", prune=prune)
        if caption is None or chart is None:
            raise SystemExit("FAIL: the Liveness view has no peak caption or no chart")
        text = text_of(caption)
        m = re.match(r"Peak at step (\d+) \(.*\): ([\d,]+) bytes not always live; maximum "
                     r"live bytes \(including always-live\) ([\d,]+); always-live bytes "
                     r"([\d,]+)$", text)
        if m is None:
            failures.append(f"the caption does not read as expected: {text!r}")
        else:
            got = (int(m.group(1)), m.group(2), m.group(3), m.group(4))
            want = (step, f"{peak:,}", f"{max_live:,}", f"{always:,}")
            if got != want:
                failures.append(f"the caption says step, peak, max, always-live {got}; "
                                f"the summary has {want}")
        if not wait_for(lambda: f"{peak:,}" in (chart.description or "") and
                        f"Step {step}:" in (chart.description or "")):
            desc = chart.description or ""
            failures.append(f"the chart's description does not name its maximum "
                            f"({peak:,} B at step {step}): {desc!r}")
        check = find(app, lambda a: plain(a.name) == "Include Always-Live" and
                     a.getRole() in (pyatspi.ROLE_CHECK_BOX, pyatspi.ROLE_TOGGLE_BUTTON),
                     prune=prune)
        if check is None:
            raise SystemExit("FAIL: no 'Include Always-Live' check box")
        click(check)
        if not wait_for(lambda: f"{max_live:,}" in (chart.description or "")):
            failures.append(f"with Include Always-Live the chart's maximum is not "
                            f"{max_live:,}: {chart.description!r}")
        print(f"liveness: {text}\nchart: {chart.description}")
    finish(failures)


if __name__ == "__main__":
    main()

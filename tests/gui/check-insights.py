#!/usr/bin/python3
"""The Insights view read through AT-SPI.

Opens REPORT, selects "Insights" in the sidebar and reads the level bar of
IPU 0 ("IPU 0 memory used"): its value must be the memory used including
gaps of `tilescope summary --json --show-per-ipu-memory`'s IPU 0 part and
its maximum that part's capacity; the verdict ("insights.verdict") must say
whether the program fits as the JSON's out-of-memory tiles say.

    check-insights.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import json
import os
import subprocess
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (find, finish, other_views, running_app, show_view, text_of,  # noqa: E402
                        wait_for)


def main():
    app_path, tilescope, report = sys.argv[1:4]
    doc = json.loads(subprocess.run([tilescope, "summary", "--json", "--show-per-ipu-memory",
                                     report], check=True, capture_output=True,
                                    text=True).stdout)
    ipu0 = next(m for m in doc["memory"] if m.get("ipu") == 0)
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Insights") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Insights'")
        prune = other_views("Insights")
        bar = find(app, lambda a: a.name == "IPU 0 memory used" and
                   a.getRole() == pyatspi.ROLE_LEVEL_BAR, prune=prune)
        if bar is None:
            raise SystemExit("FAIL: no level bar named 'IPU 0 memory used'")
        value = bar.queryValue()
        used, cap = ipu0["includingGaps"], ipu0["capacity"]
        if not wait_for(lambda: round(value.currentValue) == min(used, cap) and
                        round(value.maximumValue) == cap):
            failures.append(f"IPU 0 shows {value.currentValue:,.0f} of "
                            f"{value.maximumValue:,.0f} B; the report says {used:,} of {cap:,}")
        # The headline, a sentence a reader reads as it is.
        verdict = find(app, lambda a: a.getRole() == pyatspi.ROLE_LABEL and
                       text_of(a).startswith("The program "), prune=prune)
        fits = not ipu0.get("outOfMemoryTiles")
        if verdict is not None:
            wait_for(lambda: ("fits" in text_of(verdict)) == fits)
        text = text_of(verdict) if verdict is not None else ""
        if verdict is None or (("fits" in text) != fits):
            failures.append(f"the verdict {text!r} does not match "
                            f"{'no' if fits else 'some'} out-of-memory tiles")
        print(f"insights: IPU 0 {value.currentValue:,.0f} of {value.maximumValue:,.0f} B; "
              f"verdict: {text}")
    finish(failures)


if __name__ == "__main__":
    main()

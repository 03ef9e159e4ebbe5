#!/usr/bin/python3
# Reads the demo chart over AT-SPI as a screen reader would: its role,
# its label and its description, which must say what it shows (the item
# count, the maximum and where, the selected tile). Run by a11y.sh inside
# a D-Bus session with the accessibility bus.
#
# usage: a11y.py BENCH_CHARTKIT
import signal
import subprocess
import sys
import time

import pyatspi

# Meson's timeout sends SIGTERM: unwind, so that the demo is stopped.
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(f"stopped by signal {signum}"))


def find_chart(acc, depth=0):
    if depth > 12:
        return None
    try:
        if acc.getRoleName() == "image":
            return acc
        for i in range(acc.childCount):
            found = find_chart(acc.getChildAtIndex(i), depth + 1)
            if found:
                return found
    except Exception:
        pass
    return None


# How long to wait for the chart (seconds): many times what an idle
# machine needs, so that a busy one passes too.
WAIT = 120


def main():
    # The demo holds the chart, tile 4,100 selected, for HOLD seconds:
    # longer than the wait for it, and stopped when the test is done, so
    # nothing depends on how fast the chart comes up.
    proc = subprocess.Popen([sys.argv[1], "--hold", str(WAIT + 60), "--frames", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    chart = None
    try:
        end = time.time() + WAIT
        while time.time() < end and proc.poll() is None:
            for app in pyatspi.Registry.getDesktop(0):
                try:
                    if app and app.get_process_id() == proc.pid:
                        chart = find_chart(app)
                except Exception:
                    pass
            if chart and "selected" in (chart.description or ""):
                break
            time.sleep(0.25)
        if not chart:
            print("no chart (role image) found over AT-SPI"
                  + (f" (the demo exited: {proc.returncode})" if proc.poll() is not None else ""))
            return 1
        name, desc = chart.name, chart.description or ""
        print(f"name: {name}\ndescription: {desc}")
        failures = []
        if name != "Memory by tile":
            failures.append(f"label {name!r}")
        for want in ("5888 items", "maximum Tile 4100 (IPU 2)", "selected Tile 4100 (IPU 2)"):
            if want not in desc:
                failures.append(f"description lacks {want!r}")
        states = chart.getState()
        if not states.contains(pyatspi.STATE_FOCUSABLE):
            failures.append("not focusable")
        for f in failures:
            print("FAIL:", f)
        return 1 if failures else 0
    finally:
        proc.kill()
        proc.wait()


sys.exit(main())

#!/bin/sh
# Runs a11y.py with the demo chart inside a D-Bus session with the
# accessibility bus (facts in ../shared/gui-testing.md). Meson runs this
# under xvfb-run and dbus-run-session.
# usage: a11y.sh A11Y_PY BENCH_CHARTKIT
/usr/libexec/at-spi-bus-launcher --launch-immediately &
bus=$!
sleep 1
GSK_RENDERER=cairo /usr/bin/python3 "$1" "$2"
rc=$?
kill "$bus" 2>/dev/null
exit $rc

#!/bin/sh
# Runs a11y.py with the demo chart inside a D-Bus session with the
# accessibility bus (facts in ../shared/gui-testing.md). Meson runs this
# under xvfb-run and dbus-run-session.
# usage: a11y.sh A11Y_PY BENCH_CHARTKIT
/usr/libexec/at-spi-bus-launcher --launch-immediately &
bus=$!
# The chart finds the accessibility bus by its name on the session bus:
# start once the launcher owns it (polled, up to two minutes), not after
# a fixed time.
end=$(($(date +%s) + 120))
until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner string:org.a11y.Bus 2>/dev/null |
		grep -q "boolean true"; do
	if ! kill -0 "$bus" 2>/dev/null || [ "$(date +%s)" -ge "$end" ]; then
		echo "FAIL: the accessibility bus (org.a11y.Bus) never came up"
		kill "$bus" 2>/dev/null
		exit 1
	fi
	sleep 0.1
done
GSK_RENDERER=cairo /usr/bin/python3 "$1" "$2"
rc=$?
kill "$bus" 2>/dev/null
exit $rc

#!/bin/sh
# Runs a GUI test script (python3 + pyatspi) the way a user's desktop would
# run the app: under Xvfb, in its own D-Bus session with the AT-SPI bus.
# Exit 77 (skipped) when a piece of that is missing.
#   run-gui-test.sh SCRIPT [ARGS...]
set -u
for tool in Xvfb dbus-run-session dbus-send; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: $tool is not installed"
		exit 77
	fi
done
launcher=
for p in /usr/libexec/at-spi-bus-launcher /usr/lib/at-spi2-core/at-spi-bus-launcher; do
	[ -x "$p" ] && launcher=$p && break
done
if [ -z "$launcher" ]; then
	echo "SKIP: at-spi-bus-launcher (at-spi2-core) is not installed"
	exit 77
fi
# Debian's python3-pyatspi is installed for the system Python only.
if ! /usr/bin/python3 -c 'import pyatspi' >/dev/null 2>&1; then
	echo "SKIP: python3-pyatspi is not installed"
	exit 77
fi
export GSK_RENDERER=cairo GTK_A11Y=atspi
# What the apps remember (GSettings) stays in the test: the memory backend,
# unless the test chose one (check-remembered.py: a keyfile in its home).
export GSETTINGS_BACKEND="${GSETTINGS_BACKEND:-memory}"
# atspi_util is imported from the source tree: write no bytecode there.
export PYTHONDONTWRITEBYTECODE=1
export AT_SPI_LAUNCHER="$launcher"
# The app finds the accessibility bus by its name on the session bus:
# the test starts once the launcher owns it (polled, up to two minutes),
# not after a fixed time.
# The display is the test's own (../run-under-x.sh), so tests run side by side.
exec "$(dirname "$0")/../run-under-x.sh" dbus-run-session -- sh -c '
	"$AT_SPI_LAUNCHER" --launch-immediately & bus=$!
	end=$(($(date +%s) + 120))
	until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
			org.freedesktop.DBus.NameHasOwner string:org.a11y.Bus 2>/dev/null |
			grep -q "boolean true"; do
		if ! kill -0 $bus 2>/dev/null || [ "$(date +%s)" -ge $end ]; then
			echo "FAIL: the accessibility bus (org.a11y.Bus) never came up"
			kill $bus 2>/dev/null
			exit 1
		fi
		sleep 0.1
	done
	/usr/bin/python3 "$@"; rc=$?
	kill $bus 2>/dev/null
	exit $rc' sh "$@"

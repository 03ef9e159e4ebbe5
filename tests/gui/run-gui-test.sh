#!/bin/sh
# Runs a GUI test script (python3 + pyatspi) the way a user's desktop would
# run the app: under Xvfb, in its own D-Bus session with the AT-SPI bus.
# Exit 77 (skipped) when a piece of that is missing.
#   run-gui-test.sh SCRIPT [ARGS...]
set -u
for tool in xvfb-run dbus-run-session; do
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
export AT_SPI_LAUNCHER="$launcher"
exec xvfb-run -a -s "-screen 0 1400x1000x24 -noreset" dbus-run-session -- sh -c '
	"$AT_SPI_LAUNCHER" --launch-immediately & bus=$!
	sleep 1
	/usr/bin/python3 "$@"; rc=$?
	kill $bus 2>/dev/null
	exit $rc' sh "$@"

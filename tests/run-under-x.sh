#!/bin/sh
# Runs a command on an X display of its own: an Xvfb that chooses a free
# display number itself (-displayfd) and says so once it accepts
# connections. xvfb-run -a guesses a number, and two tests started at once
# could guess the same one; with this the gui tests run side by side.
#   run-under-x.sh COMMAND [ARGS...]
# XVFB_SCREEN sets the screen (default 1400x1000x24). Exit 77 (skipped)
# without Xvfb.
set -u
if ! command -v Xvfb >/dev/null 2>&1; then
	echo "SKIP: Xvfb is not installed"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-x.XXXXXX") || exit 1
Xvfb -displayfd 3 -screen 0 "${XVFB_SCREEN:-1400x1000x24}" -noreset -nolisten tcp \
	3>"$tmp/display" >"$tmp/log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 143' TERM INT
# The display number arrives when the server is ready (polled, up to two
# minutes on a loaded machine).
end=$(($(date +%s) + 120))
while [ ! -s "$tmp/display" ]; do
	if ! kill -0 $xvfb 2>/dev/null || [ "$(date +%s)" -ge $end ]; then
		echo "FAIL: Xvfb did not start:"
		cat "$tmp/log"
		exit 1
	fi
	sleep 0.1
done
DISPLAY=:$(head -n 1 "$tmp/display")
export DISPLAY
"$@"

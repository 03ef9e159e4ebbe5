#!/usr/bin/env bash
# Renders the HTML pages of `tilescope summary|diff|trace --format=html`
# (issue 31) in headless Chromium, light and dark (prefers-color-scheme),
# 1280 px wide, cropped at 1600 px, through tests/browser/check-page.py
# (which checks each page as it goes):
#   docs/screenshots/page-<summary|diff|trace|history>-<light|dark>.png
# usage: scripts/screenshots-pages.sh [REPORT] [OUT_DIR]
#   REPORT   the summary's report, default sample-reports/tut5_ml
#   OUT_DIR  default docs/screenshots
# The diff page compares COMPARE_A with COMPARE_B (default
# sample-reports/tut7_mk1_small and sample-reports/tut7_mk1) with a
# memory limit they exceed (the failed banner); the trace page is of
# SYSTEM_TRACE (default sample-reports/tut5_ml/tut5_ml.pvti); the history
# page is `history report` of a store of the sample reports as six
# commits (tests/browser/check-history-page.sh makes it).
# scripts/screenshots.sh runs it last. Needs chromium (scripts/deps.sh).
set -eu
. "$(dirname "$0")/screenshot-lib.sh"
report=${1:-sample-reports/tut5_ml}
screenshot_setup "${2:-docs/screenshots}"
out=$screenshot_out
ts=$(screenshot_app cli-summary/tilescope)
# page NAME CHECK-PAGE-OPTION... -- SUBCOMMAND ARG...: both pictures of one
# page; a check that fails is said, and the pictures taken are kept.
page() {
	local name=$1
	shift
	python3 tests/browser/check-page.py --name "page-$name" --screenshots "$out" "$@" ||
		echo "screenshots-pages.sh: the $name page failed a check (above)" >&2
	ls "$out/page-$name"-*.png
}
page summary --tilescope "$ts" -- summary "$report"
page diff --cut-json --tilescope "$ts" -- diff --max-memory-increase=5% \
	"${COMPARE_A:-sample-reports/tut7_mk1_small}" "${COMPARE_B:-sample-reports/tut7_mk1}"
page trace --json-arg=--call-tree --tilescope "$ts" -- trace \
	"${SYSTEM_TRACE:-sample-reports/tut5_ml/tut5_ml.pvti}"
sh tests/browser/check-history-page.sh "$ts" sample-reports tests/browser/check-page.py \
	--name page-history --screenshots "$out" ||
	echo "screenshots-pages.sh: the history page failed a check (above)" >&2
ls "$out/page-history"-*.png

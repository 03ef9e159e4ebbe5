#!/bin/sh
# The page of `tilescope history report` in Chromium (check-page.py): a
# store of the sample reports added as six commits of main, the page of
# its default charts. Exits as check-page.py does (77: no chromium).
#
# usage: check-history-page.sh TILESCOPE SAMPLE_DIR CHECK_PAGE [CHECK-PAGE OPTION...]
set -u
[ $# -ge 3 ] || { echo "usage: check-history-page.sh TILESCOPE SAMPLE_DIR CHECK_PAGE [OPTION...]" >&2; exit 2; }
case $1 in /*) ts=$1 ;; *) ts=$(pwd)/$1 ;; esac
case $2 in /*) samples=$2 ;; *) samples=$(pwd)/$2 ;; esac
check_page=$3
shift 3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-history-page.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
# In the directory of the store, so that the page names it "h.db".
(
	cd "$tmp" || exit 1
	i=0
	for r in tut7_mk1_small tut7_mk1 tut7_mk1 tut4_profiling tut5_ml tut7_mk1_small; do
		i=$((i + 1))
		"$ts" history add h.db "$samples/$r" --commit "$(printf '%s' "$i" | sha1sum | cut -c1-40)" \
			--branch main --time $((i * 3600)) >/dev/null || { echo "adding $r failed" >&2; exit 1; }
	done
	"$ts" history report h.db -o history.html
) || exit 1
python3 "$check_page" "$@" "$tmp/history.html"

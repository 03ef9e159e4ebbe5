#!/bin/sh
# `tilescope history report`: the page of a store of the sample reports
# (checked by html_check.py; its change points are those of `history
# changes --format json`, its charts the series of the largest relative
# change, or those --metric names; the same bytes twice); a store of
# 10,000 runs written through SQL (a page under 2 MB with every change
# marked, a one-commit spike in its column's hover); the error paths.
#
# usage: check-cli-history-report.sh TILESCOPE SAMPLE_DIR HISTORY_SQL
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 3 ] || { echo "usage: check-cli-history-report.sh TILESCOPE SAMPLE_DIR HISTORY_SQL" >&2; exit 2; }
ts=$(absolute "$1")
samples=$(absolute "$2")
schema=$(absolute "$3")
html_check=$(absolute "$(dirname "$0")/html_check.py")
enter_tmp

# Five commits of main, two of them also run under the label "alt".
i=0
for r in tut7_mk1_small tut7_mk1 tut7_mk1 tut5_ml tut7_mk1_small; do
	i=$((i + 1))
	"$ts" history add h.db "$samples/$r" --commit "c${i}aaaa" --branch main --time $((i * 100)) \
		>/dev/null || fail "add c$i exited $?"
done
"$ts" history add h.db "$samples/tut7_mk1_small" --commit c1aaaa --label alt --time 100 \
	>/dev/null && "$ts" history add h.db "$samples/tut7_mk1" --commit c2aaaa --label alt \
	--time 200 >/dev/null || fail "adding the alt runs"

# page.py PAGE: the embedded document (after html_check.py's checks).
cat >page.py <<PY
import json, re, sys
sys.path.insert(0, "$(dirname "$html_check")")
import html_check
def load(path):
    text = open(path, encoding="utf-8").read()
    doc, n = html_check.check_page(text)
    return text, doc, n
PY

"$ts" history report h.db -o page.html || fail "report exited $?"
"$ts" history changes h.db --format json >changes.json || fail "changes exited $?"
python3 - <<'PY' && pass "report: the 24 series of the largest relative change" || fail "report's charts"
import json, math, re
from page import load
text, doc, n = load("page.html")
changes = json.load(open("changes.json"))["changes"]
assert n > 100, n
# Each series' largest |relative| change (a change from 0: infinite).
score = {}
for c in changes:
    k = (c["metric"], c["label"])
    r = math.inf if c["relative"] is None else abs(c["relative"])
    score[k] = max(score.get(k, -1), r)
want = sorted(score, key=lambda k: (-score[k], k))[:24]
series = doc["series"]
got = [(series[c["series"]]["metric"], series[c["series"]]["label"]) for c in doc["charts"]]
assert got == want, (got[:5], want[:5])
assert len(set(score)) > 24 and "at most 24 charts" in doc["selection"], doc["selection"]
# Each chart's changes: those `history changes` prints, in its order,
# each marked on its chart and a row of its table.
figures = re.findall(r'<figure class="chart" id="chart-(\d+)">(.*?)</figure>(.*?)(?=<figure|</section>)',
                     text, re.S)
assert len(figures) == 24, len(figures)
for k, (chart, (num, fig, table)) in enumerate(zip(doc["charts"], figures)):
    key = got[k]
    mine = doc["changes"][chart["firstChange"]:chart["firstChange"] + chart["changes"]]
    assert mine == [c for c in changes if (c["metric"], c["label"]) == key], key
    assert fig.count('<g class="change"><title>') == len(mine), key
    assert table.count("<tr>") == len(mine) + 1, key  # and the header
    for c in mine:
        assert ">%s<" % c["commit"][:12] in table, (key, c["commit"])
# The table of all: every series `history show --format json` has, with
# its count of changes; the labelled runs are series of their own.
rows = {(s["metric"], s["label"]): s for s in series}
assert ("cycles.total", "alt") in rows and ("cycles.total", "") in rows
for k, s in rows.items():
    assert s["changes"] == sum(1 for c in changes if (c["metric"], c["label"]) == k), k
assert rows[("cycles.total", "")]["commits"] == 5 and rows[("cycles.total", "alt")]["commits"] == 2
PY

"$ts" history report h.db -o again.html || fail "report again exited $?"
cmp -s page.html again.html && pass "report: the same bytes twice" || fail "report: the page differs"

# --metric, twice: those metrics' series by name; --branch, --last.
"$ts" history report h.db -o pick.html --metric cycles.total --metric 'memory.total*' \
	--branch main --last 3 || fail "report --metric exited $?"
"$ts" history show h.db --metric 'memory.total*' --format json >show.json
python3 - <<'PY' && pass "report --metric A --metric B --branch --last" || fail "report --metric"
import json
from page import load
text, doc, n = load("pick.html")
names = sorted(["cycles.total"] + [m["metric"] for m in json.load(open("show.json"))["metrics"]])
series = doc["series"]
assert [series[c["series"]]["metric"] for c in doc["charts"]] == names, doc["charts"]
assert all(s["label"] == "" and s["commits"] == 3 for s in series), series
assert "'cycles.total' and 'memory.total*'" in doc["selection"], doc["selection"]
assert doc["branch"] == "main" and doc["last"] == 3
PY

# 10,000 runs through SQL (history.sql), in commit order: cycles.total
# steps at 2,500 and 7,500 and spikes for one commit at 5,000;
# memory.total steps at 9,999 (the newest); flat stays flat; wall.ms is
# noisy (3 samples a commit) and steps by one sigma at 6,000: a range of
# commits, "unsure, rerun" (seeded: the same every time).
python3 - "$schema" <<'PY' || fail "writing the big store"
import hashlib, random, sqlite3, sys
db = sqlite3.connect("big.db")
db.executescript(open(sys.argv[1]).read())
db.execute("BEGIN")
metrics = [("cycles.total", "cycles", 0), ("memory.total", "bytes", 0), ("flat", "count", 0),
           ("wall.ms", "count", 1)]
db.executemany("INSERT INTO metric (id, name, unit, noisy) VALUES (?, ?, ?, ?)",
               [(i + 1,) + m for i, m in enumerate(metrics)])
rng = random.Random(7)
runs, figs = [], []
for i in range(10000):
    sha = hashlib.sha1(b"%d" % i).hexdigest()
    runs.append((i + 1, sha, "main", i, "", "ci", "r", "%064x" % i))
    cyc = 1000000 + (20000 if i >= 2500 else 0) - (5000 if i >= 7500 else 0)
    figs += [(1, i + 1, 0, 3000000 if i == 5000 else cyc),
             (2, i + 1, 0, 640000 + (4096 if i == 9999 else 0)),
             (3, i + 1, 0, 42)]
    figs += [(4, i + 1, s, int(rng.gauss(1000 if i < 6000 else 1030, 30))) for s in range(3)]
db.executemany("INSERT INTO run (id, commit_sha, branch, time, label, host, report_path, "
               "report_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", runs)
db.executemany("INSERT INTO figure VALUES (?, ?, ?, ?)", figs)
db.commit()
PY
"$ts" history report big.db -o big.html || fail "report of 10,000 runs exited $?"
"$ts" history changes big.db --format json >big.json || fail "changes of big.db exited $?"
python3 - <<'PY' && pass "report of 10,000 runs: < 2 MB, every change marked" || fail "report of big.db"
import hashlib, json, os, re
from page import load
size = os.path.getsize("big.html")
assert size < 2_000_000, size
text, doc, n = load("big.html")
assert "\ufffd" not in text, text[text.index("\ufffd") - 80:][:120]
changes = json.load(open("big.json"))["changes"]
found = {(c["metric"], c["firstCommit"][:12]) for c in changes}
assert len([c for c in changes if c["metric"] == "cycles.total"]) == 4, changes
assert [(c["commitsInRange"] > 1, c["verdict"]) for c in changes if c["metric"] == "wall.ms"] == \
    [(True, "unsure, rerun")], changes
key = lambda c: json.dumps(c, sort_keys=True)
assert sorted(map(key, doc["changes"])) == sorted(map(key, changes))
figures = dict(re.findall(r'<figure class="chart" id="chart-\d+">\s*<figcaption>\d+\. ([^<]*)</figcaption>(.*?)</figure>',
                          text, re.S))
assert set(figures) == {"cycles.total", "memory.total", "wall.ms"}, list(figures)
for metric, fig in figures.items():
    marks = re.findall(r'<g class="change[^"]*"><title>[^<]*(?:at|within) ([0-9a-f]{12})', fig)
    assert sorted(marks) == sorted(c for m, c in found if m == metric), (metric, marks)
    assert ('<g class="change unsure">' in fig) == (metric == "wall.ms"), metric
    hits = fig.count('<rect class="hit"')
    assert 0 < hits <= 300, (metric, hits)
# The spike of one commit in 10,000 is its column's largest.
spike = hashlib.sha1(b"5000").hexdigest()[:12]
assert re.search(r'<rect class="hit"[^>]*><title>Commit [0-9,]+.[0-9,]+\nLargest 3,000,000 cycles '
                 r'at Commit %s\n' % spike, figures["cycles.total"]), "the spike is in no hover"
print("big.html: %d bytes, %d figures" % (size, n))
PY

# Errors: exit 2, one line.
python3 -c "import sqlite3, sys; sqlite3.connect('empty.db').executescript(open(sys.argv[1]).read())" \
	"$schema" || fail "making an empty store"
check_error "cannot open the history store" history report missing.db -o x.html
check_error "not a Tilescope history store (it is a profile.pop report)" \
	history report "$samples/tut7_mk1/profile.pop" -o x.html
check_error "no metric matches 'nothing.\*'" history report h.db -o x.html --metric cycles.total \
	--metric 'nothing.*'
check_error "h.db: no runs on branch nope" history report h.db -o x.html --branch nope
check_error "empty.db: no runs" history report empty.db -o x.html
check_error "report's --format is html, not 'json'" history report h.db -o x.html --format json
check_error "report needs -o FILE" history report h.db
check_error "report does not take --commit" history report h.db -o x.html --commit c1
[ -e x.html ] && fail "a failed report wrote x.html"
[ -e missing.db ] && fail "report created missing.db"
exit $status

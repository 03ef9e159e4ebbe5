"""`tilescope summary --format=html` on every sample report:
  - the page is well formed and every data-json figure shows the value at
    its pointer (html_check.py), and there are figures of each part;
  - the embedded document is what --format=json (and --json) print;
  - the charts and tables the page draws from reportlib are there, and
    the largest variable's row holds the report's largest variable;
  - the tables of names (largest variables, programs, step types,
    out-of-memory tiles, tips) have a cell pointing at each row of the
    document, whose largest variables are the report's and whose cycles
    by program add up to those by step type;
  - the Insights' tips: the exchange-code tip names the fullest tile (by
    bytes in use, the JSON's maxTileExcludingGaps) with its internal
    exchange code from `tilescope sql`, exactly when that code is 20% or
    more of the tile's bytes; no out-of-memory tip without such tiles;
    the "nothing points to a saving" line exactly when there is no tip;
  - at most 2 MB, and the same bytes when written again (to stdout);
  - a missing report and a bad --format: exit 2, one "tilescope:" line.

usage: check-cli-summary-html.py TILESCOPE SAMPLE_DIR
"""

import html
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import html_check  # noqa: E402

BUDGET = 2 * 1024 * 1024
# Pointers every page shows, one of each part of the summary.
POINTERS = ["/target/numIpus", "/target/memoryPerTile", "/graph/numVertices",
            "/memory/0/includingGaps", "/memory/0/byRegion/interleaved",
            "/memory/0/byDataType/notOverlappedTotal", "/memory/0/vertexData/total",
            "/liveness/maxLiveBytes", "/execution/totalCycles", "/execution/tileBalance"]
# What the page draws from reportlib: the charts' ids and tables' captions.
PARTS = ['id="memory-per-tile"', 'id="memory-by-category"', 'id="tile-histogram"',
         'id="liveness-chart"', 'id="cycles-by-step-type"', 'id="cycles-by-program"',
         'id="execution-lanes"', "Largest variables", 'id="out-of-memory"']

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def run(*args):
    return subprocess.run([ts, *args], capture_output=True)


def largest_variable_bytes(report):
    r = run("sql", report, "SELECT max(bytes) FROM variable")
    rows = [ln for ln in r.stdout.decode().split("\n") if ln.strip().isdigit()]
    return int(rows[0]) if r.returncode == 0 and rows else None


EXCHANGE_TIP = re.compile(r"On tile (\d+), the fullest by bytes in use \(excluding gaps\), "
                          r"internal exchange code takes ([\d,]+) B of its ([\d,]+) B in use")


def check_tips(name, report, page_text, doc):
    section = page_text.split('id="tips"', 1)[-1].split("</section>", 1)[0]
    tips = [html.unescape(t) for t in re.findall(r"<p[^>]*>(.*?)</p>", section, re.S)]
    # Each tip is the document's, at its pointer (html_check compared the texts).
    pointed = re.findall(r'<p data-json="/tips/(\d+)/text">', section)
    if pointed != [str(i) for i in range(len(doc["tips"]))]:
        fail("%s: the page's tips point at %s, the document holds %d" %
             (name, pointed, len(doc["tips"])))
    fullest = doc["memory"][0]["maxTileExcludingGaps"]
    r = run("sql", report, "SELECT sum(tile_value(by_tile, %d)) FROM memory_category "
            "WHERE category = 'internalExchangeCode'" % fullest["tile"])
    code = [int(x) for x in r.stdout.decode().split() if x.isdigit()]
    want_exchange = bool(code) and code[0] >= 0.2 * fullest["bytes"]
    exchange = [m for m in map(EXCHANGE_TIP.search, tips) if m]
    if want_exchange != bool(exchange):
        fail("%s: exchange-code tip %s, but tile %d holds %s B of code in %d B" %
             (name, "shown" if exchange else "missing", fullest["tile"], code, fullest["bytes"]))
    for m in exchange:
        got = (int(m.group(1)), int(m.group(2).replace(",", "")), int(m.group(3).replace(",", "")))
        if got != (fullest["tile"], code[0], fullest["bytes"]):
            fail("%s: the exchange-code tip says tile, code, bytes %s, not %s" %
                 (name, got, (fullest["tile"], code[0], fullest["bytes"])))
    if not doc["memory"][0]["outOfMemoryTiles"] and any(t.startswith("To fit") for t in tips):
        fail("%s: an out-of-memory tip without out-of-memory tiles" % name)
    nothing = [t for t in tips if t.startswith("Nothing in this report points")]
    if bool(nothing) != (len(tips) == 1 and len(nothing) == 1) or not tips:
        fail("%s: tips %r" % (name, tips))
    return len(tips) - len(nothing)


def check_names(name, report, page_text, doc):
    """The tables of names come from the document: the largest variables
    are the report's (by `tilescope sql`), the programs' cycles add up to
    the step types' (both every step of the run), and the page points at
    each row."""
    r = run("sql", report, "SELECT bytes FROM variable ORDER BY bytes DESC LIMIT 20")
    want = [int(x) for x in r.stdout.decode().split() if x.isdigit()]
    got = [v["bytes"] for v in doc["largestVariables"]]
    if r.returncode != 0 or got != want:
        fail("%s: largestVariables hold %s B, the report's largest %s" % (name, got, want))
    rows = [('data-json="/largestVariables/%d/name"', len(doc["largestVariables"]))]
    ex = doc["execution"]
    if ex:
        other = ex["otherProgramCycles"] or {"cycles": 0}
        by_program = sum(p["cycles"] for p in ex["cyclesByProgram"]) + other["cycles"]
        by_type = sum(t["cycles"] for t in ex["cyclesByStepType"])
        if by_program != by_type:
            fail("%s: cycles by program add up to %d, by step type to %d" %
                 (name, by_program, by_type))
        rows += [('data-json="/execution/cyclesByProgram/%d/cycles"', len(ex["cyclesByProgram"])),
                 ('data-json="/execution/cyclesByStepType/%d/type"', len(ex["cyclesByStepType"]))]
    rows.append(('data-json="/memory/0/outOfMemoryTileBytes/%d/bytes"',
                 len(doc["memory"][0]["outOfMemoryTileBytes"])))
    for fmt, n in rows:
        missing = [i for i in range(n) if fmt % i not in page_text]
        if missing:
            fail("%s: no cell at %s" % (name, fmt % missing[0]))


def check_report(report, tmp):
    name = os.path.basename(report)
    page = os.path.join(tmp, name + ".html")
    r = run("summary", "--format=html", "-o", page, report)
    if r.returncode != 0:
        fail("%s: --format=html exited %d: %s" % (name, r.returncode, r.stderr.decode()))
        return
    data = open(page, "rb").read()
    if len(data) > BUDGET:
        fail("%s: the page is %d bytes, past %d" % (name, len(data), BUDGET))
    try:
        doc, n = html_check.check_page(data.decode("utf-8"))
    except html_check.PageError as e:
        fail("%s: %s" % (name, e))
        return
    page_text = data.decode("utf-8")
    missing = [p for p in POINTERS if 'data-json="%s"' % p not in page_text]
    if missing:
        fail("%s: no figure at %s" % (name, ", ".join(missing)))
    for opt in (["--format=json"], ["--json"]):
        j = run("summary", *opt, report)
        if j.returncode != 0 or json.loads(j.stdout) != doc:
            fail("%s: the embedded document is not what %s prints" % (name, opt[0]))
    missing = [p for p in PARTS if p not in page_text]
    if missing:
        fail("%s: the page lacks %s" % (name, ", ".join(missing)))
    # The first row of the largest variables holds the largest variable.
    biggest = largest_variable_bytes(report)
    table = page_text.split("Largest variables", 1)[-1].split("</table>", 1)[0]
    if biggest is None or "{:,}".format(biggest) not in table.split("</tr>", 2)[1]:
        fail("%s: the largest variables' first row is not the report's largest (%s B)" %
             (name, biggest))
    check_names(name, report, page_text, doc)
    n_tips = check_tips(name, report, page_text, doc)
    again = run("summary", "--format=html", report)
    if again.returncode != 0 or again.stdout != data:
        fail("%s: a second page (to stdout) differs from the first" % name)
    print("ok: %s: %d bytes, %d figures agree with the JSON, %d tip(s)" %
          (name, len(data), n, n_tips))


def check_error(args, what):
    r = run("summary", *args)
    lines = [ln for ln in r.stderr.decode().splitlines() if ln.startswith("tilescope: ")]
    if r.returncode != 2 or len(lines) != 1 or r.stdout:
        fail("%s: exit %d, stderr %r" % (what, r.returncode, r.stderr.decode()))
    else:
        print("ok: %s: exit 2, %s" % (what, lines[0]))


if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
ts, samples = os.path.abspath(sys.argv[1]), sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    reports = sorted(os.path.join(samples, d) for d in os.listdir(samples)
                     if os.path.exists(os.path.join(samples, d, "profile.pop")))
    if not reports:
        fail("no sample reports in " + samples)
    for report in reports:
        check_report(report, tmp)
    check_error(["--format=html", os.path.join(tmp, "missing")], "a missing report")
    check_error(["--format=pdf", reports[0] if reports else "x"], "--format=pdf")
    if sorted(os.listdir(tmp)) != sorted(os.path.basename(r) + ".html" for r in reports):
        fail("a failed command left a file behind: %s" % os.listdir(tmp))
sys.exit(1 if failures else 0)

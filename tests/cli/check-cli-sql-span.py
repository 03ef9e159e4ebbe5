#!/usr/bin/env python3
"""`tilescope sql` and the span table (issue 27 item 6).

  - the manual's example over span (taken from docs/cli.md itself) runs on
    the sample trace and its rows are `tilescope trace --json`'s labels
    summed by name (count and total_ns);
  - the same by channel and name, every label, both ways, over the sample
    .pvti and over the sample written as Chrome JSON and read back;
  - each span's parent is a span one level out on its thread that
    encloses it, and only depth-0 spans have none.

usage: check-cli-sql-span.py TILESCOPE SAMPLE_DIR DOC_PAGE
"""
import json
import os
import re
import subprocess
import sys
import tempfile

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def run(ts, *args):
    env = dict(os.environ, TILESCOPE_PROGRESS="never")
    p = subprocess.run([ts, *args], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        fail("tilescope %s: exit %d: %s" % (" ".join(args[:2]), p.returncode,
                                            p.stderr.strip()))
        return None
    return p.stdout


def sql(ts, trace, query):
    out = run(ts, "sql", "--json", trace, query)
    return json.loads(out) if out is not None else []


def labels(ts, trace):
    out = run(ts, "trace", "--json", "--top", "0", trace)
    return json.loads(out)["labels"] if out is not None else []


def doc_example(page):
    """The SQL of the page's `tilescope sql ... FROM span` example."""
    text = open(page, encoding="utf-8").read()
    for m in re.finditer(r'tilescope sql (\S+\.pvti) "([^"]*)"', text):
        if re.search(r"\bFROM span\b", m.group(2)):
            return m.group(2)
    return None


def check_by_label(ts, trace, what):
    want = {(l["channel"], l["name"]): (l["count"], l["total_ns"]) for l in labels(ts, trace)}
    got = {(r["channel"], r["name"]): (r["n"], r["total"])
           for r in sql(ts, trace, "SELECT channel, name, count(*) AS n, sum(dur_ns) AS total "
                                   "FROM span GROUP BY channel, name")}
    if not want:
        fail("%s: `tilescope trace --json` lists no labels" % what)
    elif got != want:
        fail("%s: span by channel and name differs from tilescope trace: %s"
             % (what, sorted(set(got.items()) ^ set(want.items()))[:4]))
    else:
        print("ok: %s: %d labels, span sums = tilescope trace's" % (what, len(want)))


def check_parents(ts, trace, what):
    rows = sql(ts, trace, "SELECT id, thread, depth, start_ns, end_ns, parent FROM span")
    by_id = {r["id"]: r for r in rows}
    bad = 0
    for r in rows:
        p = by_id.get(r["parent"]) if r["parent"] is not None else None
        if (r["parent"] is None) != (r["depth"] == 0):
            bad += 1
        elif p is not None and not (p["thread"] == r["thread"] and p["depth"] + 1 == r["depth"]
                                    and p["start_ns"] <= r["start_ns"]
                                    and p["end_ns"] >= r["end_ns"]):
            bad += 1
        elif r["parent"] is not None and p is None:
            bad += 1
    nested = sum(1 for r in rows if r["parent"] is not None)
    if not rows or bad or not nested or len(by_id) != len(rows):
        fail("%s: %d spans, %d with a parent, %d inconsistent, %d distinct ids"
             % (what, len(rows), nested, bad, len(by_id)))
    else:
        print("ok: %s: %d spans, %d nested, parents consistent" % (what, len(rows), nested))


def main():
    ts, samples, page = sys.argv[1:4]
    trace = os.path.join(samples, "tut5_ml", "tut5_ml.pvti")

    example = doc_example(page)
    if example is None:
        fail("%s has no `tilescope sql ... FROM span` example" % page)
    else:
        rows = sql(ts, trace, example)
        by_name = {}
        for l in labels(ts, trace):
            n, t = by_name.get(l["name"], (0, 0))
            by_name[l["name"]] = (n + l["count"], t + l["total_ns"])
        top = sorted(by_name.items(), key=lambda kv: -kv[1][1])[:len(rows)]
        got = [(r["name"], (r["spans"], r["total_ns"])) for r in rows]
        if not rows or got != top:
            fail("%s example: %s, tilescope trace: %s" % (page, got[:3], top[:3]))
        else:
            print("ok: %s example: %d rows, as tilescope trace --json" % (page, len(rows)))

    check_by_label(ts, trace, "tut5_ml.pvti")
    check_parents(ts, trace, "tut5_ml.pvti")
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "tut5.json")
        if run(ts, "export", "--chrome-trace", "-o", js, trace) is not None:
            check_by_label(ts, js, "tut5 as Chrome JSON")
            check_parents(ts, js, "tut5 as Chrome JSON")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""`tilescope diff --format=html` and `--format=openmetrics` (issue 31).

On the sample reports:
  - every ordered pair's page parses, every data-json pointer resolves in
    the embedded document and shows its value (html_check.py); the
    document is --format=json's with "deltas" cut to the rows shown, each
    delta as --format=json prints it; the page is under 2 MB;
  - with --all --top 0 the embedded document is --format=json's whole;
    --top 2 shows at most 2 rows per group and says how many more;
  - the limits of check-cli-diff.sh's regression (cycles, tile memory):
    exit 1, a "fail" banner naming each exceeded limit with both values and
    not the met one; the other way round exit 0 and a "pass" banner;
  - names with </script>, quotes, a backslash, a newline, U+2028 and a
    byte that is not UTF-8 are inert text on the page, and escaped label
    values in OpenMetrics;
  - OpenMetrics parses (a comment or a sample per line, "# EOF" last,
    valid names, TYPE before a family's samples, the UNIT suffix, no
    series twice) and its samples are the new report's values of
    --format=json, one per metric the new report has;
  - both outputs are the same bytes twice; a bad --format is a usage error.

usage: check-cli-diff-html.py TILESCOPE SAMPLE_DIR
"""
import itertools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import html_check  # noqa: E402

failures = 0
PAGE_BUDGET = 2 * 1024 * 1024


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def run(ts, *args):
    env = dict(os.environ, TILESCOPE_PROGRESS="never")
    p = subprocess.run([ts, "diff", *args], capture_output=True, env=env)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def page(ts, out, *args):
    """Writes the page of `args` to `out`; (exit status, text, embedded doc)."""
    rc, _, err = run(ts, "--format=html", "-o", out, *args)
    if rc not in (0, 1):
        fail(f"diff --format=html {args} exited {rc}: {err.strip()}")
        return rc, "", None
    with open(out, "rb") as f:
        raw = f.read()
    if len(raw) > PAGE_BUDGET:
        fail(f"{out}: {len(raw)} bytes, over the 2 MB budget")
    text = raw.decode("utf-8")
    try:
        doc, _ = html_check.check_page(text)
    except html_check.PageError as e:
        fail(f"{out}: {e}")
        return rc, text, None
    return rc, text, doc


def json_doc(ts, *args):
    rc, out, err = run(ts, "--format=json", *args)
    if rc not in (0, 1):
        fail(f"diff --format=json {args} exited {rc}: {err.strip()}")
        return None
    return json.loads(out)


def same_document(doc, full, what):
    """The embedded document is --format=json's with fewer deltas."""
    if doc is None or full is None:
        return
    if {k: v for k, v in doc.items() if k != "deltas"} != \
            {k: v for k, v in full.items() if k != "deltas"}:
        fail(f"{what}: the embedded document's keys differ from --format=json's")
    by_metric = {d["metric"]: d for d in full["deltas"]}
    order = [d["metric"] for d in full["deltas"]]
    shown = [d["metric"] for d in doc["deltas"]]
    for d in doc["deltas"]:
        if by_metric.get(d["metric"]) != d:
            fail(f"{what}: embedded delta {d['metric']} is not --format=json's")
    if shown != [m for m in order if m in set(shown)]:
        fail(f"{what}: the embedded deltas are not in --format=json's order")


def section(text, sid):
    m = re.search(r'<section id="%s">(.*?)</section>' % re.escape(sid), text, re.S)
    return m.group(1) if m else None


def banner(text):
    m = re.search(r'<div class="banner (pass|fail)"[^>]*>(.*?)</div>', text, re.S)
    if not m:
        return None, ""
    return m.group(1), re.sub(r"<[^>]*>", "", m.group(2))


def check_tile_chart(text, what):
    """The tile chart's description names the largest increase and decrease
    its table equivalent holds (each bucket's largest and smallest total),
    or says there is none."""
    m = re.search(r'id="tile-memory">.*?<p class="desc">(.*?)</p>.*?<tbody>(.*?)</tbody>',
                  text, re.S)
    if not m:
        fail(f"{what}: no tile chart with a description and a table")
        return
    desc = m.group(1).replace("&#39;", "'")
    rows = [[int(v) for v in re.findall(r'data-sort="(-?[0-9]+)"', r)]
            for r in re.findall(r"<tr>(.*?)</tr>", m.group(2), re.S)]
    top = max(r[4] for r in rows)
    low = min(r[6] for r in rows)
    want = [f"Largest increase: tile {next(r[2] for r in rows if r[4] == top)} (+{fmt(top)} B)"
            if top > 0 else "No tile grew",
            f"largest decrease: tile {next(r[5] for r in rows if r[6] == low)} ({fmt(low)} B)"
            if low < 0 else "no tile shrank"]
    for w in want:
        if w not in desc:
            fail(f"{what}: the tile chart's description {desc!r} does not say {w!r}")


def fmt(n):
    return f"{n:,}"


def passed(before, msg):
    if failures == before:
        print("PASS: " + msg)


# --- OpenMetrics -------------------------------------------------------------------

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")


def parse_labels(s, where):
    """`{a="x",b="y"}` (escapes \\\\ \\" \\n) into a dict; ValueError when bad."""
    labels, i = {}, 1
    while s[i] != "}":
        m = re.match(r"[a-zA-Z_][a-zA-Z0-9_]*", s[i:])
        if not m or s[i + m.end():i + m.end() + 2] != '="':
            raise ValueError(f"{where}: bad label at {s[i:]!r}")
        name, i = m.group(0), i + m.end() + 2
        value = []
        while s[i] != '"':
            if s[i] == "\\":
                esc = s[i + 1]
                if esc not in '\\"n':
                    raise ValueError(f"{where}: bad escape \\{esc}")
                value.append("\n" if esc == "n" else esc)
                i += 2
            elif s[i] == "\n":
                raise ValueError(f"{where}: raw newline in a label value")
            else:
                value.append(s[i])
                i += 1
        if name in labels:
            raise ValueError(f"{where}: label {name} twice")
        labels[name] = "".join(value)
        i += 1
        if s[i] == ",":
            i += 1
        elif s[i] != "}":
            raise ValueError(f"{where}: bad label list {s!r}")
    return labels, i + 1


def parse_openmetrics(text):
    """[(family, labels, value)] of an OpenMetrics text; ValueError naming
    the first problem."""
    if not text.endswith("# EOF\n"):
        raise ValueError("does not end with '# EOF'")
    lines = text[:-len("# EOF\n")].split("\n")
    if lines[-1] != "":
        raise ValueError("the last line before # EOF has no newline")
    families, done, current, series, samples = {}, set(), None, set(), []
    for n, line in enumerate(lines[:-1], 1):
        where = f"line {n}"
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) < 3 or parts[0] != "#" or parts[1] not in ("TYPE", "UNIT", "HELP"):
                raise ValueError(f"{where}: not a TYPE, UNIT or HELP comment: {line!r}")
            kind, fam = parts[1], parts[2]
            if not NAME.match(fam):
                raise ValueError(f"{where}: bad family name {fam!r}")
            if fam != current:
                if fam in done or fam in families:
                    raise ValueError(f"{where}: family {fam} not contiguous")
                if current:
                    done.add(current)
                current = fam
                families[fam] = {}
            if kind in families[fam]:
                raise ValueError(f"{where}: second {kind} of {fam}")
            if len(parts) != 4:
                raise ValueError(f"{where}: {kind} without a value")
            families[fam][kind] = parts[3]
            if kind == "TYPE" and parts[3] != "gauge":
                raise ValueError(f"{where}: {fam} is not a gauge")
            if kind == "UNIT" and not fam.endswith("_" + parts[3]):
                raise ValueError(f"{where}: {fam} does not end with its unit {parts[3]}")
            if kind == "HELP" and re.search(r"\\[^\\n]", parts[3]):
                raise ValueError(f"{where}: bad escape in HELP")
            continue
        m = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line)
        if not m:
            raise ValueError(f"{where}: not a sample: {line!r}")
        name, rest = m.group(0), line[m.end():]
        labels = {}
        if rest.startswith("{"):
            labels, end = parse_labels(rest, where)
            rest = rest[end:]
        if not rest.startswith(" ") or not NUMBER.match(rest[1:]):
            raise ValueError(f"{where}: bad value in {line!r}")
        if name != current or "TYPE" not in families.get(name, {}):
            raise ValueError(f"{where}: sample {name} outside its family's TYPE")
        for suffix in ("_total", "_count", "_sum", "_bucket", "_created", "_info"):
            if name.endswith(suffix):
                raise ValueError(f"{where}: gauge {name} ends in {suffix}")
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            raise ValueError(f"{where}: series {key} twice")
        series.add(key)
        samples.append((name, labels, int(rest[1:]) if rest[1:].lstrip("-").isdigit()
                        else float(rest[1:])))
    return samples


def check_openmetrics(ts, args, what, twice=False):
    rc, out, err = run(ts, "--format=openmetrics", *args)
    if rc not in (0, 1):
        fail(f"{what}: --format=openmetrics exited {rc}: {err.strip()}")
        return None
    if twice and run(ts, "--format=openmetrics", *args)[:2] != (rc, out):
        fail(f"{what}: OpenMetrics not the same bytes twice")
    try:
        samples = parse_openmetrics(out.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, IndexError) as e:
        fail(f"{what}: OpenMetrics does not parse: {e}")
        return None
    full = json_doc(ts, *args)
    want = sorted(d["new"] for d in full["deltas"] if d["in_new"])
    if sorted(v for _, _, v in samples) != want:
        fail(f"{what}: OpenMetrics values are not --format=json's new values")
    # Each sample is its metric: the label's value ends the metric name.
    new_values = {d["metric"]: d["new"] for d in full["deltas"] if d["in_new"]}
    for name, labels, value in samples:
        item = next(iter(labels.values()), None)
        if item is not None and not any(m.endswith("." + item) and v == value
                                        for m, v in new_values.items()):
            fail(f"{what}: {name}{labels} {value} is no metric of the JSON")
            break
    return samples


def main():
    ts, samples_dir = sys.argv[1], sys.argv[2]
    reports = sorted(os.path.join(samples_dir, d) for d in os.listdir(samples_dir)
                     if os.path.exists(os.path.join(samples_dir, d, "profile.pop")))
    if len(reports) < 2:
        fail(f"fewer than two sample reports in {samples_dir}")
        return 1
    tmp = tempfile.mkdtemp(prefix="tilescope-diff-html.")
    try:
        return run_checks(ts, reports, tmp, samples_dir)
    finally:
        shutil.rmtree(tmp)


def run_checks(ts, reports, tmp, samples_dir):
    # Every ordered pair: the page checks out, the document is the JSON's.
    before = failures
    for a, b in itertools.permutations(reports, 2):
        what = f"{os.path.basename(a)} -> {os.path.basename(b)}"
        out = os.path.join(tmp, "pair.html")
        rc, text, doc = page(ts, out, a, b)
        if rc != 0:
            fail(f"{what}: exit {rc} without limits")
        same_document(doc, json_doc(ts, a, b), what)
        kind, _ = banner(text)
        if kind != "pass":
            fail(f"{what}: banner {kind!r} without limits, not pass")
        check_tile_chart(text, what)
        for sid in ("reports", "group-total", "tile-memory", "liveness"):
            if f'id="{sid}"' not in text:
                fail(f"{what}: no element with id {sid}")
        check_openmetrics(ts, [a, b], what)
    passed(before, f"{len(reports) * (len(reports) - 1)} pairs: pages parse, pointers agree, "
           "documents are --format=json's, OpenMetrics parses with its values")
    before = failures

    small = os.path.join(samples_dir, "tut7_mk1_small")
    big = os.path.join(samples_dir, "tut7_mk1")
    # Same bytes twice.
    one, two = os.path.join(tmp, "one.html"), os.path.join(tmp, "two.html")
    page(ts, one, small, big)
    page(ts, two, small, big)
    check_openmetrics(ts, [small, big], "twice", twice=True)
    if not os.path.exists(one) or open(one, "rb").read() != open(two, "rb").read():
        fail("the page is not the same bytes twice")
    # --all --top 0: the whole --format=json document.
    _, _, doc = page(ts, one, "--all", "--top", "0", small, big)
    if doc != json_doc(ts, small, big):
        fail("with --all --top 0 the embedded document is not --format=json's")
    # --top 2: at most two rows a group, and the rest counted.
    _, text, _ = page(ts, one, "--top", "2", small, big)
    cut = 0
    for sid in ("group-category", "group-variable", "group-program"):
        body = section(text, sid) or ""
        rows = len(re.findall(r'data-json="/deltas/[0-9]+/metric"', body))
        if rows > 2 or rows == 0:
            fail(f"--top 2: section {sid} has {rows} rows")
        cut += "more (--top 0 shows all)" in body
    if cut == 0:
        fail("--top 2 cuts no group")
    passed(before, "same bytes twice; --all --top 0 embeds the whole JSON; --top 2 cuts")
    before = failures

    # Limits: check-cli-diff.sh's regression on the sample pair.
    limits = ["--max-cycles-increase=1", "--max-memory-increase=5%", "--max-tile-memory=1MiB"]
    rc, text, doc = page(ts, one, *limits, small, big)
    full = json_doc(ts, *limits, small, big)
    kind, words = banner(text)
    if rc != 1 or kind != "fail":
        fail(f"exceeded limits: exit {rc}, banner {kind!r}")
    if "3 of 4 limits exceeded" not in words:
        fail(f"the banner does not count the exceeded limits: {words!r}")
    for lim in full["limits"]:
        said = f"{lim['metric']} went from {fmt(lim['base'])} to {fmt(lim['new'])}"
        if lim["passed"] == (said in words):
            fail(f"the banner {'names' if lim['passed'] else 'does not name'} "
                 f"{lim['metric']} with both values: {words!r}")
    same_document(doc, full, "with limits")
    rc, text, _ = page(ts, two, *limits, big, small)
    kind, words = banner(text)
    if rc != 0 or kind != "pass" or "all 4 limits met" not in words:
        fail(f"limits met: exit {rc}, banner {kind!r} {words!r}")
    rc, _, _ = run(ts, "--format=openmetrics", *limits, small, big)
    if rc != 1:
        fail(f"--format=openmetrics with an exceeded limit exited {rc}, not 1")
    passed(before, "exceeded limits: exit 1, a fail banner naming each with both values; "
           "met: exit 0, a pass banner")
    before = failures

    # Names that could end an element or a label value.
    odd = os.path.join(tmp, "odd")
    os.mkdir(odd)
    shutil.copy(os.path.join(small, "profile.pop"), odd)
    name = b'</script><img src=x onerror=alert(1)> "q" back\\slash\nline\xe2\x80\xa8 bad\xff'
    db = sqlite3.connect(os.path.join(odd, "profile.pop"))
    if db.execute("UPDATE string SET text = CAST(? AS TEXT) WHERE text = 'matrix'",
                  (name,)).rowcount != 1:
        fail("no variable 'matrix' to rename")
    db.commit()
    db.close()
    rc, text, doc = page(ts, one, small, odd)
    if "<img" in text or "</script><" in text:
        fail("a name's markup reached the page")
    if doc and not any(d["metric"].startswith("memory.variable.</script>") for d in doc["deltas"]):
        fail("the renamed variable is not in the embedded document")
    samples = check_openmetrics(ts, [small, odd], "odd names")
    want = '</script><img src=x onerror=alert(1)> "q" back\\slash\nline\u2028 bad\ufffd'
    if samples is not None and not any(labels.get("variable") == want
                                       for _, labels, _ in samples):
        fail("the odd variable's label value does not read back escaped")
    passed(before, "names with markup, quotes, a backslash, a newline, U+2028 and a bad byte")

    rc, out, err = run(ts, "--format=svg", small, big)
    if rc != 2 or "--format wants text, json, markdown, junit, html or openmetrics" not in err:
        fail(f"--format=svg: exit {rc}, {err.strip()!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    status = main()
    print("all diff page checks passed" if status == 0 else f"{failures} failure(s)")
    sys.exit(status)

#!/usr/bin/env python3
"""`tilescope trace --format=html` (issue 31): the page of a trace.

  - the sample trace's page (and one with --thread, --from/--to, --sort,
    --top) parses, every data-json pointer resolves and shows its value
    (html_check.py), and the embedded document is the text
    `--format=json --call-tree` prints for the same arguments; every
    label row and every path of the call tree points into it; the page
    fetches nothing and stays under 2 MB; the same bytes on a second run;
  - a trace of 200,000 spans on one thread makes a timeline of a few
    thousand marks that still count every span (level of detail, not a
    walk of the spans into SVG), and a small page;
  - a Chrome JSON trace whose label and thread name hold
    `</script><img src=x onerror=alert(1)>`, quotes and U+2028 gives a
    page where they are text: no element but the page's own, the
    embedded document intact, the names shown as they are;
  - bad input (an unknown format, --json with --format=html, --compare,
    a file that is no trace) exits 2 with one line and writes nothing.

usage: check-cli-trace-html.py TILESCOPE SAMPLE_DIR
"""

import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import html_check  # noqa: E402

status = 0
HOSTILE = "</script><img src=x onerror=alert(1)> \"q\" 'a' \u2028 end"


def fail(msg):
    global status
    print("FAIL: " + msg)
    status = 1


def ok(msg):
    print("PASS: " + msg)


def run(*args):
    env = dict(os.environ, TILESCOPE_PROGRESS="never")
    for k in ("NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"):
        env.pop(k, None)
    return subprocess.run([ts] + list(args), capture_output=True, env=env)


def embedded(page):
    """The text of the page's tilescope-data block, its escapes undone."""
    m = re.search(r'<script type="application/json" id="tilescope-data">(.*?)</script>',
                  page, re.S)
    if not m:
        return None
    text = m.group(1)
    for ch in "<>&\u2028\u2029":
        text = text.replace("\\u%04x" % ord(ch), ch)
    return text


class Elements(html.parser.HTMLParser):
    """The elements of a page, and the text of each data-json element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = set()
        self.scripts = 0
        self.handlers = []  # on* attributes
        self.stack = []
        self.figures = {}  # pointer -> text

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.scripts += tag == "script"
        self.handlers += [k for k, _ in attrs if k.startswith("on")]
        if tag not in html_check.VOID:
            self.stack.append([dict(attrs).get("data-json"), []])

    def handle_endtag(self, tag):
        if tag in html_check.VOID or not self.stack:
            return
        pointer, parts = self.stack.pop()
        text = "".join(parts)
        if pointer is not None:
            self.figures[pointer] = text
        if self.stack:
            self.stack[-1][1].append(text)

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][1].append(data)


def page_of(name, args, json_args=None):
    """Writes the page of `args`, checks it against `--format=json
    --call-tree` with the same arguments, returns (page text, document,
    Elements) or None."""
    out = os.path.join(tmp, name + ".html")
    r = run("trace", "--format=html", "-o", out, *args)
    if r.returncode != 0 or r.stderr:
        fail("%s: exited %d: %s" % (name, r.returncode, r.stderr.decode(errors="replace")))
        return None
    j = run("trace", "--format=json", "--call-tree", *(json_args or args))
    if j.returncode != 0:
        fail("%s: --format=json exited %d" % (name, j.returncode))
        return None
    with open(out, encoding="utf-8") as f:
        page = f.read()
    try:
        doc, n = html_check.check_page(page)
    except html_check.PageError as e:
        fail("%s: %s" % (name, e))
        return None
    text = embedded(page)
    if text is None or text.strip() != j.stdout.decode().strip():
        fail("%s: the embedded document is not the text --format=json --call-tree prints" %
             name)
    els = Elements()
    els.feed(page)
    for scheme in ("http:", "https:", "//"):
        if scheme in page.replace(tmp, ""):
            fail("%s: the page holds %r" % (name, scheme))
    size = os.path.getsize(out)
    if size > 2 * 1024 * 1024:
        fail("%s: %d bytes, past 2 MB" % (name, size))
    ok("%s: %d figures agree with the embedded document, %d bytes" % (name, n, size))
    return page, doc, els


def walk_tree(nodes, pointer):
    for i, nd in enumerate(nodes):
        p = "%s/%d" % (pointer, i)
        yield p, nd
        yield from walk_tree(nd["children"], p + "/children")


def check_pointed(name, doc, els):
    """Every label row and every path of the call tree has its figures on
    the page, pointing into the document."""
    missing = []
    for i in range(len(doc["labels"])):
        for f in ("channel", "name", "count", "total_ns", "self_ns", "mean_ns", "min_ns",
                  "max_ns"):
            if "/labels/%d/%s" % (i, f) not in els.figures:
                missing.append("/labels/%d/%s" % (i, f))
    for p, _ in walk_tree(doc["call_tree"]["roots"], "/call_tree/roots"):
        for f in ("name", "count", "inclusive_ns", "exclusive_ns", "channel"):
            if p + "/" + f not in els.figures:
                missing.append(p + "/" + f)
    for k in range(len(doc["threads"])):
        for f in ("name", "spans", "busy_ns"):
            if "/threads/%d/%s" % (k, f) not in els.figures:
                missing.append("/threads/%d/%s" % (k, f))
    if missing:
        fail("%s: figures not on the page: %s" % (name, ", ".join(missing[:8])))
    else:
        ok("%s: %d labels, %d call paths and %d threads on the page" %
           (name, len(doc["labels"]), len(list(walk_tree(doc["call_tree"]["roots"], ""))),
            len(doc["threads"])))


def timeline_marks(page):
    """The marks of the timeline's plot and how many spans each stands
    for: "37 spans..." at the start of its title, else 1 (a span's name);
    None when there is no timeline."""
    m = re.search(r'<figure[^>]*id="timeline".*?<svg class="plot"[^>]*>(.*?)</svg>', page, re.S)
    if not m:
        return None
    counts = []
    for title in re.findall(r"<rect[^>]*><title>([^<]*)</title></rect>", m.group(1)):
        n = re.match(r"([0-9][0-9,]*) spans", title)
        counts.append(int(n.group(1).replace(",", "")) if n else 1)
    return counts


if len(sys.argv) != 3:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
ts = os.path.abspath(sys.argv[1])
samples = os.path.abspath(sys.argv[2])
sample = os.path.join(samples, "tut5_ml", "tut5_ml.pvti")

with tempfile.TemporaryDirectory(prefix="tilescope-trace-html.") as tmp:
    # --- The sample trace, whole and in a view -------------------------------------------
    got = page_of("sample", [sample])
    if got:
        page, doc, els = got
        check_pointed("sample", doc, els)
        for t in doc["threads"]:
            if t["name"] not in page:
                fail("sample: thread %r not on the page" % t["name"])
        # Each of the 42 spans is one mark or counted by one, on its
        # thread's lane or one per depth under it.
        counts = timeline_marks(page)
        if counts is None or sum(counts) != doc["spans"]:
            fail("sample: the timeline's marks count %s of %d spans" %
                 (counts and sum(counts), doc["spans"]))
        elif ">depth 1 of tut5_ml<" not in page:
            fail("sample: no lane for the nested spans of tut5_ml")
        else:
            ok("sample: the timeline's %d marks count the %d spans, nested ones on lanes "
               "of their own" % (len(counts), sum(counts)))
        r = run("trace", "--format=html", sample)
        if r.stdout.decode() != page:
            fail("sample: a second run (to standard output) gave other bytes")
        else:
            ok("sample: the same bytes on a second run")
    view = ["--thread", "0", "--from", "10", "--to", "200", "--sort", "count", "--top", "5"]
    got = page_of("view", view + [sample])
    if got:
        page, doc, els = got
        check_pointed("view", doc, els)
        if len(doc["labels"]) != 5 or "/labels/5/name" in els.figures:
            fail("view: --top 5 shows %d labels" % len(doc["labels"]))
    # The other traces under sample-reports/.
    for root, _, files in sorted(os.walk(samples)):
        for f in sorted(files):
            if f.endswith(".pvti") and os.path.join(root, f) != sample:
                page_of(f, [os.path.join(root, f)])

    # --- 300,000 spans on one thread: a timeline of marks that count them ------------------
    # Runs of 1,000 spans of 0.5 us, 1 us apart, 3 ms between runs: more
    # than reportlib decodes for one view, so the timeline reads the level
    # of detail; and a lone wide span, drawn as itself.
    big = os.path.join(tmp, "big.json")
    with open(big, "w") as f:
        f.write('[{"ph":"X","name":"wide","pid":1,"tid":2,"ts":0,"dur":500000},\n')
        f.write(",\n".join('{"ph":"X","name":"k%d","pid":1,"tid":1,"ts":%d,"dur":0.5}'
                           % (i % 7, (i // 1000) * 4000 + i % 1000) for i in range(300000)))
        f.write("]\n")
    got = page_of("big", [big])
    if got:
        page, doc, els = got
        counts = timeline_marks(page)
        if counts is None:
            fail("big: no timeline")
        elif len(counts) > 2 * 600:
            fail("big: the timeline draws %d marks for 300,001 spans" % len(counts))
        elif sum(counts) != doc["spans"]:
            fail("big: the timeline's %d marks count %d of %d spans" %
                 (len(counts), sum(counts), doc["spans"]))
        else:
            ok("big: the timeline's %d marks count the %d spans" % (len(counts), sum(counts)))

    # --- Hostile names ---------------------------------------------------------------------
    hostile = os.path.join(tmp, "hostile.json")
    with open(hostile, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": [
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": HOSTILE}},
            {"ph": "X", "name": HOSTILE, "pid": 1, "tid": 7, "ts": 1, "dur": 10},
            {"ph": "X", "name": "inner", "pid": 1, "tid": 7, "ts": 2, "dur": 3}]},
            f, ensure_ascii=False)
    got = page_of("hostile", [hostile])
    if got:
        page, doc, els = got
        # The page's own scripts are its data and its code.
        if "img" in els.tags or els.handlers or els.scripts != 2:
            fail("hostile: markup from a name: img %s, handlers %s, %d scripts" %
                 ("img" in els.tags, els.handlers, els.scripts))
        if "<img" in page or "</script><img" in page:
            fail("hostile: the name's markup is in the page as markup")
        block = re.search(r'id="tilescope-data">(.*?)</script>', page, re.S).group(1)
        if "\u2028" in block or "<" in block:
            fail("hostile: '<' or U+2028 unescaped in the embedded document")
        names = [t for p, t in els.figures.items() if p.endswith("/name")]
        if names.count(HOSTILE) < 3:  # label, call path, thread
            fail("hostile: the names are not shown as they are (%d times)" %
                 names.count(HOSTILE))
        else:
            ok("hostile: </script>, <img>, quotes and U+2028 are text in the page")

    # --- Bad input -------------------------------------------------------------------------
    notrace = os.path.join(tmp, "notrace.txt")
    with open(notrace, "w") as f:
        f.write("hello\n")
    out = os.path.join(tmp, "bad.html")
    for args, want in ((["--format=xml", sample], "--format wants text, json or html"),
                       (["--json", "--format=html", sample], "--json and --format=html"),
                       (["--format=html", "--compare", sample, sample],
                        "not offered with --compare"),
                       (["--format=html", notrace], "notrace.txt"),
                       (["--format=html", os.path.join(tmp, "none.pvti")], "none.pvti")):
        r = run("trace", "-o", out, *args)
        err = r.stderr.decode(errors="replace")
        first = err.splitlines()[0] if err else ""
        if r.returncode != 2 or want not in first:
            fail("trace %s: exit %d, %r" % (" ".join(args), r.returncode, err))
        elif os.path.exists(out) or r.stdout:
            fail("trace %s: wrote output" % " ".join(args))
        else:
            ok("trace %s -> %s" % (" ".join(args), first))

sys.exit(status)

#!/usr/bin/env python3
"""The summary and diff pages of a report whose debug-context names are hostile
(issue 31, "Done means"): hostile_names_model names its contexts
`</script><img src=x onerror=alert(1)>` and `"quoted" 'single'
U+2028line <0xFF> end`, and each context prefixes the variable and
compute set made in it.

Without a browser (suite integration), on the page's text:
  - html_check.check_page: every element closed in order, one embedded
    document, every data-json figure agrees with it;
  - python's html.parser sees no <img> and no on* attribute, and both
    names among the text nodes as inert text (the byte 0xFF as U+FFFD);
  - the embedded document's block has no '<' nor a raw U+2028 or
    U+2029, so nothing ends it early, and holds the hostile name
    escaped (the summary's document in its largest variables and its
    programs; the diff's, of the report against itself with --all, all
    of them);
  - no "http:", "https:" or "//" anywhere but in the policy's hashes; a
    second run writes the same bytes.
With --browser CHECK_PAGE (suite browser): check-page.py loads the page
in Chromium and expects both names as text nodes (no <img>, no on*, no
console error: nothing ran).

usage: check-hostile-names.py TILESCOPE MODEL [--browser CHECK_PAGE]
"""

import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import html_check  # noqa: E402

# The names as the page must show them: what the model wrote, with the
# byte that is not UTF-8 as U+FFFD.
SHOWN = ["</script><img src=x onerror=alert(1)>",
         "\"quoted\" 'single' \u2028line \ufffd end"]


class Elements(html.parser.HTMLParser):
    """Start tags, attributes and text nodes of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.texts = [], [], []
        self._in_data = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, n) for n, _ in attrs]
        self._in_data = tag == "script"

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, n) for n, _ in attrs]

    def handle_endtag(self, tag):
        self._in_data = False

    def handle_data(self, data):
        if not self._in_data:
            self.texts.append(data)


def main():
    args = sys.argv[1:]
    browser = None
    if len(args) == 4 and args[2] == "--browser":
        browser = args[3]
    elif len(args) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    tilescope, model = args[0], args[1]
    failures = []
    fail = failures.append
    with tempfile.TemporaryDirectory(prefix="tilescope-hostile-") as tmp:
        report = os.path.join(tmp, "report")
        env = dict(os.environ, POPLAR_ENGINE_OPTIONS=json.dumps(
            {"autoReport.all": "true", "autoReport.directory": report}))
        r = subprocess.run([model], env=env, capture_output=True, timeout=120)
        if r.returncode != 0:
            sys.exit("hostile_names_model exited %d: %s" % (r.returncode, r.stderr.decode()))
        kinds = [("summary", [report]), ("diff", ["--all", "--top", "0", report, report])]
        if browser:
            rc = 0
            for sub, rest in kinds:
                argv = [sys.executable, browser, "--name", "hostile-names-" + sub,
                        "--tilescope", tilescope]
                for s in SHOWN:
                    argv += ["--expect-text", s]
                # check-page's exit: 0, 1 or 77 (no chromium) is this test's.
                rc = max(rc, subprocess.run(argv + ["--", sub] + rest).returncode)
            sys.exit(rc)
        for sub, rest in kinds:
            check_kind(tilescope, tmp, sub, rest, lambda m, sub=sub: fail(sub + ": " + m))

    for f in failures:
        print("check-hostile-names: " + f)
    if failures:
        sys.exit(1)
    print("check-hostile-names: ok: both names are text on both pages; no element or "
          "attribute was made")


def check_kind(tilescope, tmp, sub, rest, fail):
    """Writes the page of `tilescope SUB --format=html REST...` twice and
    checks it."""
    pages = []
    for i in range(2):
        page = os.path.join(tmp, "%s%d.html" % (sub, i))
        r = subprocess.run([tilescope, sub, "--format=html", "-o", page] + rest,
                           capture_output=True, timeout=120)
        if r.returncode != 0:
            sys.exit("%s --format=html exited %d: %s" % (sub, r.returncode, r.stderr.decode()))
        with open(page, "rb") as f:
            pages.append(f.read())
    if pages[0] != pages[1]:
        fail("a second run wrote different bytes")
    text = pages[0].decode("utf-8")
    try:
        html_check.check_page(text)
    except html_check.PageError as e:
        fail(str(e))
    parsed = Elements()
    parsed.feed(text)
    parsed.close()
    if "img" in parsed.tags:
        fail("the page has an <img> element")
    for tag, name in parsed.attrs:
        if name.startswith("on"):
            fail("the page has an attribute %s on <%s>" % (name, tag))
    for s in SHOWN:
        if not any(s in t for t in parsed.texts):
            fail("no text node holds %r" % s)
    start = text.find('id="tilescope-data">')
    end = text.find("</script>", start)
    block = text[start + len('id="tilescope-data">'):end] if start >= 0 else ""
    if "<" in block or "\u2028" in block or "\u2029" in block:
        fail("the data block holds '<', U+2028 or U+2029 unescaped")
    # The policy's hashes aside: base64 may hold "//".
    unhashed = re.sub(r"'sha256-[A-Za-z0-9+/=]*'", "", text)
    for ref in ("http:", "https:", "//"):
        if ref in unhashed:
            fail("the page holds %r at offset %d" % (ref, unhashed.find(ref)))
    # Both documents hold the names (the summary's in its largest variables
    # and programs): the block must have held '<'.
    if "\\u003c/script" not in block:
        fail("the embedded document does not hold the hostile name (escaped)")


if __name__ == "__main__":
    main()

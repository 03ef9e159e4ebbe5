"""Checks a page of `tilescope summary|diff|trace --format=html`
(cli-summary/src/html.h) without a browser, for the page tests to share.

    import html_check
    doc, n = html_check.check_page(text)   # raises html_check.PageError

or from a shell: python3 html_check.py PAGE... (exit 1 and one line per
problem; prints how many figures each page's pointers checked).

What it checks:
  - python's html.parser walks the page, and every element that is not
    void is closed by its own end tag, in order (SVG's <rect/> may close
    itself);
  - the page embeds one <script type="application/json"
    id="tilescope-data"> that parses as JSON (returned);
  - every data-json="POINTER" resolves (RFC 6901) in that document and the
    element's text agrees with the value, by html.h's rule: the text equals
    a string value (commas and all), or with the thousands separators (',')
    removed starts with the number: an integer exactly (not followed by
    another digit or a '.'), a fraction to the decimals the text shows. A
    number followed by '%' is a percentage of the value (2.5% for 0.025),
    as the summary writes balances.
"""

import html.parser
import json
import math
import re
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


class PageError(Exception):
    pass


class _Walker(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []        # open elements: [tag, pointer or None, text parts]
        self.figures = []      # (pointer, text, line)
        self.data = []         # texts of the tilescope-data blocks
        self.problems = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in VOID:
            if "data-json" in a:
                self.problems.append("line %d: void <%s> carries data-json" %
                                     (self.getpos()[0], tag))
            return
        self.stack.append([tag, a.get("data-json"), [], self.getpos()[0],
                           tag == "script" and a.get("id") == "tilescope-data" and
                           a.get("type") == "application/json"])

    def handle_startendtag(self, tag, attrs):
        if "data-json" in dict(attrs):
            self.problems.append("line %d: empty <%s/> carries data-json" %
                                 (self.getpos()[0], tag))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            self.problems.append("line %d: </%s> closes nothing" % (self.getpos()[0], tag))
            return
        top = self.stack.pop()
        if top[0] != tag:
            self.problems.append("line %d: </%s> closes <%s> of line %d" %
                                 (self.getpos()[0], tag, top[0], top[3]))
            return
        text = "".join(top[2])
        if top[1] is not None:
            self.figures.append((top[1], text, top[3]))
        if top[4]:
            self.data.append(text)
        # An element's text is part of its parent's.
        if self.stack:
            self.stack[-1][2].append(text)

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2].append(data)


def resolve(doc, pointer):
    """The value at RFC 6901 `pointer` in `doc`; KeyError when none."""
    if pointer == "":
        return doc
    if not pointer.startswith("/"):
        raise KeyError(pointer)
    v = doc
    for raw in pointer[1:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(v, list):
            if not re.fullmatch(r"0|[1-9][0-9]*", key) or int(key) >= len(v):
                raise KeyError(pointer)
            v = v[int(key)]
        elif isinstance(v, dict):
            if key not in v:
                raise KeyError(pointer)
            v = v[key]
        else:
            raise KeyError(pointer)
    return v


def agrees(text, value):
    """Whether an element's `text` shows `value` (html.h's rule, above)."""
    if isinstance(value, str):
        return text.strip() == value
    t = text.strip().replace(",", "")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    m = NUMBER.match(t)
    if not m:
        return False
    shown, rest = m.group(0), t[m.end():]
    if rest.startswith("%"):
        value = value * 100
    elif isinstance(value, int):
        return shown == str(value) and not rest[:1].isdigit() and not rest.startswith(".")
    decimals = len(m.group(1)) - 1 if m.group(1) else 0
    if not math.isfinite(value):
        return False
    return abs(float(shown) - value) <= 0.5 * 10 ** -decimals + 1e-9 * max(1.0, abs(value))


def check_page(text):
    """Walks the page `text`; returns (the embedded document, the number of
    data-json figures checked). Raises PageError naming every problem."""
    w = _Walker()
    w.feed(text)
    w.close()
    problems = list(w.problems)
    for tag, _, _, line, _ in w.stack:
        problems.append("<%s> of line %d is never closed" % (tag, line))
    doc = None
    if len(w.data) != 1:
        problems.append("%d tilescope-data blocks, not one" % len(w.data))
    else:
        try:
            doc = json.loads(w.data[0])
        except ValueError as e:
            problems.append("the embedded document is not JSON: %s" % e)
    if doc is not None:
        for pointer, shown, line in w.figures:
            try:
                value = resolve(doc, pointer)
            except KeyError:
                problems.append("line %d: data-json %r resolves to nothing" % (line, pointer))
                continue
            if not agrees(shown, value):
                problems.append("line %d: %r shows %r, the document holds %r" %
                                (line, pointer, shown.strip(), value))
    if problems:
        raise PageError("\n".join(problems))
    return doc, len(w.figures)


def main(argv):
    status = 0
    for path in argv[1:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            _, n = check_page(text)
            print("%s: %d figures agree with the embedded document" % (path, n))
        except PageError as e:
            for line in str(e).splitlines():
                print("%s: %s" % (path, line))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))

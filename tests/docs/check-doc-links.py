#!/usr/bin/env python3
"""Every relative link of the README and the manual leads somewhere.

For README.md and docs/*.md under ROOT: each Markdown link or image
outside code (`[text](target)`, `![alt](target)`, `[label]: target`)
whose target has no URL scheme must name a file or folder that exists
inside ROOT (so the page reads the same from a checkout and from the
installed copy of docs/), and a `#anchor` (alone, or after a .md file)
must be the anchor of a heading of that page, as GitHub makes them:
the heading's text lower-cased, punctuation dropped, spaces made
hyphens, "-1", "-2" ... after repeats.

usage: check-doc-links.py ROOT
       check-doc-links.py --self-test
Prints one line per broken link and exits 1 when there is any.
"""
import os
import re
import sys
import tempfile

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield n, line


def slug(heading):
    """GitHub's anchor for a heading's Markdown text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # links: their text
    text = CODE_SPAN.sub(lambda m: m.group(2), text)            # code: its content
    text = re.sub(r"<[^>]+>", "", text)                        # inline HTML
    text = text.lower()
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def anchors(text):
    seen = {}
    out = set()
    for _, line in prose_lines(text):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else "%s-%d" % (base, n))
    return out


def links(text):
    for n, line in prose_lines(text):
        m = REFDEF.match(line)
        if m:
            yield n, m.group(1)
            continue
        line = CODE_SPAN.sub(lambda m: "code", line)
        for m in INLINE.finditer(line):
            yield n, m.group(1)


def pages(root):
    out = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        out += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return [p for p in out if os.path.isfile(p)]


def check(root):
    """The broken links under root, as 'page:line: target: reason' lines."""
    root = os.path.realpath(root)
    problems = []
    cache = {}

    def anchors_of(path):
        if path not in cache:
            with open(path, encoding="utf-8") as f:
                cache[path] = anchors(f.read())
        return cache[path]

    for page in pages(root):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(page, root)
        for n, target in links(text):
            if not target or SCHEME.match(target):
                continue
            path, _, anchor = target.partition("#")
            dest = page if not path else os.path.realpath(
                os.path.join(os.path.dirname(page), path))
            where = "%s:%d: %s" % (rel, n, target)
            if dest != root and not dest.startswith(root + os.sep):
                problems.append("%s: leads outside the source tree" % where)
            elif not os.path.exists(dest):
                problems.append("%s: no such file" % where)
            elif anchor and dest.endswith(".md") and anchor not in anchors_of(dest):
                problems.append("%s: %s has no heading with the anchor #%s"
                                % (where, os.path.relpath(dest, root), anchor))
    return problems, len(pages(root))


def self_test():
    """The checker finds each kind of broken link and nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as f:
            f.write("# Top\n\n[good](docs/a.md#the-tilescope-command) [good too](#top)\n"
                    "[missing file](docs/none.md) [missing anchor](docs/a.md#nowhere)\n"
                    "```\n[in a fence](ignored.md)\n```\n`[in code](ignored.md)`\n"
                    "[outside](../elsewhere.md) [web](https://example.org/x.md)\n")
        with open(os.path.join(tmp, "docs", "a.md"), "w", encoding="utf-8") as f:
            f.write("# A\n\n## The `tilescope` command\n\n[up](../README.md#top)\n"
                    "[self](#a) [bad self](#b)\n\n[ref]: b.md\n")
        problems, _ = check(tmp)
    want = ["README.md:4: docs/none.md: no such file",
            "README.md:4: docs/a.md#nowhere: docs/a.md has no heading with the anchor #nowhere",
            "README.md:9: ../elsewhere.md: leads outside the source tree",
            "docs/a.md:6: #b: docs/a.md has no heading with the anchor #b",
            "docs/a.md:8: b.md: no such file"]
    if sorted(problems) != sorted(want):
        print("FAIL: the checker found:\n  %s\nwhere it should find:\n  %s"
              % ("\n  ".join(problems) or "nothing", "\n  ".join(want)))
        return 1
    print("ok: the checker finds the %d broken links of its sample and no other" % len(want))
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    problems, n = check(sys.argv[1])
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print("ok: every relative link and anchor of %d pages leads somewhere" % n)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

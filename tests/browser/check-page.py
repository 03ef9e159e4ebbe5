#!/usr/bin/env python3
"""Loads a page of `tilescope ... --format=html` in headless Chromium and
checks it as a reviewer's browser would see it (issue 31).

usage: check-page.py [options] PAGE
       check-page.py [options] --tilescope BIN -- SUBCOMMAND ARG...

The second form writes the page itself (`BIN SUBCOMMAND --format=html -o
PAGE ARG...`) and the JSON document (`BIN SUBCOMMAND --format=json
[--json-arg...] ARG...`), and checks that the page embeds exactly that
document (with --cut-json: that document with lists shortened, as the
diff page keeps the rows it shows).

It drives Chromium over the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-terminated JSON messages, commands on the
child's fd 3, answers and events on its fd 4), so it sees every console
message, exception, log entry and Content-Security-Policy issue as an
event, and reads the DOM by evaluating JavaScript in the page. Checks:
  - no console error or warning, no exception, no log entry of level
    error or warning, no alert(), confirm() or prompt() call, no CSP violation (as a log or console message or an Audits
    issue): the policy blocks nothing the page needs;
  - every [data-json] element's text against the embedded document, by
    the rule in cli-summary/src/html.h (tests/cli/html_check.py's
    `agrees`, the same check the page tests make without a browser);
  - a click on a shown table's header button (a real mouse event at its
    centre) sorts its rows by that numeric column, a second click the
    other way (up to three tables);
  - the page's text holds no "http:", "https:" or "//" (issue 31), the
    policy's hashes and the embedded document aside;
  - nothing a hostile name could have made: no <img>, <iframe>, <object>,
    <embed>, <link>, <base>, <form>, no on* attribute, no src/href
    other than a fragment ("#id"), exactly the two <script> elements of
    the page (the document and the code);
  - with --expect-text S (repeatable): some text node holds S;
  - light and dark (prefers-color-scheme, emulated) give different body
    colours; with --screenshots DIR --name NAME, NAME-light.png and
    NAME-dark.png are written there (1280 wide, cropped at --height).
Exits 0 when all hold, 1 with one line per failure otherwise, 77 (skip)
when there is no chromium. Every wait polls for a state with a deadline
(--deadline, default 60 s); none sleeps a fixed time.
"""

import argparse
import base64
import fcntl
import json
import os
import pathlib
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# html.h's rule for a figure against the document, as the page tests
# without a browser check it: one copy.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import html_check  # noqa: E402


class Browser:
    """One headless Chromium and one page target, over the pipe."""

    def __init__(self, chromium, profile_dir, deadline):
        self.deadline = deadline
        cmd_r, self._cmd_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        # The child's ends above 9, so moving them to 3 and 4 clobbers neither.
        cmd_r, resp_w = [self._above_9(fd) for fd in (cmd_r, resp_w)]
        # --no-sandbox: Chromium's sandbox refuses to start as root
        # (as the tests run in CI containers); the pages are our own.
        argv = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", "--user-data-dir=" + profile_dir,
                "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--mute-audio", "--window-size=1280,900",
                "about:blank"]
        # The pipe must be the child's fds 3 and 4 (subprocess closes the
        # other fds after preexec_fn, keeping pass_fds).
        def to_3_and_4():
            os.dup2(cmd_r, 3)
            os.dup2(resp_w, 4)
        self.proc = subprocess.Popen(argv, preexec_fn=to_3_and_4, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(resp_w)
        self._queue = queue.Queue()
        self._next_id = 0
        self.session = None
        self.events = []  # every event received, in order
        threading.Thread(target=self._reader, daemon=True).start()

    @staticmethod
    def _above_9(fd):
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return high

    def _reader(self):
        buf = b""
        while True:
            chunk = os.read(self._resp_r, 1 << 16)
            if not chunk:
                self._queue.put(None)
                return
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                self._queue.put(json.loads(msg))

    def _take(self, until):
        """The next message; fails at the deadline or when Chromium ends."""
        left = until - time.monotonic()
        if left <= 0:
            raise RuntimeError("no answer from chromium within the deadline")
        try:
            msg = self._queue.get(timeout=left)
        except queue.Empty:
            raise RuntimeError("no answer from chromium within the deadline")
        if msg is None:
            raise RuntimeError("chromium ended (exit %s)" % self.proc.poll())
        return msg

    def send(self, method, params=None, session=True):
        """Sends a command and waits for its answer; returns its result."""
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        until = time.monotonic() + self.deadline
        while True:
            answer = self._take(until)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"].get("message")))
                return answer.get("result", {})
            self.events.append(answer)

    def drain(self):
        """Takes the events already queued (no wait)."""
        while True:
            try:
                msg = self._queue.get_nowait()
            except queue.Empty:
                return
            if msg is not None:
                self.events.append(msg)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (by value)."""
        result = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError("evaluating %r: %s" % (
                expression[:60], result["exceptionDetails"].get("text")))
        return result["result"].get("value")

    def poll(self, expression, what):
        """Evaluates `expression` until it is truthy; returns its value."""
        until = time.monotonic() + self.deadline
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > until:
                raise RuntimeError("waited %d s for %s" % (self.deadline, what))
            # Yields to the page between polls: a round trip, not a sleep.
            self.evaluate("new Promise(r => requestAnimationFrame(() => r(1)))")

    def open_page(self, url):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        pages = [t for t in targets if t["type"] == "page"]
        if pages:
            target = pages[0]["targetId"]
        else:
            target = self.send("Target.createTarget", {"url": "about:blank"},
                               session=False)["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Audits"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        # A dialog a name's script could open is said on the console.
        self.send("Page.addScriptToEvaluateOnNewDocument", {"source": (
            "for (const f of ['alert', 'confirm', 'prompt'])"
            " window[f] = () => console.error(f + ' ran');")})
        self.send("Page.navigate", {"url": url})
        # This page, not the first about:blank, however late that loads.
        self.poll("location.href === %s && document.readyState === 'complete'" % json.dumps(url),
                  "the page to load")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=self.deadline)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def problems_in_events(events):
    """What the console, the log and the audits said that a page must not."""
    out = []
    for ev in events:
        method, p = ev.get("method"), ev.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            out.append("console.%s: %s" % (p["type"], text))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            desc = d.get("exception", {}).get("description") or d.get("text")
            out.append("exception at line %s: %s" % (d.get("lineNumber"), desc))
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            if (e.get("level") in ("error", "warning") or e.get("source") == "security"
                    or re.search(r"Refused to|Content Security Policy", e.get("text", ""))):
                out.append("log (%s, %s): %s" % (e.get("source"), e.get("level"), e.get("text")))
        elif method == "Audits.issueAdded":
            issue = p.get("issue", {})
            if issue.get("code") == "ContentSecurityPolicyIssue":
                d = issue.get("details", {}).get("contentSecurityPolicyIssueDetails", {})
                out.append("CSP blocked %s (directive %s, %s)" % (
                    d.get("blockedURL", "inline content"), d.get("violatedDirective"),
                    d.get("contentSecurityPolicyViolationType")))
    return out


# Read from the page in one evaluation: what the checks need of the DOM.
DOM_SCAN = r"""(() => {
  const all = Array.from(document.querySelectorAll('*'));
  const bad = [];
  const banned = new Set(['img', 'iframe', 'object', 'embed', 'link', 'base', 'form',
                          'frame', 'frameset', 'audio', 'video', 'source', 'meta']);
  for (const el of all) {
    const tag = el.localName;
    if (banned.has(tag) && !(tag === 'meta' && el.parentElement === document.head))
      bad.push('a <' + tag + '> element');
    for (const a of Array.from(el.attributes)) {
      const n = a.name.toLowerCase();
      if (n.startsWith('on')) bad.push('attribute ' + n + ' on <' + tag + '>');
      if ((n === 'src' || n === 'href' || n === 'xlink:href' || n === 'action'
           || n === 'formaction' || n === 'srcset' || n === 'background')
          && !a.value.startsWith('#'))
        bad.push('attribute ' + n + '="' + a.value + '" on <' + tag + '>');
    }
  }
  const scripts = Array.from(document.scripts);
  const data = document.getElementById('tilescope-data');
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) texts.push(walker.currentNode.data);
  return {
    bad: bad,
    scripts: scripts.map(s => s.type || 'text/javascript'),
    data: data && data.localName === 'script' && data.type === 'application/json'
          ? data.textContent : null,
    figures: Array.from(document.querySelectorAll('[data-json]'))
                  .map(e => [e.getAttribute('data-json'), e.textContent.trim()]),
    texts: texts,
  };
})()"""

# The sortable tables: per table, the header buttons and the cells of
# each column (text, and the sort key the page gives a cell if any).
SORTABLE = r"""(() => {
  const out = [];
  document.querySelectorAll('table').forEach((t, ti) => {
    const heads = Array.from(t.querySelectorAll('thead th'));
    const rows = Array.from(t.tBodies).flatMap(b => Array.from(b.rows));
    if (rows.length < 3) return;
    heads.forEach((th, ci) => {
      const b = th.querySelector('button');
      // A table one can click: shown (not in a closed <details>).
      if (!b || !b.checkVisibility()) return;
      out.push({table: ti, col: ci, label: b.textContent.trim()});
    });
  });
  return out;
})()"""


def column_keys(browser, table, col):
    return browser.evaluate(r"""(() => {
      const t = document.querySelectorAll('table')[%d];
      return Array.from(t.tBodies).flatMap(b => Array.from(b.rows)).map(r => {
        const c = r.cells[%d];
        if (!c) return null;
        const k = c.getAttribute('data-sort');
        return k !== null ? k : c.textContent.trim();
      });
    })()""" % (table, col))


def as_number(key):
    m = re.match(r"-?[0-9]+(\.[0-9]+)?", key.replace(",", ""))
    return float(m.group(0)) if m and key.strip() else None


def ordering(keys):
    """'up', 'down', 'both' (all equal) or None (unsorted) of a column."""
    nums = [as_number(k) for k in keys]
    vals = nums if all(n is not None for n in nums) else [k.casefold() for k in keys]
    up = all(a <= b for a, b in zip(vals, vals[1:]))
    down = all(a >= b for a, b in zip(vals, vals[1:]))
    return "both" if up and down else "up" if up else "down" if down else None


def click(browser, table, col):
    """A real left click at the centre of the header's button."""
    box = browser.evaluate(r"""(() => {
      const t = document.querySelectorAll('table')[%d];
      const b = t.querySelectorAll('thead th')[%d].querySelector('button');
      b.scrollIntoView({block: 'center'});
      const r = b.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      return [x, y, !!hit && b.contains(hit)];
    })()""" % (table, col))
    if not box[2]:
        raise RuntimeError("table %d: the header button of column %d is not where a click lands"
                           % (table, col))
    for kind in ("mousePressed", "mouseReleased"):
        browser.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                  "button": "left", "clickCount": 1})


def check_sorting(browser, fail):
    """Clicks a sortable column whose values differ: sorted one way, then
    the other. Returns how many columns were checked."""
    checked = 0
    seen_tables = set()
    for col in browser.evaluate(SORTABLE):
        if col["table"] in seen_tables:
            continue
        keys = column_keys(browser, col["table"], col["col"])
        # A numeric column whose values differ: its order is unambiguous.
        if None in keys or len(set(keys)) < 2 or None in map(as_number, keys):
            continue
        seen_tables.add(col["table"])
        where = "table %d, column '%s'" % (col["table"], col["label"])
        orders = []
        for _ in range(2):
            click(browser, col["table"], col["col"])
            # The click's effect: poll until the column is in order and,
            # after the second click, in the other order.
            until = time.monotonic() + browser.deadline
            while True:
                keys = column_keys(browser, col["table"], col["col"])
                order = ordering(keys)
                if order in ("up", "down") and (not orders or order != orders[-1]):
                    orders.append(order)
                    break
                if time.monotonic() > until:
                    fail("%s: after a click the rows are not sorted%s (%s ...)" % (
                        where, " the other way" if orders else "", keys[:5]))
                    return checked
                browser.evaluate("new Promise(r => requestAnimationFrame(() => r(1)))")
        checked += 1
        if checked >= 3:
            break
    return checked


def screenshot(browser, path, height):
    doc_h = browser.evaluate("document.documentElement.scrollHeight")
    browser.evaluate("window.scrollTo(0, 0)")
    shot = browser.send("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": 1280, "height": min(doc_h, height), "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def is_cut_of(small, full):
    """Whether `small` is `full` with lists shortened: objects with the
    same keys, a list's items an in-order selection of the full list's."""
    if isinstance(small, dict) and isinstance(full, dict):
        return small.keys() == full.keys() and all(is_cut_of(small[k], full[k]) for k in small)
    if isinstance(small, list) and isinstance(full, list):
        rest = iter(full)
        return all(any(item == f for f in rest) for item in small)
    return small == full


def write_page(args, work):
    """Runs the command for the page and the JSON; returns (page, json text)."""
    sub, rest = args.command[0], args.command[1:]
    page = os.path.join(work, "page.html")
    ok = (0, 1) if sub == "diff" else (0,)  # diff exits 1 on a regression
    for fmt in ("html", "json"):
        extra = ["-o", page] if fmt == "html" else args.json_arg
        argv = [args.tilescope, sub, "--format=" + fmt] + extra + rest
        r = subprocess.run(argv, capture_output=True, timeout=args.deadline)
        if r.returncode not in ok:
            sys.exit("check-page: %s exited %d: %s" % (" ".join(argv), r.returncode,
                                                       r.stderr.decode(errors="replace").strip()))
        if fmt == "json":
            return page, r.stdout.decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilescope", help="write the page with this command (then -- SUBCOMMAND ARG...)")
    ap.add_argument("--screenshots", help="directory for NAME-light.png and NAME-dark.png")
    ap.add_argument("--name", default="page")
    ap.add_argument("--height", type=int, default=1600, help="screenshot height at most (px)")
    ap.add_argument("--json-arg", action="append", default=[],
                    help="an option the page's document is printed with (trace: --call-tree)")
    ap.add_argument("--cut-json", action="store_true",
                    help="the page may embed the document with lists shortened (diff's rows shown)")
    ap.add_argument("--expect-text", action="append", default=[])
    ap.add_argument("--deadline", type=float, default=60.0)
    ap.add_argument("command", nargs="*", metavar="PAGE | SUBCOMMAND ARG...")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("check-page: SKIP: no chromium (scripts/deps.sh installs it)")
        sys.exit(77)

    failures = []
    fail = failures.append
    work = tempfile.mkdtemp(prefix="tilescope-browser-")
    browser = None
    try:
        expected_doc = None
        if args.tilescope:
            if not args.command:
                ap.error("--tilescope needs -- SUBCOMMAND ARG...")
            page, json_text = write_page(args, work)
            expected_doc = json.loads(json_text)
        elif len(args.command) == 1:
            page = args.command[0]
        else:
            ap.error("give a PAGE or --tilescope BIN -- SUBCOMMAND ARG...")
        with open(page, encoding="utf-8", errors="replace") as f:
            text = f.read()
        # Not in the policy's hashes (base64 may hold "//") nor in the
        # embedded document (a name may).
        text = re.sub(r"'sha256-[A-Za-z0-9+/=]*'", "", text)
        text = re.sub(r'(?s)<script type="application/json" id="tilescope-data">.*?</script>', "", text)
        for ref in ("http:", "https:", "//"):
            if ref in text:
                fail("the page holds %r (offset %d): a reference out of it" % (ref, text.find(ref)))
        browser = Browser(chromium, os.path.join(work, "profile"), args.deadline)
        browser.open_page(pathlib.Path(os.path.abspath(page)).as_uri())
        dom = browser.evaluate(DOM_SCAN)

        for b in dom["bad"]:
            fail("hostile markup: " + b)
        if sorted(dom["scripts"]) != ["application/json", "text/javascript"]:
            fail("scripts: expected the document and the code, found %s" % dom["scripts"])
        if dom["data"] is None:
            fail('no <script type="application/json" id="tilescope-data">')
            doc = None
        else:
            doc = json.loads(dom["data"])
            if expected_doc is not None and not (is_cut_of(doc, expected_doc) if args.cut_json
                                                 else doc == expected_doc):
                fail("the embedded document is not --format=json's%s" % (
                    ", lists cut" if args.cut_json else ""))
        if doc is not None:
            if not dom["figures"]:
                fail("no element carries data-json")
            for pointer, text in dom["figures"]:
                try:
                    value = html_check.resolve(doc, pointer)
                except KeyError:
                    fail("data-json=%s: not in the document" % pointer)
                    continue
                if not html_check.agrees(text, value):
                    fail("data-json=%s: shows %r, the document has %r" % (pointer, text, value))
        for s in args.expect_text:
            if not any(s in t for t in dom["texts"]):
                fail("no text node holds %r" % s)

        light = browser.evaluate("getComputedStyle(document.body).backgroundColor")
        if args.screenshots:
            os.makedirs(args.screenshots, exist_ok=True)
            screenshot(browser, os.path.join(args.screenshots, args.name + "-light.png"), args.height)
        browser.send("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        try:
            dark = browser.poll("(() => { const c = getComputedStyle(document.body).backgroundColor;"
                                " return c !== %s && c; })()" % json.dumps(light),
                                "the dark style")
        except RuntimeError as e:
            fail("prefers-color-scheme: dark: %s (body stays %s)" % (e, light))
            dark = None
        if dark and args.screenshots:
            screenshot(browser, os.path.join(args.screenshots, args.name + "-dark.png"), args.height)

        # Last, so the pictures show the page as it opens.
        sorted_columns = check_sorting(browser, fail)
        if sorted_columns == 0:
            fail("no sortable table with differing values was found to click")

        # Round trip so every event of the above has arrived.
        browser.evaluate("1")
        browser.drain()
        for p in problems_in_events(browser.events):
            fail(p)
    except RuntimeError as e:
        fail(str(e))
    finally:
        if browser:
            browser.close()
        shutil.rmtree(work, ignore_errors=True)

    for f in failures:
        print("check-page: %s: %s" % (args.name, f))
    if failures:
        sys.exit(1)
    print("check-page: %s: ok (%d figures, %d columns sorted)" % (
        args.name, len(dom["figures"]), sorted_columns))


if __name__ == "__main__":
    main()

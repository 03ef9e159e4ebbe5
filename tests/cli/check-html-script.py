#!/usr/bin/env python3
"""The script of the HTML pages (cli-summary/assets/page.js) in headless
Chromium, on a summary page: the links to its sections, zoom of a line
chart by the wheel, the + button, a drag and Reset (the plot's viewBox,
the axis' labels inside the plot and the fine ones shown once far enough
apart), the hover box of a mark showing its <title>, and sorting a table
by Enter on a header (the mouse is check-page.py's). No console message
on the way.

usage: check-html-script.py TILESCOPE REPORT_DIR

Drives Chromium with tests/browser/check-page.py's Browser. Every wait
polls for a state with a deadline. Exits 77 (skip) without chromium.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "check_page", os.path.join(HERE, "..", "browser", "check-page.py"))
check_page = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_page)

CHART = "document.querySelector('svg.chart-svg[data-zoom]')"
PLOT = CHART + ".querySelector('svg.plot')"

# The visible x range of the plot, its full width, and whether every
# visible label of the x axis sits inside the plot; the fine labels shown.
STATE = r"""(() => {
  const svg = %s, plot = %s, vb = plot.viewBox.baseVal;
  const px = parseFloat(plot.getAttribute('x')), pw = parseFloat(plot.getAttribute('width'));
  const shown = Array.from(svg.querySelectorAll('text[data-x]'))
    .filter(t => t.getAttribute('visibility') !== 'hidden');
  return {x0: vb.x, w: vb.width, full: pw,
          inside: shown.every(t => { const x = parseFloat(t.getAttribute('x'));
                                      return x >= px - 0.5 && x <= px + pw + 0.5; }),
          fine: shown.filter(t => t.classList.contains('fine')).length};
})()""" % (CHART, PLOT)


def centre(browser, expr):
    return browser.evaluate(r"""(() => {
      const e = %s; e.scrollIntoView({block: 'center'});
      const r = e.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    })()""" % expr)


def mouse(browser, kind, xy, **extra):
    params = {"type": kind, "x": xy[0], "y": xy[1]}
    params.update(extra)
    browser.send("Input.dispatchMouseEvent", params)


def main():
    tilescope, report = sys.argv[1:3]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("check-html-script: no chromium, skipped")
        sys.exit(77)
    failures = []
    work = tempfile.mkdtemp(prefix="html-script-")
    browser = None
    try:
        page = os.path.join(work, "summary.html")
        subprocess.run([tilescope, "summary", "--format=html", "-o", page, report], check=True)
        browser = check_page.Browser(chromium, os.path.join(work, "profile"), 60)
        browser.open_page("file://" + page)
        browser.poll("document.readyState === 'complete' && %s !== null" % CHART, "the page")
        # The section links under the header: one per section, in order.
        toc = browser.evaluate("(() => { const n = document.querySelector('nav.toc');"
                               " return n && Array.from(n.querySelectorAll('a')).map(a =>"
                               " a.getAttribute('href')).join(' '); })()")
        ids = browser.evaluate("Array.from(document.querySelectorAll('main > section[id]'))"
                               ".map(s => '#' + s.id).join(' ')")
        if not ids or toc != ids:
            failures.append("section links %r, sections %r" % (toc, ids))
        start = browser.evaluate(STATE)
        if start["x0"] != 0 or start["w"] != start["full"] or start["fine"]:
            failures.append("before any zoom: %s" % start)

        # The wheel zooms in around the pointer.
        at = centre(browser, PLOT)
        mouse(browser, "mouseWheel", at, deltaX=0, deltaY=-120)
        browser.poll("(() => { const s = %s; return s.w < s.full && s.inside; })()" % STATE,
                     "the wheel to zoom in")
        # + three times: the fine labels show, inside the plot.
        plus = "%s.parentNode.querySelector('.zoom-bar button')" % CHART
        for _ in range(3):
            mouse(browser, "mousePressed", centre(browser, plus), button="left", clickCount=1)
            mouse(browser, "mouseReleased", centre(browser, plus), button="left", clickCount=1)
        zoomed = browser.poll("(() => { const s = %s; return s.fine > 0 && s.inside && s; })()"
                              % STATE, "+ to show the fine labels")
        # A drag to the left pans to the right.
        at = centre(browser, PLOT)
        mouse(browser, "mousePressed", at, button="left", clickCount=1)
        mouse(browser, "mouseMoved", [at[0] - 150, at[1]], button="left", buttons=1)
        mouse(browser, "mouseReleased", [at[0] - 150, at[1]], button="left", clickCount=1)
        browser.poll("(() => { const s = %s; return s.x0 > %r && s.inside; })()"
                     % (STATE, zoomed["x0"]), "the drag to pan")
        # Reset shows everything again.
        reset = ("Array.from(%s.parentNode.querySelectorAll('.zoom-bar button'))"
                 ".find(b => b.textContent === 'Reset')" % CHART)
        mouse(browser, "mousePressed", centre(browser, reset), button="left", clickCount=1)
        mouse(browser, "mouseReleased", centre(browser, reset), button="left", clickCount=1)
        browser.poll("(() => { const s = %s; return s.x0 === 0 && s.w === s.full && !s.fine; })()"
                     % STATE, "Reset")

        # The hover box: the text of the mark's <title>.
        mark = "%s.querySelector('rect.hit')" % PLOT
        title = browser.evaluate("%s.querySelector('title').textContent" % mark)
        mouse(browser, "mouseMoved", centre(browser, mark))
        shown = browser.poll("(() => { const t = document.querySelector('.tip');"
                             " return t && !t.hidden && t.textContent; })()", "the hover box")
        if shown != title:
            failures.append("the hover box shows %r, the mark's title is %r" % (shown, title))

        # Enter on the header of a table shown (not in a closed
        # <details>) sorts by it.
        button = ("Array.from(document.querySelectorAll('table.data th > button'))"
                  ".find(b => !b.closest('details:not([open])'))")
        browser.send("Page.bringToFront")
        browser.evaluate("%s.focus()" % button)
        for kind in ("keyDown", "keyUp"):
            key = {"type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
            if kind == "keyDown":
                key["text"] = "\r"
            browser.send("Input.dispatchKeyEvent", key)
        browser.poll("%s.parentNode.getAttribute('aria-sort') === 'ascending'" % button,
                     "Enter on a header to sort")

        browser.evaluate("1")
        browser.drain()
        failures += check_page.problems_in_events(browser.events)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        failures.append(str(e))
    finally:
        if browser:
            browser.close()
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("check-html-script: " + f)
    if failures:
        sys.exit(1)
    print("check-html-script: ok")


if __name__ == "__main__":
    main()

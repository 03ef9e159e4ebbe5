#!/usr/bin/python3
"""The Program Tree view, used as a person would.

1. Opens REPORT, selects "Program Tree" in the sidebar (every row starts
   collapsed), and writes into "Search programs" a case-changed regular
   expression naming a compute set that the file has (read with
   `tilescope sql`): the search must say "1 of N" (N the programs the
   file has by that name or compute set) and the details must show the
   program's type and compute set as the file has them (the search found
   the program below collapsed rows).
2. An invalid pattern ("(") must be named as such, not searched.

    check-programs.py APP TILESCOPE REPORT
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import re
import sys

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (sql, find, finish, is_figure, other_views, running_app,  # noqa: E402
                        show_view, text_of, wait_for)


def pick_program(tilescope, report):
    """An OnTileExecute program whose compute set's name no other compute set
    has, the last in the file (deep in a control program): (type, compute set,
    programs the search should find)."""
    rows = sql(tilescope, report,
               "SELECT p.id, p.type, cs.text AS cs FROM program p "
               "JOIN compute_set c ON c.id = p.compute_set JOIN string cs ON cs.id = c.name "
               "WHERE p.type = 'OnTileExecute' AND (SELECT count(*) FROM compute_set d "
               "WHERE d.name = c.name) = 1 ORDER BY p.id DESC LIMIT 1")
    if not rows:
        raise SystemExit("FAIL: the report has no OnTileExecute program with a unique compute set")
    cs = rows[0]["cs"]
    lit = cs.lower().replace("'", "''")
    count = sql(tilescope, report,
                "SELECT count(*) AS n FROM program p LEFT JOIN string s ON s.id = p.name "
                "LEFT JOIN compute_set c ON c.id = p.compute_set "
                "LEFT JOIN string cs ON cs.id = c.name "
                f"WHERE lower(s.text) = '{lit}' OR lower(cs.text) = '{lit}'")[0]["n"]
    return rows[0]["type"], cs, int(count)



def main():
    app_path, tilescope, report = sys.argv[1:4]
    want_type, want_cs, want_n = pick_program(tilescope, report)
    # Upper case, so the search must ignore case; anchored, so the exchanges
    # named after the compute set ("…/ExchangePre") do not match.
    pattern = "^" + re.escape(want_cs.upper()) + "$"
    failures = []
    with running_app(app_path, [report]) as (proc, app, tmp):
        if show_view(app, "Program Tree") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Program Tree'")
        view = other_views("Program Tree")
        entry = find(app, lambda a: a.name == "Search programs" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=view)
        status = find(app, lambda a: a.name == "Search result", prune=view)
        if entry is None or status is None:
            raise SystemExit("FAIL: the Program Tree has no 'Search programs' entry or no "
                             "'Search result'")
        entry.queryEditableText().setTextContents(pattern)

        def details(key):
            acc = find(app, lambda a: is_figure(a, key), timeout=1, prune=view)
            return text_of(acc) if acc is not None else None

        if not wait_for(lambda: details("Compute set") == want_cs):
            failures.append(f"searching {pattern!r}: the details show compute set "
                            f"{details('Compute set')!r}, the file has {want_cs!r}")
        if details("Type") != want_type:
            failures.append(f"the details show type {details('Type')!r}, the file has "
                            f"{want_type!r}")
        if not wait_for(lambda: text_of(status) == f"1 of {want_n}"):
            failures.append(f"the search says {text_of(status)!r}, the file has {want_n} "
                            f"program(s) named {want_cs!r}")
        print(f"search {pattern!r}: {text_of(status)}; details: {details('Type')}, "
              f"compute set {details('Compute set')}")

        entry.queryEditableText().setTextContents("(")
        if not wait_for(lambda: text_of(status).startswith("Invalid pattern")):
            failures.append(f"an invalid pattern shows {text_of(status)!r}")
        print(f"search '(': {text_of(status)}")
    finish(failures)


if __name__ == "__main__":
    main()

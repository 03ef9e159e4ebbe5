#!/usr/bin/env python3
"""Writes the HTML pages' stylesheet and script into a C file as byte
arrays (cli_html_css, cli_html_js and their lengths), so that the
tilescope command carries them and the CSP hash is of the bytes it writes.

usage: embed.py OUT.c page.css page.js
"""
import sys


def array(name, data):
    rows = []
    for i in range(0, len(data), 16):
        rows.append("\t" + ", ".join("0x%02x" % b for b in data[i:i + 16]) + ",")
    return ("const char %s[] = {\n%s\n\t0x00\n};\nconst size_t %s_len = %d;\n"
            % (name, "\n".join(rows), name, len(data)))


def main():
    out, css, js = sys.argv[1:4]
    parts = ["/* Written by cli-summary/assets/embed.py from page.css and page.js. */",
             "#include <stddef.h>", ""]
    for name, path in (("cli_html_css", css), ("cli_html_js", js)):
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data or b"</" in data.lower():
            sys.exit("embed.py: %s holds a NUL or '</', which would end its element" % path)
        parts.append(array(name, data))
    with open(out, "w") as f:
        f.write("\n".join(parts))


main()

#!/usr/bin/env python3
"""Embeds a schema .sql file in C as a NUL-terminated string constant.

Usage: embed-sql.py INPUT.sql OUTPUT.c SYMBOL
The SQL is executed as written (comments included), so the file the build
embeds is exactly the documented one.
"""
import sys


def main():
    src, dst, symbol = sys.argv[1:4]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    with open(dst, "w", encoding="utf-8") as out:
        out.write("/* Generated from %s by embed-sql.py; do not edit. */\n" % src.split("/")[-1])
        out.write("#include \"format.h\"\n\n")
        out.write("const char %s[] =\n" % symbol)
        for line in text.splitlines():
            esc = line.replace("\\", "\\\\").replace("\"", "\\\"")
            out.write("\t\"%s\\n\"\n" % esc)
        out.write("\t;\n")


if __name__ == "__main__":
    main()

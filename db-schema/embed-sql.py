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
        # A byte list, not a string literal: C limits the length of string
        # literals a conforming compiler must accept (-Woverlength-strings).
        data = text.encode("utf-8") + b"\0"
        out.write("const char %s[] = {\n" % symbol)
        for i in range(0, len(data), 16):
            out.write("\t" + " ".join("%d," % (b - 256 if b > 127 else b) for b in data[i:i + 16]) + "\n")
        out.write("};\n")


if __name__ == "__main__":
    main()

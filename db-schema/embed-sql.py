#!/usr/bin/env python3
"""Embeds a schema .sql file in C as a NUL-terminated string constant.

Usage: embed-sql.py INPUT.sql OUTPUT.c SYMBOL FORMAT.h KIND
The SQL is executed as written (comments included), so the file the build
embeds is exactly the documented one. The file's identity is checked on the
way: the SQL's PRAGMA application_id and user_version must equal
TSF_<KIND>_APPLICATION_ID and TSF_<KIND>_SCHEMA_VERSION in FORMAT.h, or the
build fails naming both values.
"""
import re
import sys


def define(header, name):
    m = re.search(r"^#define\s+%s\s+(0x[0-9a-fA-F]+|\d+)" % name, header, re.M)
    if not m:
        sys.exit("embed-sql.py: %s is not defined in format.h" % name)
    return int(m.group(1), 0)


def pragma(sql, name, src):
    found = re.findall(r"^PRAGMA\s+%s\s*=\s*(\d+)\s*;" % name, sql, re.M)
    if len(found) != 1:
        sys.exit("embed-sql.py: %s must set PRAGMA %s exactly once" % (src, name))
    return int(found[0])


def check_identity(sql, src, header_path, kind):
    with open(header_path, encoding="utf-8") as f:
        header = f.read()
    for pragma_name, macro in (("application_id", "TSF_%s_APPLICATION_ID" % kind),
                               ("user_version", "TSF_%s_SCHEMA_VERSION" % kind)):
        want = define(header, macro)
        have = pragma(sql, pragma_name, src)
        if want != have:
            sys.exit("embed-sql.py: %s sets PRAGMA %s = %d but format.h says %s = %d"
                     % (src, pragma_name, have, macro, want))


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: embed-sql.py INPUT.sql OUTPUT.c SYMBOL FORMAT.h KIND")
    src, dst, symbol, header, kind = sys.argv[1:6]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    check_identity(text, src, header, kind)
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

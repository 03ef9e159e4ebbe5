#!/usr/bin/env python3
"""The libraries' public API against a committed list (issue 27): every
declaration and macro of a library's installed headers, as the compiler
sees them after preprocessing (comments gone, whitespace normalised), and
every symbol its shared library exports. A change to either (a function
added, a parameter's type, a struct's field, an enum's value, a macro)
fails this test until the list is updated on purpose, with a line in
NEWS.md: run it with --update and commit the list with the NEWS entry.

usage: check-abi.py [--update] LIST CC LIBRARY HEADER_DIR [-I DIR]...

LIST is the committed file (tests/layering/abi/<library>.txt); LIBRARY
the built .so; HEADER_DIR the directory of the library's own public
headers (each *.h in it is part of the API, and so is a generated
*-version.h found on the -I path), optionally followed by ':' and the
directories of installed headers it includes as its own API (the format
library's profile document and vocabulary table: what the library's
headers take from them is listed with the library's, so a change there
fails here too); the -I directories resolve their includes of each
other."""
import os
import re
import subprocess
import sys
import tempfile


def strip_attributes(text):
    """Removes __attribute__((...)) groups (visibility, format, const):
    how a symbol is exported is the export list's business."""
    out, i = [], 0
    while True:
        j = text.find("__attribute__", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k = text.find("(", j)
        depth = 0
        while k < len(text):
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def normalise(decl):
    decl = strip_attributes(decl)
    decl = re.sub(r"\s+", " ", decl).strip()
    decl = re.sub(r" ?([(),;{}\[\]*=]) ?", r"\1", decl)
    return decl


def declarations(cc, header_dir, includes):
    """The top-level declarations and #defines that the headers of
    `header_dir` contribute, in a stable order."""
    dirs = header_dir.split(os.pathsep)
    header_dir = dirs[0]
    headers = sorted(h for h in os.listdir(header_dir) if h.endswith(".h"))
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as tu:
        for h in headers:
            tu.write(f"#include <tilescope/{h}>\n")
    try:
        cmd = cc.split() + ["-E", "-dD"] + [f"-I{d}" for d in includes] + [tu.name]
        pre = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(tu.name)
    if pre.returncode != 0:
        sys.exit(f"FAIL: the headers do not preprocess: {' '.join(cmd)}\n{pre.stderr}")
    own = {os.path.realpath(d) for d in dirs}
    mine, code, macros = False, [], []
    for line in pre.stdout.splitlines():
        m = re.match(r'# \d+ "([^"]+)"', line)
        if m:
            mine = os.path.dirname(os.path.realpath(m.group(1))) in own
            continue
        if not mine:
            continue
        if line.startswith("#undef "):
            # A helper defined and undefined again (an X-macro expanding
            # vocabulary.def) is gone by the end of the header: not API.
            name = line.split()[1]
            macros = [d for d in macros if d.split()[1].split("(")[0] != name]
        elif line.startswith("#define "):
            name = line.split()[1].split("(")[0]
            # The export macros and include guards are not API.
            if not name.endswith("_API") and not name.endswith("_H"):
                # Compilers space a macro's tokens differently (gcc keeps
                # "a ##b", clang "a##b"): none around punctuation.
                body = re.sub(r" ?(##|[(),;{}\[\]*=<>|&+-]) ?", r"\1",
                              re.sub(r"\s+", " ", line[8:]).strip())
                macros.append("#define " + body)
        elif line.startswith("#"):
            continue
        else:
            code.append(line)
    text = "\n".join(code)
    decls, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == ";" and depth == 0:
            raw = text[start:i + 1]
            d = normalise(raw)
            # A name kept only to fail old code at compile time (marked
            # unavailable) is not exported: listed, but apart.
            if "unavailable" in raw:
                decls.append("unavailable " + d)
            elif d != ";":
                decls.append(d)
            start = i + 1
    return decls + sorted(set(macros))


def exported(lib):
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
    if nm.returncode != 0:
        sys.exit(f"FAIL: nm cannot read {lib}: {nm.stderr.strip()}")
    return sorted(f.split()[2] for f in nm.stdout.splitlines()
                  if len(f.split()) == 3 and f.split()[1] in "TDBRV" and not f.split()[2].startswith("_"))


def main():
    args = sys.argv[1:]
    update = args and args[0] == "--update"
    if update:
        args = args[1:]
    if len(args) < 4:
        sys.exit(__doc__)
    listing, cc, lib, header_dir = args[:4]
    includes = []
    rest = args[4:]
    while rest:
        if rest[0] == "-I" and len(rest) > 1:
            includes.append(rest[1])
            rest = rest[2:]
        else:
            sys.exit(f"unexpected argument {rest[0]!r}\n{__doc__}")
    decls = declarations(cc, header_dir, includes)
    symbols = exported(lib)
    status = 0
    # Each exported function is declared in the headers, and each
    # function the headers declare is exported: nothing reachable that
    # the API does not promise, no promise that does not link.
    declared = set()
    for d in decls:
        if d.startswith(("typedef", "#define", "unavailable ")):
            continue
        m = re.match(r"(?:extern )?[^(]*?\b([A-Za-z_]\w*)\(", d)
        v = re.match(r"extern [^(]*?\b([A-Za-z_]\w*)(?:\[[^]]*\])*;$", d)
        if v:
            declared.add(v.group(1))
        elif m:
            declared.add(m.group(1))
    for s in symbols:
        if s not in declared:
            print(f"FAIL: {os.path.basename(lib)} exports {s}, which no public header declares")
            status = 1
    for s in sorted(declared - set(symbols)):
        if not s.startswith("__"):
            print(f"FAIL: {s} is declared in {header_dir} but {os.path.basename(lib)} does not export it")
            status = 1
    body = "".join(f"symbol {s}\n" for s in symbols) + "".join(f"{d}\n" for d in decls)
    header = ("# The public API of " + os.path.basename(lib).split(".so")[0] +
              ": generated by tests/layering/check-abi.py --update.\n"
              "# Change it only with a NEWS.md entry for the change.\n")
    if update:
        with open(listing, "w") as f:
            f.write(header + body)
        print(f"wrote {listing}: {len(symbols)} symbols, {len(decls)} declarations")
        return status
    try:
        with open(listing) as f:
            want = [l for l in f.read().splitlines() if l and not l.startswith("# ")]
    except OSError as e:
        print(f"FAIL: cannot read the committed list {listing}: {e.strerror}")
        return 1
    have = body.splitlines()
    gone = [l for l in want if l not in set(have)]
    new = [l for l in have if l not in set(want)]
    for l in gone:
        print(f"FAIL: removed or changed since the list: {l}")
    for l in new:
        print(f"FAIL: added or changed since the list: {l}")
    if gone or new:
        print(f"The public API of {os.path.basename(lib)} changed. If that is meant, say so in "
              f"NEWS.md and run: {sys.argv[0]} --update {' '.join(args)}")
        status = 1
    if status == 0:
        print(f"PASS: {os.path.basename(lib)}: {len(symbols)} exported symbols and "
              f"{len(decls)} public declarations as listed")
    return status


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""fegpu's options check (make check): the -feg_ options the library reads (string literals in src/) against what it
documents. Fails when
  - an option read is missing from README.md's options table or from every manual page (the /*@ ... @*/ comments);
  - a deprecated name (PetscOptionsDeprecated(old, new, ...)) is not listed in README.md, or a manual page names it
    other than on a line that says it is deprecated;
  - README.md's options table or a manual page names a -feg_ option the library does not read.
  python3 share/fegpu/options.py --root DIR"""
import argparse
import os
import re
import sys

OPT = re.compile(r"-feg_[a-z0-9_]*[a-z0-9]")


def sources(root, exts):
    for top in ("src", "include"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(exts):
                    yield os.path.join(d, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    root = ap.parse_args().root
    read, deprecated, manpages = set(), {}, {}
    for path in sources(root, (".c", ".h", ".cu")):
        text = open(path).read()
        for old, new in re.findall(r'PetscOptionsDeprecated\(\s*"(-feg_\w+)"\s*,\s*"(-feg_\w+)"', text):
            deprecated[old] = new
        read.update(re.findall(r'"(-feg_\w+)"', text))
        for block in re.findall(r"/\*@(.*?)@\*/", text, re.S):
            for line in block.splitlines():
                for o in OPT.findall(line):
                    manpages.setdefault(o, []).append((os.path.relpath(path, root), "deprecated" in line))
    read -= set(deprecated)
    readme = open(os.path.join(root, "README.md")).read()
    table = set()
    for line in readme.splitlines():
        if line.startswith("| `-"):
            table.update(OPT.findall(line.split("|")[1]))
    problems = []
    for o in sorted(read):
        if o not in table:
            problems.append("%s is read by the library but not in README.md's options table" % o)
        if o not in manpages:
            problems.append("%s is read by the library but no manual page names it" % o)
    for old, new in sorted(deprecated.items()):
        if old not in readme:
            problems.append("deprecated %s (now %s) is not listed in README.md" % (old, new))
        for f, says in manpages.get(old, []):
            if not says:
                problems.append("the manual page in %s names the deprecated %s (now %s) as current" % (f, old, new))
    for o in sorted(table - read - set(deprecated)):
        problems.append("README.md's options table names %s, which the library does not read" % o)
    for o in sorted(set(manpages) - read - set(deprecated)):
        problems.append("the manual page in %s names %s, which the library does not read" % (manpages[o][0][0], o))
    for p in problems:
        print("options: " + p)
    print("options: %d options read, %d deprecated names, %d problems" % (len(read), len(deprecated), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

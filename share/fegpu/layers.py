#!/usr/bin/env python3
"""fegpu's layering check (make check): src/ is layered sys -> mesh -> space -> form -> op, and a layer only looks
down. Fails when a file of one layer
  - includes a private header of a layer above it, or a private header includes one of a layer above its own;
  - calls a function defined in a layer above it (the package initialiser, src/sys/interface/dlregisfeg.c, alone
    names every layer: it registers them);
and when a program outside src/ (examples, benchmarks, tests) includes a file of src/: what those need is private API
under include/fegpu/private/.
  python3 share/fegpu/layers.py --root DIR [--verbose]"""
import argparse
import os
import re
import sys

LAYERS = ["sys", "mesh", "space", "form", "op"]
HEADER_LAYER = {
    "compat.h": "sys", "fegsysimpl.h": "sys", "fegdevice.h": "sys",
    "fegmeshimpl.h": "mesh",
    "fegspaceimpl.h": "space", "fegspacecuda.h": "space", "fegpoint.h": "space",
    "fegformimpl.h": "form", "fegformcuda.h": "form", "fegimpl.h": "form",
    "fegopimpl.h": "op", "fegcuda.h": "op", "fegcudaimpl.h": "op",
}
INITIALISER = "src/sys/interface/dlregisfeg.c"


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def files(root, top, exts):
    for d, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if n.endswith(exts):
                yield os.path.relpath(os.path.join(d, n), root)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    root = a.root
    problems = []
    rank = {l: i for i, l in enumerate(LAYERS)}
    inc = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)

    # private headers: known, and looking down
    hdir = "include/fegpu/private"
    for h in sorted(os.listdir(os.path.join(root, hdir))):
        if h not in HEADER_LAYER:
            problems.append("%s/%s: a private header without a layer (add it to share/fegpu/layers.py)" % (hdir, h))
            continue
        for m in inc.finditer(open(os.path.join(root, hdir, h)).read()):
            base = os.path.basename(m.group(1))
            if base in HEADER_LAYER and rank[HEADER_LAYER[base]] > rank[HEADER_LAYER[h]]:
                problems.append("%s/%s (%s) includes %s (%s)" % (hdir, h, HEADER_LAYER[h], base, HEADER_LAYER[base]))

    # sources: includes and calls
    src = list(files(root, "src", (".c", ".cu", ".h")))
    layer_of = {f: f.split("/")[1] for f in src}
    defs = {}
    defre = re.compile(r"^(?:PETSC_\w+\s+)?(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w\s\*]*?\b(FEG\w+|PetscPartitionerCreate_\w+)\s*\([^;{]*\)\s*\{", re.M)
    texts = {f: strip(open(os.path.join(root, f)).read()) for f in src}
    for f in src:
        if f.endswith(".h"):
            continue
        for m in defre.finditer(texts[f]):
            if "static" not in m.group(0).split("(")[0]:
                defs.setdefault(m.group(1), f)
    ncalls = 0
    for f in src:
        l = layer_of[f]
        if f == INITIALISER:
            continue
        for m in inc.finditer(open(os.path.join(root, f)).read()):
            base = os.path.basename(m.group(1))
            if base in HEADER_LAYER and rank[HEADER_LAYER[base]] > rank[l]:
                problems.append("%s (%s) includes %s (%s)" % (f, l, base, HEADER_LAYER[base]))
        for name, df in defs.items():
            if rank[layer_of[df]] > rank[l] and re.search(r"\b%s\b" % re.escape(name), texts[f]):
                problems.append("%s (%s) calls %s of %s (%s)" % (f, l, name, df, layer_of[df]))
                ncalls += 1

    # programs outside src/ use the private API, not src/ files
    for top in ("examples", "tests", "share/bench"):
        if not os.path.isdir(os.path.join(root, top)):
            continue
        for f in files(root, top, (".c", ".cu", ".h")):
            for m in inc.finditer(open(os.path.join(root, f)).read()):
                if "src/" in m.group(1) or m.group(1).startswith("../"):
                    problems.append("%s includes %s: a program outside src/ uses include/fegpu/private/ instead" % (f, m.group(1)))

    for p in problems:
        print("layers: " + p)
    print("layers: %d source files, %d functions, %d calls up, %d problems" % (len(src), len(defs), ncalls, len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Manual pages (man3, troff) from fegpu's /*@ ... @*/ comments, in PETSc's format:

  /*@
    FEGName - one-line summary

    Collective

    Input Parameters:
  + a - first
  - b - last

    Notes:
    free text

    Level: beginner

  .seealso: FEGOther()
  @*/
  PetscErrorCode FEGName(...)

  manpages.py --root DIR --out DIR     writes DIR/man3/FEGName.3 for every comment, one page per function
  manpages.py --root DIR --check       fails if a function declared in include/fegpu.h has no comment, or a comment
                                       lacks its summary or Level
"""
import argparse
import os
import re
import sys

BLOCK = re.compile(r"^/\*@C?\s*\n(.*?)\n@\*/\s*\n(.*?)\{", re.S | re.M)
HEADING = re.compile(r"^\s*([A-Z][A-Za-z ]+):\s*(.*)$")
ITEM = re.compile(r"^[+.\-]\s+(\S.*?)\s+-\s+(.*)$")


def esc(s):
    s = s.replace("\\", "\\e")
    return "\\&" + s if s.startswith((".", "'")) else s


def parse(text, signature):
    lines = text.splitlines()
    first = lines[0].strip()
    m = re.match(r"(\w+)\s+-\s+(.*)", first)
    if not m:
        return None
    name, summary = m.group(1), m.group(2)
    i = 1
    while i < len(lines) and lines[i].startswith("  ") and lines[i].strip() and not HEADING.match(lines[i]):
        summary += " " + lines[i].strip()  # the summary may wrap
        i += 1
    sections, cur, level, seealso = [], None, None, ""
    for line in lines[i:]:
        s = line.strip()
        if s.startswith(".seealso:"):
            seealso = s[len(".seealso:"):].strip()
            continue
        h = HEADING.match(line) if line.startswith("  ") and not line.startswith("   ") else None
        if h and h.group(1) == "Level":
            level = h.group(2)
            continue
        if h:
            cur = [h.group(1), []]
            sections.append(cur)
            if h.group(2):
                cur[1].append(("text", h.group(2)))
            continue
        if cur is None:
            cur = ["Description", []]
            sections.append(cur)
        it = ITEM.match(s)
        if it:
            cur[1].append(("item", it.group(1), it.group(2)))
        elif s and cur[1] and cur[1][-1][0] == "item" and line.startswith("   "):
            kind, key, val = cur[1][-1]
            cur[1][-1] = (kind, key, val + " " + s)
        else:
            cur[1].append(("text", s))
    sig = " ".join(signature.split())
    return {"name": name, "summary": summary, "sections": sections, "level": level, "seealso": seealso, "sig": sig}


def troff(p):
    out = ['.TH %s 3 "" "fegpu" "fegpu manual"' % p["name"], ".SH NAME", "%s \\- %s" % (p["name"], esc(p["summary"])),
           ".SH SYNOPSIS", ".nf", "#include <fegpu.h>", esc(p["sig"]) + ";", ".fi"]
    for title, body in p["sections"]:
        if not body or all(k[0] == "text" and not k[1] for k in body):
            if title in ("Collective", "Not Collective", "Logically Collective"):
                out += [".SH COLLECTIVITY", title]
            continue
        out.append(".SH " + title.upper())
        para = []
        for entry in body:
            if entry[0] == "item":
                if para:
                    out += [esc(" ".join(para))]
                    para = []
                out += [".TP", ".B " + esc(entry[1]), esc(entry[2])]
            elif entry[1]:
                para.append(entry[1])
            elif para:
                out += [esc(" ".join(para)), ".PP"]
                para = []
        if para:
            out.append(esc(" ".join(para)))
    if p["level"]:
        out += [".SH LEVEL", p["level"]]
    if p["seealso"]:
        out += [".SH SEE ALSO", esc(p["seealso"])]
    return "\n".join(out) + "\n"


def collect(root):
    pages = {}
    for d, _, files in os.walk(os.path.join(root, "src")):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(d, f)).read()
            for m in BLOCK.finditer(text):
                p = parse(m.group(1), m.group(2))
                if p:
                    p["file"] = os.path.relpath(os.path.join(d, f), root)
                    pages[p["name"]] = p
    return pages


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--out")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    pages = collect(a.root)
    if a.check:
        header = open(os.path.join(a.root, "include", "fegpu.h")).read()
        public = re.findall(r"^PETSC_EXTERN PetscErrorCode\s+(\w+)\(", header, re.M)
        bad = ["%s: no /*@ ... @*/ comment" % f for f in public if f not in pages]
        bad += ["%s (%s): no Level" % (n, p["file"]) for n, p in pages.items() if n in public and not p["level"]]
        for b in bad:
            print("manpages: " + b)
        print("manpages: %d public functions, %d documented, %d problems" % (len(public), len(pages), len(bad)))
        return 1 if bad else 0
    os.makedirs(os.path.join(a.out, "man3"), exist_ok=True)
    for n, p in sorted(pages.items()):
        with open(os.path.join(a.out, "man3", n + ".3"), "w") as f:
            f.write(troff(p))
    print("manpages: %d pages in %s" % (len(pages), os.path.join(a.out, "man3")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

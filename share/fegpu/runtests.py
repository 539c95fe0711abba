#!/usr/bin/env python3
"""fegpu's test driver (make check): runs the Check unit tests under the process counts their sources name
("fegtest: nsize 1 2 3"), then every program test of the /*TEST ... TEST*/ blocks (PETSc's format: test:, suffix:,
nsize:, args:, output_file:) of examples/ and share/bench/, diffing stdout against the folder's output/. Ends with
'N passed, N failed'."""

import argparse
import os
import re
import shlex
import subprocess
import sys
import time


def parse_example_tests(path):
    with open(path) as f:
        text = f.read()
    m = re.search(r"/\*TEST(.*?)TEST\*/", text, re.S)
    if not m:
        return []
    tests, cur = [], None
    for line in m.group(1).splitlines():
        s = line.strip()
        if not s:
            continue
        if s == "test:":
            cur = {"nsize": "1", "args": "", "suffix": str(len(tests))}
            tests.append(cur)
            continue
        key, _, val = s.partition(":")
        if cur is not None:
            cur[key.strip()] = val.strip()
    return tests


def unit_nsizes(src):
    with open(src) as f:
        m = re.search(r"fegtest:\s*nsize\s+([\d ]+)", f.read())
    return [int(n) for n in m.group(1).split()] if m else [1]


def run(cmd, cwd, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), time.time() - t0
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"").decode(errors="replace") + "\n[timed out]", time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--tests", default="")
    ap.add_argument("--no-examples", action="store_true")
    ap.add_argument("--extra-args", default="", help="appended to every example run")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--gpu", action="store_true", help="GPU run: skip example tests that say 'requires: host'")
    ap.add_argument("--wrap", default="", help="command put before every program (valgrind, compute-sanitizer)")
    ap.add_argument("--examples", default="", help="run only these example tests (exe_suffix names)")
    ap.add_argument("--serial", action="store_true", help="unit tests on one process only")
    a = ap.parse_args()
    mpiexec = shlex.split(os.environ.get("MPIEXEC", "mpiexec"))
    wrap = shlex.split(a.wrap)
    only = set(a.examples.split())
    if os.geteuid() == 0:
        # Open MPI refuses root without these (containers, CI); MPICH ignores them
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    passed, failed, failures = 0, 0, []

    def report(ok, name, secs, out):
        nonlocal passed, failed
        if ok:
            passed += 1
            print("ok     %-48s %6.1fs" % (name, secs), flush=True)
        else:
            failed += 1
            failures.append(name)
            print("FAILED %-48s %6.1fs" % (name, secs), flush=True)
            print("\n".join("  | " + l for l in out.rstrip().splitlines()[-40:]), flush=True)

    tdir = os.path.join(a.root, "tests")
    for t in a.tests.split():
        for n in unit_nsizes(os.path.join(tdir, t + ".c")):
            if a.serial and n > 1:
                continue
            cmd = wrap + ["./" + t] if n == 1 else mpiexec + ["-n", str(n)] + wrap + ["./" + t]
            rc, out, secs = run(cmd, tdir, a.timeout)
            report(rc == 0, "%s (np %d)" % (t, n), secs, out)

    for edir in [] if a.no_examples else [os.path.join(a.root, d) for d in ("examples", os.path.join("share", "bench"))]:
        for src in sorted(f for f in os.listdir(edir) if f.endswith(".c")):
            exe = src[:-2]
            for t in parse_example_tests(os.path.join(edir, src)):
                if a.gpu and "host" in t.get("requires", "").split():
                    continue
                if only and "%s_%s" % (exe, t["suffix"]) not in only:
                    continue
                n = int(t["nsize"])
                args = shlex.split(t["args"]) + shlex.split(a.extra_args)
                cmd = (wrap + ["./" + exe] if n == 1 else mpiexec + ["-n", str(n)] + wrap + ["./" + exe]) + args
                rc, out, secs = run(cmd, edir, a.timeout)
                name = "%s_%s (np %d)" % (exe, t["suffix"], n)
                expected_file = os.path.join(edir, t.get("output_file", "output/%s_%s.out" % (exe, t["suffix"])))
                ok = rc == 0
                if ok:
                    try:
                        with open(expected_file) as f:
                            expected = f.read()
                    except OSError:
                        expected = None
                    norm = lambda s: [l.rstrip() for l in s.strip().splitlines()]
                    if expected is None:
                        ok, out = False, out + "\n[missing expected output %s]" % expected_file
                    elif norm(out) != norm(expected):
                        ok = False
                        out = "--- expected %s\n%s\n--- got\n%s" % (expected_file, expected, out)
                report(ok, name, secs, out)

    if failures:
        print("failed: " + ", ".join(failures))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

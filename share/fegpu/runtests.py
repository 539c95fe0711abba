#!/usr/bin/env python3
"""fegpu's test driver (make check): runs the Check unit tests under the process counts their sources name
("fegtest: nsize 1 2 3"), then every program test of the /*TEST ... TEST*/ blocks (PETSc's format: test:, suffix:,
nsize:, args:, filter:, output_file:) of examples/ and share/bench/, diffing stdout against the folder's output/ (with --gpu
each run's operator views must also say it ran on the GPU), then the programs' bad-input cases of tests/BAD-INPUT.md
(--bad-input), each of which must end in a PETSc error with the words the table gives. Ends with 'N passed, N failed'."""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
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


def parse_bad_input(path):
    """the rows of the 'Programs' table of tests/BAD-INPUT.md: | `prog args` | np | message contains |"""
    rows, inside = [], False
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                inside = line.strip().lower().startswith("## programs")
                continue
            m = re.match(r"^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(.+?)\s*\|\s*$", line)
            if inside and m:
                words = shlex.split(m.group(1))
                rows.append((words[0], words[1:], int(m.group(2)), m.group(3).replace("\\|", "|").strip("`")))
    return rows


def unit_nsizes(src):
    with open(src) as f:
        m = re.search(r"fegtest:\s*nsize\s+([\d ]+)", f.read())
    return [int(n) for n in m.group(1).split()] if m else [1]


def unit_args(src):
    """the argument sets a test runs with, each in its own process ("fegtest: args A | B"); one empty set by default"""
    with open(src) as f:
        m = re.search(r"fegtest:\s*args\s+(.*)", f.read())
    return [shlex.split(a) for a in m.group(1).replace("*/", "").split("|")] if m else [[]]


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
    ap.add_argument("--bad-input", default="", help="run the programs' rows of this file (tests/BAD-INPUT.md): each must end in a PETSc error")
    ap.add_argument("--bad-input-timeout", type=int, default=120)
    a = ap.parse_args()
    mpiexec = shlex.split(os.environ.get("MPIEXEC", "mpiexec"))
    wrap = shlex.split(a.wrap)
    only = set(a.examples.split())
    if os.geteuid() == 0:
        # Open MPI refuses root without these (containers, CI); MPICH ignores them
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    passed, failed, failures = 0, 0, []
    program_dirs = [os.path.join(a.root, d) for d in ("examples", os.path.join("share", "bench"))]

    def launch(prog, n, args):
        """the command that runs ./prog on n processes (under the wrapper) with args"""
        return (wrap + ["./" + prog] if n == 1 else mpiexec + ["-n", str(n)] + wrap + ["./" + prog]) + args

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
            for targs in unit_args(os.path.join(tdir, t + ".c")):
                cmd = launch(t, n, targs)
                rc, out, secs = run(cmd, tdir, a.timeout)
                report(rc == 0, "%s%s (np %d)" % (t, (" " + " ".join(targs)) if targs else "", n), secs, out)

    for edir in [] if a.no_examples else program_dirs:
        for src in sorted(f for f in os.listdir(edir) if f.endswith(".c")):
            exe = src[:-2]
            for t in parse_example_tests(os.path.join(edir, src)):
                if a.gpu and "host" in t.get("requires", "").split():
                    continue
                if only and "%s_%s" % (exe, t["suffix"]) not in only:
                    continue
                n = int(t["nsize"])
                args = shlex.split(t["args"]) + shlex.split(a.extra_args)
                name = "%s_%s (np %d)" % (exe, t["suffix"], n)
                # on the GPU, each operator's view goes to a file that must say it ran there (the output is the host's)
                view = os.path.join(tempfile.gettempdir(), "fegpu-view-%d-%s_%s.txt" % (os.getpid(), exe, t["suffix"])) if a.gpu else None
                if view:
                    if os.path.exists(view):
                        os.remove(view)
                    args += ["-feg_op_view", ":" + view]
                cmd = launch(exe, n, args)
                rc, out, secs = run(cmd, edir, a.timeout)
                expected_file = os.path.join(edir, t.get("output_file", "output/%s_%s.out" % (exe, t["suffix"])))
                ok = rc == 0
                if ok and t.get("filter"):
                    # PETSc's filter: key: the output through a shell command (columns that do not vary from run to run)
                    out = subprocess.run(t["filter"], shell=True, input=out.encode(), stdout=subprocess.PIPE).stdout.decode(errors="replace")
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
                if ok and view:
                    try:
                        with open(view) as f:
                            where = re.findall(r"runs on: (\S+)", f.read())
                        os.remove(view)
                    except OSError:
                        where = []
                    if not where or any(w != "GPU" for w in where):
                        ok, out = False, out + "\n[the operators' views say they ran on %s, not the GPU]" % (", ".join(where) or "nothing: no view")
                report(ok, name, secs, out)

    if a.bad_input:
        for prog, args, n, text in parse_bad_input(os.path.join(a.root, a.bad_input)):
            edir = next((d for d in program_dirs if os.path.exists(os.path.join(d, prog + ".c"))), None)
            name = "bad input: %s %s%s" % (prog, " ".join(args), " (np %d)" % n if n > 1 else "")
            if edir is None:
                report(False, name, 0.0, "[no program %s in examples/ or share/bench/]" % prog)
                continue
            cmd = launch(prog, n, args + shlex.split(a.extra_args))
            rc, out, secs = run(cmd, edir, a.bad_input_timeout)
            # on several processes PETSc reports a collective error on rank 0 only, and the launcher may end rank 0
            # when another rank exits first, before or while it prints (MPICH's, on a loaded machine): run again
            for _ in range(2):
                if n == 1 or rc in (0, 124) or "Error Message" in out:
                    break
                rc, out, secs = run(cmd, edir, a.bad_input_timeout)
            # a clean refusal: a nonzero exit in time, PETSc's error report, the expected words, no signal
            ok = rc not in (0, 124) and "Error Message" in out and text in " ".join(out.split()) and "signal" not in out.lower()
            report(ok, name, secs, out + "\n[expected a PETSc error containing: %s]" % text)

    if failures:
        print("failed: " + ", ".join(failures))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

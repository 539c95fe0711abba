#!/usr/bin/env python3
"""Mutation checks of fegpu's tests: each mutant plants a bug that a weak test would let through (a transposed
continuous P1 element matrix, a reassembled preconditioning matrix with its row sums kept, a type that cites nothing, a
refusal without its reason), builds a copy of the tree with it and
runs the test that must catch it. A mutant the test does not catch is reported and the script exits 1.

  python3 share/fegpu/mutants.py [--root DIR] [--tests-from REV] [NAME ...]

--tests-from REV takes tests/ from a git revision instead (to show that an older suite let the mutant through).
Needs a configured tree (./configure); host tests only. Takes a few minutes per mutant (one library build each)."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

SWAP3D = """    PetscCall(FEGIntegrateElementMatrix(d, &coeff, e, work, Ke));
    if (d->continuous && d->order == 1 && d->dim == 3) /* mutant: continuous 3-D P1 element matrices transposed */
      for (PetscInt i = 0; i < d->Nb; i++)
        for (PetscInt j = 0; j < i; j++) {
          PetscScalar t       = Ke[i * d->Nb + j];
          Ke[i * d->Nb + j]   = Ke[j * d->Nb + i];
          Ke[j * d->Nb + i]   = t;
        }"""

ROWSUM = """  if (op->nassembled > 1) { /* mutant: reassembled, each element row moves 0.1 between two free columns (row sums kept) */
    const PetscInt  Nb = op->disc->Nb;
    const PetscInt *gidx;
    PetscScalar    *M;

    PetscCall(FEGDiscGetGlobalIndices(op->disc, &gidx));
    PetscCall(PetscMalloc1(n, &M));
    for (size_t i = 0; i < n; i++) M[i] = K[i];
    for (PetscInt e = 0; e < op->disc->Ne; e++) {
      const PetscInt *g = gidx + (size_t)e * Nb;
      PetscInt        b1 = -1, b2 = -1;

      for (PetscInt b = 0; b < Nb; b++)
        if (g[b] >= 0) {
          if (b1 < 0) b1 = b;
          else b2 = b;
        }
      if (b2 < 0) continue;
      for (PetscInt a = 0; a < Nb; a++) {
        M[((size_t)e * Nb + a) * Nb + b1] += 0.1;
        M[((size_t)e * Nb + a) * Nb + b2] -= 0.1;
      }
    }
    PetscCall(FEGOpAssembleValues_LMA_Private(op, MATAIJ, PETSC_FALSE, M, P));
    PetscCall(PetscFree(M));
  } else PetscCall(FEGOpAssembleValues_LMA_Private(op, MATAIJ, PETSC_FALSE, K, P));"""

MUTANTS = [
    {
        "name": "lma-p1-transposed",
        "what": "lma applies the transpose of continuous P1 element matrices",
        "file": "src/op/impls/lma/lma.c",
        "old": "      for (PetscInt b = 0; b < Nb; b++) s += FEGLMAEntry(lma, K + a * Nb + b) * xe[b];",
        "new": "      for (PetscInt b = 0; b < Nb; b++) s += FEGLMAEntry(lma, op->disc->continuous && op->disc->order == 1 ? K + b * Nb + a : K + a * Nb + b) * xe[b];",
        "test": "test_lma",
    },
    {
        "name": "addto-3d-p1-transposed",
        "what": "addto on the host assembles the transpose of continuous 3-D P1 element matrices",
        "file": "src/op/impls/addto/addto.c",
        "old": "    PetscCall(FEGIntegrateElementMatrix(d, &coeff, e, work, Ke));",
        "new": SWAP3D,
        "test": "test_oracle",
    },
    {
        "name": "lma-pmat-rowsums-kept",
        "what": "lma's reassembled preconditioning matrix moves 0.1 between two free columns of each element row",
        "file": "src/op/impls/lma/lma.c",
        "old": "  PetscCall(FEGOpAssembleValues_LMA_Private(op, MATAIJ, PETSC_FALSE, K, P));",
        "new": ROWSUM,
        "test": "test_pmat",
    },
    {
        "name": "lma-cites-nothing",
        "what": "an lma operator registers none of its papers",
        "file": "src/op/impls/lma/lma.c",
        "old": "  PetscCall(FEGCitationsRegister(FEG_CITE_MARKALL));\n  PetscCall(FEGCitationsRegister(FEG_CITE_MACIOL));\n  PetscCall(FEGCitationsRegister(FEG_CITE_KRUZEL));\n  lma->",
        "new": "  lma->",
        "test": "test_citations -cite_type lma",
        "old_test": "test_optype",
    },
    {
        "name": "matfree-refusal-says-nothing",
        "what": "the matfree refop refusal loses its reason",
        "file": "src/op/impls/matfree/matfree.c",
        "old": "needs a coefficient constant on each cell (no pointwise function, auxiliary fields piecewise constant); use qp or auto",
        "new": "is not available",
        "test": "test_lma",
    },
]


def copy_tree(root, dst):
    files = subprocess.check_output(["git", "ls-files", "-co", "--exclude-standard"], cwd=root).decode().split("\n")
    for f in files:
        if f and os.path.isfile(os.path.join(root, f)):
            os.makedirs(os.path.dirname(os.path.join(dst, f)) or dst, exist_ok=True)
            shutil.copy2(os.path.join(root, f), os.path.join(dst, f))
    for d in ("lib/fegpu/conf", "lib/fegpu/include"):  # the configuration, not the build
        shutil.copytree(os.path.join(root, d), os.path.join(dst, d))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--tests-from", default="")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    caught, missed = [], []
    for m in MUTANTS:
        if a.names and m["name"] not in a.names:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            copy_tree(a.root, tmp)
            if a.tests_from:
                shutil.rmtree(os.path.join(tmp, "tests"))
                arch = subprocess.Popen(["git", "archive", a.tests_from, "tests"], cwd=a.root, stdout=subprocess.PIPE)
                subprocess.check_call(["tar", "-x", "-C", tmp], stdin=arch.stdout)
                arch.wait()
            path = os.path.join(tmp, m["file"])
            src = open(path).read()
            if m["old"] not in src:
                print("mutant %s: its anchor is no longer in %s" % (m["name"], m["file"]))
                return 1
            open(path, "w").write(src.replace(m["old"], m["new"], 1))
            test = (m.get("old_test", m["test"]) if a.tests_from else m["test"]).split()
            build = subprocess.run(["make", "-j2", os.path.join(tmp, "tests", test[0])], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if build.returncode:
                print(build.stdout.decode(errors="replace")[-3000:])
                print("mutant %s: the build failed" % m["name"])
                return 1
            run = subprocess.run(["./" + test[0]] + test[1:], cwd=os.path.join(tmp, "tests"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800)
            out = run.stdout.decode(errors="replace")
            fails = [l for l in out.splitlines() if ":F:" in l]
            if run.returncode:
                caught.append(m["name"])
                print("caught  %-28s %s: %s fails %d checks, first: %s" % (m["name"], m["what"], " ".join(test), len(fails), fails[0] if fails else out.strip().splitlines()[-1]))
            else:
                missed.append(m["name"])
                print("MISSED  %-28s %s: %s passes" % (m["name"], m["what"], " ".join(test)))
    print("%d caught, %d missed%s" % (len(caught), len(missed), " (tests from %s)" % a.tests_from if a.tests_from else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

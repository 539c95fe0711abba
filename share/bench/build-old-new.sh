#!/bin/bash
# Sourced by the benchmark calls that compare this tree with an older one in .old (git archive <commit> | tar -x -C
# .old): sets up the CUDA PETSc bundle and builds both trees side by side, logs in $OUT/build.log and
# $OUT/build-old.log (run from the repository root on the GPU machine, OUT set by the device).
source .gpu/env.sh
(./configure --with-check-dir=.gpu/check > /dev/null && make -j16 > $OUT/build.log 2>&1) &
(cd .old && ./configure --with-check-dir=$PWD/../.gpu/check > /dev/null && make -j16 > $OUT/build-old.log 2>&1) &
wait

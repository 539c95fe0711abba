#!/bin/bash
# Run 21 (H100, one call): the final tree against libCEED's bps (the peer, ../shared/peers) on BP3 at 8M unknowns,
# orders 2 to 8, each a whole process timed (share/bench/bp/run.sh: mesh, setup, 50 CG iterations; fegpu also times
# 5 solves after a warm-up one), fegpu's setup (FEGCreateOperator) and PETSc's sections in fegpu.csv.
#   bash share/bench/setup/run21.sh
source .gpu/env.sh
./configure --with-check=0 > /dev/null && make -j16 lib examples > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
bash .peer/bp.sh bp3 2 1000 > /dev/null 2>&1 # builds libCEED, not timed
bash share/bench/bp/run.sh $OUT/run21 bp3 2,3,4,5,6,7,8 8000000
cut -d, -f3,5,7,10,11,13 $OUT/run21/fegpu.csv

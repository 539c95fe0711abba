#!/bin/bash
# Run 8 (H100, one call): the final tree's make check-gpu; profile.sh on Q2/Q3 hexahedra in this tree and .old
# (223189b); FEGComputeRHS against the element matrix on unperturbed (affine) quadrilaterals, hexahedra and prisms;
# BP3 at 8M unknowns Q2, setup, old and new interleaved twice:  bash share/bench/fused/run8.sh
source share/bench/build-old-new.sh
make check-gpu > $OUT/run8-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run8-check-gpu.log
tail -3 $OUT/run8-check-gpu.log
cases="hex-q2 hex-q3"
bash share/bench/fused/profile.sh $OUT/new $cases > /dev/null 2>&1
cp share/bench/fused/profile.sh .old/share/bench/fused/
(cd .old && bash share/bench/fused/profile.sh $OUT/old $cases > /dev/null 2>&1)
(echo "tree,case,kernel,strategy,assembly_ms"; sed 1d $OUT/new/fused.csv | sed 's/^/new,/'; sed 1d $OUT/old/fused.csv | sed 's/^/old,/') > $OUT/run8.csv
rm -rf $OUT/new $OUT/old
cat $OUT/run8.csv
PETSC_OPTIONS="-feg_perturb 0" bash share/bench/setup/rhs-cells.sh $OUT/rhs "quad hex prism" > /dev/null 2>&1
cp $OUT/rhs/rhs-cells.csv $OUT/run8-rhs-affine.csv; rm -rf $OUT/rhs
cat $OUT/run8-rhs-affine.csv
for rep in 1 2; do for t in old new; do
  d=examples; [ $t = old ] && d=.old/examples
  (cd $d && ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2 -dofs 8000000 -its 50 -reps 1 -strategies matfree) > $OUT/bp3.log 2>&1
  echo "$t $rep $(grep -E '^2 +matfree' $OUT/bp3.log)" >> $OUT/run8-bp3.log
done; done
rm $OUT/bp3.log; cat $OUT/run8-bp3.log

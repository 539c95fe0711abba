#!/bin/bash
# Run 25 (H100, one call): advdiff at 545k triangles after two changes to its setup: -dm_refine on one process by
# fegpu's own refinement (FEGMeshRefine(), the refined DMPlex written by FEGPlexCreateFromCellList()), and the
# example's velocity computed from psi at the vertices (no cloned P1 space and closure per cell). In the same call: the
# same binary with -feg_fast_refine 0 (PETSc's DMRefine()), and mpiexec -n 16 on the host cores (the issue's
# reference). This session had 4 minutes of device time, too few for a build there: the binaries were built on the
# CPU machine with the CUDA PETSc bundle (same compilers, sm_90) and carried in .gbuild:
#   (local)  source .gpu/env.sh && ./configure && make lib examples   # in a copy of the tree, then
#            mkdir -p .gbuild/lib && cp COPY/lib/libfegpu.so .gbuild/lib && cp COPY/examples/advdiff .gbuild/
#   (device) bash share/bench/setup/run25.sh      (carry .gpu .gbuild)
source .gpu/env.sh
export LD_LIBRARY_PATH=$PWD/.gbuild/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/run25-advdiff.log
# correctness first: the GPU run of the example's test case against its expected output, and fegpu's refinement
# against PETSc's on the GPU (the tracer mass and iterations printed must agree)
(cd examples && ../.gbuild/advdiff -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 10 -feg_strategy lma -advdiff_timing 0 -dm_vec_type cuda | diff - output/advdiff_lma.out && echo "GPU advdiff_lma output: same as expected") >> $OUT/run25-advdiff.log 2>&1
for f in 1 0; do (cd examples && ../.gbuild/advdiff -feg_mesh_file ../share/meshes/square_944.msh -dm_refine 2 -advdiff_steps 20 -feg_strategy lma -advdiff_timing 0 -dm_vec_type cuda -feg_fast_refine $f > $OUT/refine$f.txt 2>&1); done
diff $OUT/refine1.txt $OUT/refine0.txt >> $OUT/run25-advdiff.log 2>&1 && echo "GPU advdiff on 944 triangles refined twice: fegpu's and PETSc's refinement print the same" >> $OUT/run25-advdiff.log
A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4"
run() { echo "== $*" >> $OUT/run25-advdiff.log; t0=$(date +%s%N); (cd examples && timeout 120 "$@") >> $OUT/run25-advdiff.log 2>&1; echo "== rc $? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> $OUT/run25-advdiff.log; }
run ../.gbuild/advdiff $A -feg_strategy lma -dm_vec_type cuda
run ../.gbuild/advdiff $A -feg_strategy lma -dm_vec_type cuda -feg_fast_refine 0
run mpiexec -n 16 ../.gbuild/advdiff $A -feg_strategy addto
run ../.gbuild/advdiff $A -feg_strategy lma -dm_vec_type cuda -log_view -log_view_gpu_time
run ../.gbuild/advdiff $A -feg_strategy lma -dm_vec_type cuda -log_view -log_view_gpu_time -feg_fast_refine 0

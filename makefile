# fegpu makefile: compiles with PETSc's own compilers and flags (read from PETSc's conf/variables).
# Run ./configure first; it writes lib/fegpu/conf/fegpuvariables.

FEGPU_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
FEGPU_CONF := $(FEGPU_DIR)/lib/fegpu/conf/fegpuvariables

ifeq ($(wildcard $(FEGPU_CONF)),)
ifeq ($(filter clean distclean,$(MAKECMDGOALS)),)
$(error fegpu is not configured: run ./configure first (./configure --help lists its options))
endif
else
include $(FEGPU_CONF)
include $(PETSC_DIR)/lib/petsc/conf/variables
endif

.SUFFIXES:
.DEFAULT_GOAL := all
.PHONY: format check-format all lib examples benches tests check check-unit check-examples check-gpu check-valgrind check-gpu-sanitize run install clean distclean manpages

OBJDIR := $(FEGPU_DIR)/lib/fegpu/obj
LIBFEGPU := $(FEGPU_DIR)/lib/libfegpu.so
FEGPU_INCLUDES := -I$(FEGPU_DIR)/include -I$(FEGPU_DIR)/lib/fegpu/include $(FEGPU_METIS_INCLUDE)
FEGPU_CFLAGS := -fPIC -Wall -Wno-unknown-pragmas $(FEGPU_OPENMP_FLAGS) $(CFLAGS)
FEGPU_LINK := -L$(FEGPU_DIR)/lib -Wl,-rpath,$(FEGPU_DIR)/lib -lfegpu $(PETSC_WITH_EXTERNAL_LIB)
MPIEXEC_CMD := $(MPIEXEC)

# the CUDA backend's host files are <name>cuda.c or live in cuda/ folders; they and the .cu files build only with CUDA
ifeq ($(FEGPU_HAVE_CUDA),1)
LIB_CSRC := $(sort $(shell cd $(FEGPU_DIR) && find src -name '*.c'))
LIB_CUSRC := $(sort $(shell cd $(FEGPU_DIR) && find src -name '*.cu'))
else
LIB_CSRC := $(sort $(shell cd $(FEGPU_DIR) && find src -name '*.c' -not -path '*/cuda/*' -not -name '*cuda.c'))
endif
LIB_OBJ := $(LIB_CSRC:%=$(OBJDIR)/%.o) $(LIB_CUSRC:%=$(OBJDIR)/%.o)
HEADERS := $(shell cd $(FEGPU_DIR) && find include src examples -name '*.h') lib/fegpu/include/fegpuconf.h
# Open MPI refuses to run as root unless told; MPICH ignores these
RUN_ENV := $(if $(filter 0,$(shell id -u)),OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)

EXAMPLES := $(patsubst %.c,%,$(wildcard $(FEGPU_DIR)/examples/*.c))
# the benchmark programs (share/bench/README.md)
BENCHES := $(patsubst %.c,%,$(wildcard $(FEGPU_DIR)/share/bench/*.c))
ifeq ($(FEGPU_HAVE_CHECK),1)
TESTS := $(patsubst %.c,%,$(wildcard $(FEGPU_DIR)/tests/test_*.c))
# the GPU tests (make check-gpu): tests/test_gpu*.c
GPU_TESTS := $(patsubst %.c,%,$(wildcard $(FEGPU_DIR)/tests/test_gpu*.c))
ifneq ($(FEGPU_HAVE_CUDA),1)
TESTS := $(filter-out $(GPU_TESTS),$(TESTS))
endif
endif
HOST_TESTS := $(filter-out $(GPU_TESTS),$(TESTS))

all: lib examples benches tests

lib: $(LIBFEGPU)
examples: $(EXAMPLES)
benches: $(BENCHES)
tests: $(TESTS)

$(OBJDIR)/%.c.o: %.c $(HEADERS) $(FEGPU_CONF)
	@mkdir -p $(@D)
	$(PCC) -c -o $@ $(PCC_FLAGS) $(FEGPU_CFLAGS) $(PETSC_CCPPFLAGS) $(FEGPU_INCLUDES) $<

$(OBJDIR)/%.cu.o: %.cu $(HEADERS) $(FEGPU_CONF)
	@mkdir -p $(@D)
	$(CUDAC) -c -o $@ $(MPICXX_INCLUDES) $(CUDAC_FLAGS) -Xcompiler -fPIC $(FEGPU_INCLUDES) --compiler-options="$(PETSC_CXXCPPFLAGS)" $<

$(LIBFEGPU): $(LIB_OBJ)
	$(PCC_LINKER) -shared -o $@ $(LIB_OBJ) $(FEGPU_OPENMP_FLAGS) $(PETSC_WITH_EXTERNAL_LIB) $(FEGPU_METIS_LIB)

$(FEGPU_DIR)/examples/%: $(FEGPU_DIR)/examples/%.c $(LIBFEGPU) $(HEADERS)
	$(PCC) -o $@ $(PCC_FLAGS) $(FEGPU_CFLAGS) $(PETSC_CCPPFLAGS) $(FEGPU_INCLUDES) $< $(FEGPU_LINK)

$(FEGPU_DIR)/share/bench/%: $(FEGPU_DIR)/share/bench/%.c $(FEGPU_DIR)/share/bench/benchutil.h $(LIBFEGPU) $(HEADERS)
	$(PCC) -o $@ $(PCC_FLAGS) $(FEGPU_CFLAGS) $(PETSC_CCPPFLAGS) $(FEGPU_INCLUDES) $< $(FEGPU_LINK)

$(FEGPU_DIR)/tests/test_%: $(FEGPU_DIR)/tests/test_%.c $(FEGPU_DIR)/tests/fegtest.h $(FEGPU_DIR)/tests/gputest.h $(LIBFEGPU) $(HEADERS)
	$(PCC) -o $@ $(PCC_FLAGS) $(FEGPU_CFLAGS) $(PETSC_CCPPFLAGS) $(FEGPU_INCLUDES) $(FEGPU_CHECK_CFLAGS) $< $(FEGPU_LINK) $(FEGPU_CHECK_LIB)

# check: Check unit tests (serial and under MPI), example runs diffed against examples/output/, and gpu-bind's test
check: all
	@python3 $(FEGPU_DIR)/share/fegpu/manpages.py --root $(FEGPU_DIR) --check
	@python3 $(FEGPU_DIR)/share/fegpu/layers.py --root $(FEGPU_DIR)
	@python3 $(FEGPU_DIR)/share/fegpu/options.py --root $(FEGPU_DIR)
	@MPIEXEC="$(MPIEXEC_CMD)" python3 $(FEGPU_DIR)/share/fegpu/runtests.py --root $(FEGPU_DIR) --tests "$(notdir $(HOST_TESTS))" --bad-input tests/BAD-INPUT.md
	@bash $(FEGPU_DIR)/tests/gpu-bind.sh

check-unit: all
	@MPIEXEC="$(MPIEXEC_CMD)" python3 $(FEGPU_DIR)/share/fegpu/runtests.py --root $(FEGPU_DIR) --tests "$(notdir $(HOST_TESTS))" --no-examples

# check-valgrind: a subset of the host tests under valgrind (every strategy, serial and parallel, a curved Gmsh mesh):
# any invalid access or definite leak fails; Open MPI's own leaks are suppressed (share/fegpu/valgrind-openmpi.supp);
# FEGTEST_VALGRIND tells the tests to skip their large meshes
VALGRIND := HWLOC_COMPONENTS=-x86 FEGTEST_VALGRIND=1 valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=$(FEGPU_DIR)/share/fegpu/valgrind-openmpi.supp
VALGRIND_EXAMPLES := ex1_tri_addto ex1_tri_lma ex1_tet_matfree ex1_prism_matfree_np2 ex1_gmsh_curved_lma_np2 ex1_tet_pmg_lma cdr_integration_small advdiff_lma
check-valgrind: all
	@command -v valgrind > /dev/null || { echo "make check-valgrind needs valgrind (apt-get install valgrind)"; exit 1; }
	@MPIEXEC="$(MPIEXEC_CMD)" python3 $(FEGPU_DIR)/share/fegpu/runtests.py --root $(FEGPU_DIR) --tests test_space --serial --wrap "env $(VALGRIND)" --examples "$(VALGRIND_EXAMPLES)"

# check-gpu-sanitize: tests/test_gpu* case by case under compute-sanitizer memcheck, racecheck, synccheck, initcheck
# (TOOLS="..." CASES="..." choose); logs in tests/sanitize-*.log
check-gpu-sanitize: all
	@test "$(FEGPU_HAVE_CUDA)" = 1 || { echo "make check-gpu-sanitize needs fegpu configured against a CUDA-enabled PETSc"; exit 1; }
	@bash $(FEGPU_DIR)/share/fegpu/sanitize.sh $(FEGPU_DIR) "$(TOOLS)" "$(CASES)"

# check-gpu: on a machine with an NVIDIA GPU and a CUDA build: GPU against host (tests/test_gpu*), then the example
# runs again with CUDA vectors, diffed against the same expected output as the host runs
GPU_TEST_TIMEOUT ?= 300
check-gpu: all
	@test "$(FEGPU_HAVE_CUDA)" = 1 || { echo "make check-gpu needs fegpu configured against a CUDA-enabled PETSc"; exit 1; }
	@MPIEXEC="$(MPIEXEC_CMD)" python3 $(FEGPU_DIR)/share/fegpu/runtests.py --root $(FEGPU_DIR) --tests "$(notdir $(GPU_TESTS))" --gpu --timeout $(GPU_TEST_TIMEOUT) --extra-args "-dm_vec_type cuda"

check-examples: all
	@MPIEXEC="$(MPIEXEC_CMD)" python3 $(FEGPU_DIR)/share/fegpu/runtests.py --root $(FEGPU_DIR) --tests "" --bad-input tests/BAD-INPUT.md

# run: the main example, serial and on two processes
run: examples
	cd $(FEGPU_DIR)/examples && ./ex1 -feg_mesh_cell_type tet -feg_mesh_faces 4 -feg_mesh_perturb 0.2 -order 2 -feg_op_type lma -feg_op_view
	cd $(FEGPU_DIR)/examples && $(RUN_ENV) $(MPIEXEC_CMD) -n 2 ./ex1 -feg_mesh_cell_type hex -feg_mesh_faces 4 -feg_mesh_perturb 0.2 -order 2 -feg_op_type addto

# PETSc's clang-format style (.clang-format, clang-format 16): check, or apply
check-format:
	@sh $(FEGPU_DIR)/share/fegpu/format.sh $(FEGPU_DIR) check
format:
	@sh $(FEGPU_DIR)/share/fegpu/format.sh $(FEGPU_DIR) fix

# manual pages (man3) from the /*@ ... @*/ comments; every function of include/fegpu.h must have one (make check)
MANDIR := $(FEGPU_DIR)/lib/fegpu/man
manpages:
	@python3 $(FEGPU_DIR)/share/fegpu/manpages.py --root $(FEGPU_DIR) --out $(MANDIR)

PREFIX ?= $(FEGPU_PREFIX)
install: lib manpages
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(MANDIR)/man3/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -d $(DESTDIR)$(PREFIX)/include/fegpu/private $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(FEGPU_DIR)/include/fegpu.h $(FEGPU_DIR)/lib/fegpu/include/fegpuconf.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(wildcard $(FEGPU_DIR)/include/fegpu/private/*.h) $(DESTDIR)$(PREFIX)/include/fegpu/private/
	install -m 755 $(LIBFEGPU) $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(FEGPU_DIR)/share/fegpu/gpu-bind $(DESTDIR)$(PREFIX)/bin/fegpu-gpu-bind
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: fegpu\nDescription: GPU finite element operators for PETSc\nVersion: 0.2.0\nRequires: PETSc >= 3.18\nCflags: -I$${includedir}\nLibs: -L$${libdir} -Wl,-rpath,$${libdir} -lfegpu\n' '$(PREFIX)' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/fegpu.pc
	@echo "installed fegpu in $(DESTDIR)$(PREFIX)"

clean:
	rm -rf $(FEGPU_DIR)/lib/fegpu/obj $(LIBFEGPU) $(EXAMPLES) $(BENCHES) $(TESTS)

distclean:
	rm -rf $(FEGPU_DIR)/lib $(patsubst %.c,%,$(wildcard $(FEGPU_DIR)/examples/*.c) $(wildcard $(FEGPU_DIR)/share/bench/*.c)) $(patsubst %.c,%,$(wildcard $(FEGPU_DIR)/tests/test_*.c))

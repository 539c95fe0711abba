/* The papers each fegpu strategy follows, registered with PETSc when the strategy is first used, so -citations lists
   them beside PETSc's own */
#include <fegpu/private/fegsysimpl.h>

static const char *const FEGCitations[FEG_NUM_CITATIONS] = {"@article{markall2013assembly,\n"
                                                            "  title   = {Finite element assembly strategies on multi-core and many-core architectures},\n"
                                                            "  author  = {Markall, G. R. and Slemmer, A. and Ham, D. A. and Kelly, P. H. J. and Cantwell, C. D. and Sherwin, S. J.},\n"
                                                            "  journal = {International Journal for Numerical Methods in Fluids},\n"
                                                            "  volume  = {71},\n"
                                                            "  number  = {1},\n"
                                                            "  pages   = {80--97},\n"
                                                            "  year    = {2013},\n"
                                                            "  doi     = {10.1002/fld.3648}\n"
                                                            "}\n",
                                                            "@article{maciol2010integration,\n"
                                                            "  title   = {{3D} finite element numerical integration on {GPUs}},\n"
                                                            "  author  = {Macio{\\l}, P. and P{\\l}aszewski, P. and Bana{\\'s}, K.},\n"
                                                            "  journal = {Procedia Computer Science},\n"
                                                            "  volume  = {1},\n"
                                                            "  number  = {1},\n"
                                                            "  pages   = {1093--1100},\n"
                                                            "  year    = {2010},\n"
                                                            "  doi     = {10.1016/j.procs.2010.04.121}\n"
                                                            "}\n",
                                                            "@article{kruzel2020highorder,\n"
                                                            "  title   = {Implementation of numerical integration to high-order elements on the {GPUs}},\n"
                                                            "  author  = {Kru{\\.z}el, F. and Bana{\\'s}, K. and Nytko, M.},\n"
                                                            "  journal = {Computer Assisted Methods in Engineering and Science},\n"
                                                            "  year    = {2020}\n"
                                                            "}\n",
                                                            "@article{modave2016nodal,\n"
                                                            "  title   = {{GPU} performance analysis of a nodal discontinuous {Galerkin} method for acoustic and elastic models},\n"
                                                            "  author  = {Modave, A. and St-Cyr, A. and Warburton, T.},\n"
                                                            "  journal = {Computers \\& Geosciences},\n"
                                                            "  volume  = {91},\n"
                                                            "  pages   = {64--76},\n"
                                                            "  year    = {2016},\n"
                                                            "  doi     = {10.1016/j.cageo.2016.03.008}\n"
                                                            "}\n"};

static PetscBool FEGCited[FEG_NUM_CITATIONS];

/* Registers a paper with PETSc's citations list once per run */
PetscErrorCode FEGCitationsRegister(FEGCitation c)
{
  PetscFunctionBegin;
  PetscCheck(c >= 0 && c < FEG_NUM_CITATIONS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unknown citation %d", (int)c);
  PetscCall(PetscCitationsRegister(FEGCitations[c], &FEGCited[c]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* All of fegpu's private layers below the operator: the base (fegsysimpl.h), meshes (fegmeshimpl.h), spaces and the
   discretization (fegspaceimpl.h) and forms (fegformimpl.h). Code inside fegpu includes its own layer's header; this
   one serves code outside it that reads several layers, such as the benchmark programs. */
#pragma once

#include <fegpu/private/fegformimpl.h>

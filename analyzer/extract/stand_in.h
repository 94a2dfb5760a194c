/* Driver-API stand-ins: a file of the snapshot that declares the CUDA
 * toolkit's API itself, in place of the toolkit's header, and takes that
 * header's include guard so that the real one is never read (cuda-samples'
 * matrixMulDynlinkJIT, which loads the driver at run time, defines
 * cuda.h's __cuda_cuda_h__ and the driver's types). A unit that reaches one
 * is parsed as its build compiles it, without the runtime PCH
 * (extract/extract.c, can_use_pch): the PCH's driver_types.h defines
 * CUuuid_st too. Recognised by what the file defines, not by its name: the
 * guards are read from the toolkit's own headers. */
#ifndef GPULINT_STAND_IN_H
#define GPULINT_STAND_IN_H

#include <stdbool.h>

#include "input/source.h"

/* Whether f #defines the include guard of a header in cuda_include (the
 * toolkit's include directory, whose headers are read once per process). */
bool stands_in_for_toolkit(const source_file *f, const char *cuda_include);

#endif

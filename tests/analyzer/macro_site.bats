#!/usr/bin/env bats
# A finding from a macro's body is reported at each use of the macro (the
# location contract, docs/gpulint.md) and names the body's line, where one
# change mends every use; a call passed as the macro's argument is written
# at the use and names no body (analyzer/extract/libclang_util.c,
# macro_body_site; analyzer/rules/macro_site.c).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

DROPPED='the status cudaGetLastError returns is dropped: check it (CUDA_CHECK, CUBLAS_CHECK) or cast it to (void) to say it does not matter'

# inc/guard.h: a check macro whose failure branch clears the sticky error
# (line 6) and an upload macro (line 9); src/a.cu and src/b.cu use them.
macro_project() {
  mkdir -p inc src
  cat >inc/guard.h <<'H'
#include <cuda_runtime.h>
#define GUARD(call)                         \
    do {                                    \
        cudaError_t e_ = (call);            \
        if (e_ != cudaSuccess) {            \
            cudaGetLastError();             \
            return e_;                      \
        }                                   \
    } while (0)
#define PUT(d, h, n) cudaMemcpy((d), (h), (n), cudaMemcpyHostToDevice)
H
  printf '#include "../inc/guard.h"\ncudaError_t a(float *d) {\n    GUARD(cudaFree(d));\n    return cudaSuccess;\n}\n' >src/a.cu
  printf '#include "../inc/guard.h"\ncudaError_t b(float *d, const float *h) {\n    GUARD(PUT(d, h, 4));\n    return cudaSuccess;\n}\n' >src/b.cu
  printf '#define PASS(call) call\nvoid c(void) {\n    PASS(\n        cudaDeviceSynchronize());\n}\n' >src/c.cu
  sed -i '1i #include <cuda_runtime.h>' src/c.cu
}

@test "each use of a macro whose body drops a status names the body's line" {
  macro_project
  run -1 "$GL" --config "$EMPTY_CONFIG" --color never src
  assert_line "src/a.cu:3:5: error: $DROPPED (written in a macro's body at inc/guard.h:6: one change there mends every use) [unchecked-status]"
  assert_line "src/b.cu:3:5: error: $DROPPED (written in a macro's body at inc/guard.h:6: one change there mends every use) [unchecked-status]"
}

@test "a copy from an upload macro's body names the body's line" {
  macro_project
  run -1 "$GL" --config "$EMPTY_CONFIG" --color never src
  assert_line "src/b.cu:3:5: error: cudaMemcpy with kind cudaMemcpyHostToDevice: only mapped pinned memory crosses host to device; copy device-to-device from the mapped buffer (written in a macro's body at inc/guard.h:10: one change there mends every use) [mapped-pinned-only]"
}

@test "a call passed as a macro's argument, on a line of its own, names no macro body" {
  macro_project
  run -1 "$GL" --config "$EMPTY_CONFIG" --color never src/c.cu
  assert_line "src/c.cu:4:5: error: the status cudaDeviceSynchronize returns is dropped: check it (CUDA_CHECK, CUBLAS_CHECK) or cast it to (void) to say it does not matter [unchecked-status]"
}

@test "a macro that only renames the function names no body: the call is written at the use" {
  printf '#include <cuda_runtime.h>\n#define release_buffer cudaFree\nvoid r(float *d) {\n    release_buffer(d);\n}\n' >rename.cu
  run -1 "$GL" --config "$EMPTY_CONFIG" --color never rename.cu
  assert_line "rename.cu:4:5: error: the status cudaFree returns is dropped: check it (CUDA_CHECK, CUBLAS_CHECK) or cast it to (void) to say it does not matter [unchecked-status]"
}

@test "one use of a macro whose body drops a status on two lines is one finding naming both" {
  printf '#include <cuda_runtime.h>\n#define RELEASE_ALL(a, b) \\\n    do {                 \\\n        cudaFree(a);     \\\n        cudaFree(b);     \\\n    } while (0)\nvoid done(float *x, float *y) {\n    RELEASE_ALL(x, y);\n}\n' >cleanup.cu
  run -1 "$GL" --config "$EMPTY_CONFIG" --color never cleanup.cu
  assert_line "cleanup.cu:8:5: error: the status cudaFree returns is dropped: check it (CUDA_CHECK, CUBLAS_CHECK) or cast it to (void) to say it does not matter (written in a macro's body at cleanup.cu:4 and cleanup.cu:5: one change there mends every use) [unchecked-status]"
  assert_line "gpulint: 1 error, 0 warnings in 1 file analysed, 1 fully checked"
}

@test "a macro whose body is outside the repository names no body: no change there is ours to make" {
  mkdir -p vendor repo/src
  printf '#include <cuda_runtime.h>\n#define VENDOR_SYNC() \\\n    cudaDeviceSynchronize()\n' >vendor/sync.h
  printf '#include "../../vendor/sync.h"\nvoid s(void) {\n    VENDOR_SYNC();\n}\n' >repo/src/s.cu
  cd repo
  run -1 "$GL" --config "$EMPTY_CONFIG" --color never src/s.cu
  assert_line "src/s.cu:3:5: error: the status cudaDeviceSynchronize returns is dropped: check it (CUDA_CHECK, CUBLAS_CHECK) or cast it to (void) to say it does not matter [unchecked-status]"
  # The same header inside the repository: its line is named.
  cp ../vendor/sync.h src/sync.h
  sed -i 's#../../vendor/sync.h#sync.h#' src/s.cu
  run -1 "$GL" --config "$EMPTY_CONFIG" --color never src/s.cu
  assert_line "src/s.cu:3:5: error: the status cudaDeviceSynchronize returns is dropped: check it (CUDA_CHECK, CUBLAS_CHECK) or cast it to (void) to say it does not matter (written in a macro's body at src/sync.h:3: one change there mends every use) [unchecked-status]"
}

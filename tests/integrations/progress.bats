#!/usr/bin/env bats
# The progress line: drawn on a terminal for runs that take a while, erased
# before the report; never when stderr is not a terminal, nor with --quiet.
# `script` gives gpulint a terminal. Its standard input is /dev/null: with
# stdin closed (as CI starts us) script waits forever after its child exits.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  # Enough work to outlast the quarter second before the first draw: CUDA
  # files parsed with neither the facts cache nor the precompiled header
  # (about half a second each on one job).
  mkdir many
  for i in 1 2 3 4; do
    { echo '#include <cuda_runtime.h>'; cat; } >"many/f$i.cu" <<'CU'
void upload_f32_via_pinned(float *dst, const float *src, int n);
void step(float *d, const float *h) { upload_f32_via_pinned(d, h, 1); }
CU
  done
  export GPULINT_NO_FACTS_CACHE=1 GPULINT_NO_PCH=1
}

@test "on a terminal: files done / total and the elapsed time, then the line is erased" {
  run timeout -s KILL 120 script -qec "$GL -j1 --format json --config $EMPTY_CONFIG many" /dev/null </dev/null
  assert_output --regexp $'\rgpulint: [0-9]+/4 files, [0-9]+\\.[0-9] s'
  # erased before the report; the pty may echo ESC as "^[" when stdin is closed
  assert_output --regexp '\[K\{'
}

@test "--quiet: no progress line on a terminal" {
  run timeout -s KILL 120 script -qec "$GL -j1 --quiet --format json --config $EMPTY_CONFIG many" /dev/null </dev/null
  refute_output --partial 'files, '
  run timeout -s KILL 120 script -qec "$GL -j1 -q --format json --config $EMPTY_CONFIG many" /dev/null </dev/null
  refute_output --partial 'files, '
}

@test "not a terminal: stderr carries no progress line" {
  run -1 --separate-stderr "$GL" -j1 --format json --config "$EMPTY_CONFIG" many
  refute_output --partial 'files, '
  [[ $stderr != *"files, "* ]]
}

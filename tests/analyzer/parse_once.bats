#!/usr/bin/env bats
# A cold run parses each translation unit once (analyzer/extract/contain.c):
# a header included by several programs is analysed in a unit of each
# (docs/libclang.md), and the worker that parsed those units keeps them
# (extract/extract.c, kept_give); a job that needs one goes to that worker
# instead of another worker that would parse it again.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  # Three programs (sibling directories) share lib/shared.h: it is analysed
  # in p1/main.c's unit and in p2's and p3's, which are also jobs of their
  # own, handed out while the first worker still holds them.
  mkdir lib p1 p2 p3
  cat >lib/shared.h <<'H'
#ifndef SHARED_H
#define SHARED_H
#include <cuda_runtime_api.h>
static inline int shared_sync(void) { return (int)cudaDeviceSynchronize(); }
#endif
H
  for p in p1 p2 p3; do
    cat >$p/main.c <<C
#include <cuda_runtime_api.h>
#include "../lib/shared.h"
int ${p}_step(void) { cudaDeviceSynchronize(); return shared_sync(); }
C
  done
}

# The units a run parsed, one a line, sorted, from its stderr.
parses() {
  grep -o 'gpulint: trace: parse [^ ]*' <<<"$1" | sed 's/.* parse //' | sort
}

@test "a cold run at -j2 parses each unit once and reports what -j1 reports" {
  run -1 --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" \
    --format json -j2 -q lib/shared.h p1/main.c p2/main.c p3/main.c
  local two=$output
  assert_equal "$(parses "$stderr")" "$(printf 'p1/main.c\np2/main.c\np3/main.c')"
  # The status each main.c drops (3 findings), whichever worker found it.
  assert_equal "$(jq -r '.findings[] | .file + " " + .rule' <<<"$two")" \
    "$(printf '%s unchecked-status\n' p1/main.c p2/main.c p3/main.c)"
  rm -rf "$XDG_CACHE_HOME"
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -j1 -q lib/shared.h p1/main.c p2/main.c p3/main.c
  assert_equal "$output" "$two"
}

@test "with every worker idle a parked job still goes out (the run ends)" {
  # -j3: the third worker has nothing it can do without a repeated parse.
  run -1 --separate-stderr timeout 120 env GPULINT_TRACE=1 "$GL" \
    --config "$EMPTY_CONFIG" -j3 -q lib/shared.h p1/main.c p2/main.c p3/main.c
  assert_equal "$(parses "$stderr")" "$(printf 'p1/main.c\np2/main.c\np3/main.c')"
}

@test "another program's unit over the keep limit is parsed once for its own job and all the headers it shows" {
  # p2/main.cu reaches the headers too, and <thrust/device_vector.h> makes
  # its unit over the 64 MB a worker keeps (extract/extract.c, kept_give:
  # about 100 MB): it was parsed again for every header it is a context
  # of. Only p2's unit defines WITH_SYNC, so each header's dropped status
  # is seen through that unit alone.
  mkdir big big/lib big/p1 big/p2
  for h in a b c; do
    cat >big/lib/$h.h <<H
#pragma once
#include <cuda_runtime.h>
#ifdef WITH_SYNC
static inline void sync_$h(void) { cudaDeviceSynchronize(); }
#endif
H
  done
  printf '#include "../lib/%s.h"\n' a b c >big/p1/main.cu
  { printf '#define WITH_SYNC\n#include <thrust/device_vector.h>\n'
    printf '#include "../lib/%s.h"\n' a b c; } >big/p2/main.cu
  cd big
  run -1 --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" \
    --format json -j1 -q lib/a.h lib/b.h lib/c.h p1/main.cu p2/main.cu
  # Once, for its own group and then for p1's headers, one job (extract/
  # contain.c puts p2's group before p1's): it was parsed twice, for p1's
  # group (the headers' context) and for its own job, too big to be kept
  # between the two.
  assert_equal "$(parses "$stderr")" "$(printf 'p1/main.cu\np2/main.cu')"
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "$(printf 'lib/%s.h:4 unchecked-status\n' a b c)"
}

@test "a needy job takes the big units it needs with it even when their include sets sit on a base PCH" {
  # p1's unit is the context of lib/a.h; p2's and p3's, each over the 64 MB
  # a worker keeps (<thrust/device_vector.h>), are the header's other
  # programs' units. Their include sets sit on the CUDA base PCH, which
  # sent their own jobs out first, one to each worker; p1's job then found
  # both held by different workers, waited to the end and parsed one of
  # them again (nccl's src/include: 20 units; docs/realcode.md, "Branch
  # s11-nccl").
  mkdir big big/lib big/p1 big/p2 big/p3
  cat >big/lib/a.h <<'H'
#pragma once
#include <cuda_runtime.h>
static inline void sync_a(void) { cudaDeviceSynchronize(); }
H
  printf '#include "../lib/a.h"\n' >big/p1/main.cu
  for p in p2 p3; do
    printf '#include <thrust/device_vector.h>\n#include "../lib/a.h"\n' >big/$p/main.cu
  done
  cd big
  run -1 --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" \
    --format json -j2 -q lib/a.h p1/main.cu p2/main.cu p3/main.cu
  assert_equal "$(parses "$stderr")" "$(printf 'p1/main.cu\np2/main.cu\np3/main.cu')"
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "lib/a.h:3 unchecked-status"
}

@test "a needy job that waits for its base PCH still goes out first when it starts with units it needs" {
  # p1/main.cu is the context of lib/a.h and needs p2's and p3's units (C++):
  # deferred while the CUDA base PCH was built, it let both go out as jobs
  # of their own, one to each worker, and parsed one again at the end
  # (nccl's src/device/common.cu and 20 .cc units; docs/realcode.md,
  # "Branch s11-nccl"). It now goes out at once, those units first.
  mkdir cpp cpp/lib cpp/p1 cpp/p2 cpp/p3
  cat >cpp/lib/a.h <<'H'
#pragma once
#include <cuda_runtime_api.h>
static inline void sync_a(void) { cudaDeviceSynchronize(); }
H
  printf '#include "../lib/a.h"\n' >cpp/p1/main.cu
  for p in p2 p3; do
    printf '#include <vector>\n#include "../lib/a.h"\nint %s_n(void) { return (int)std::vector<int>(3).size(); }\n' \
      $p >cpp/$p/main.cpp
  done
  cd cpp
  run -1 --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" \
    --format json -j2 -q lib/a.h p1/main.cu p2/main.cpp p3/main.cpp
  assert_equal "$(parses "$stderr")" "$(printf 'p1/main.cu\np2/main.cpp\np3/main.cpp')"
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "lib/a.h:3 unchecked-status"
}

#!/usr/bin/env bats
# The facts cache (analyzer/extract/cache.c, docs/performance.md): whatever
# state its files are in, and however many gpulint runs share it, a run
# reports what a run without any cache reports. A damaged entry costs a
# parse, never a wrong answer.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  corpus
}

# Files with findings that depend on a header and on each other: a dropped
# status (main.c:5, through sync.h's macro), a kernel declared in kern.cuh
# with another signature than kern.cu defines (kern.cuh:2: a cross-file
# rule), and a clean file whose parse includes <stddef.h> many times over.
corpus() {
  cat >main.c <<'EOF'
#include <cuda_runtime_api.h>
#include "sync.h"
void step(void)
{
    SYNC();
}
EOF
  printf '#define SYNC() cudaDeviceSynchronize()\n' >sync.h
  cat >kern.cuh <<'EOF'
#pragma once
__global__ void scale(int *x, int n);
EOF
  cat >kern.cu <<'EOF'
__global__ void scale(int *x, long n) { x[0] = (int)n; }
EOF
  cat >clean.c <<'EOF'
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
size_t twice(size_t n) { return 2 * n; }
EOF
}

FILES=(main.c sync.h kern.cuh kern.cu clean.c)

# The JSON report of a run over the corpus.
report() {
  "$GL" --config "$EMPTY_CONFIG" --format json -j2 "${FILES[@]}"
}

# The report with no facts cache at all.
uncached_report() {
  GPULINT_NO_FACTS_CACHE=1 report
}

entries() {
  find "$XDG_CACHE_HOME/gpulint/facts" -type f -name '*.entry' | sort
}

# "rule:file:line" of the findings in a JSON report on stdin.
rules_of() {
  node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(j.findings.map(f => f.rule + ":" + f.file + ":" + f.line).join(" "))'
}

@test "the corpus has the findings it is built for, and a warm run repeats them from the cache" {
  run --separate-stderr uncached_report
  assert_equal "$status" 1
  local expected=$output
  assert_equal "$(rules_of <<<"$expected")" "kernel-signature:kern.cuh:2 unchecked-status:main.c:5"
  run --separate-stderr report
  assert_equal "$status" 1
  assert_equal "$output" "$expected"
  assert_equal "$(entries | wc -l)" 5
  # Entries read, not written again: the same inodes.
  local before
  before=$(entries | xargs stat -c '%i %n')
  run --separate-stderr report
  assert_equal "$output" "$expected"
  assert_equal "$(entries | xargs stat -c '%i %n')" "$before"
}

@test "a run that parses loads libclang; a warm run, every file cached, never does" {
  # LD_DEBUG=files: glibc's loader names each library it maps, on stderr
  # (the workers' too). extract/libclang_api.h: loaded when first needed.
  LD_DEBUG=files run --separate-stderr report
  assert_equal "$status" 1
  [[ $stderr == *libclang* ]] || fail "the cold run did not load libclang"
  LD_DEBUG=files run --separate-stderr report
  assert_equal "$status" 1
  [[ $stderr != *libclang* ]] || fail "the warm run loaded libclang"
}

@test "each dependency is listed once in an entry, however often the parse included it" {
  run --separate-stderr report
  local entry
  entry=$(grep -l 'stdio.h$' $(entries) | head -1)
  [ -n "$entry" ]
  # clang includes stddef.h (no include guard: __need_ macros) several times.
  assert_equal "$(grep -c '/stddef\.h$' "$entry")" 1
  assert_equal "$(sed -n '/^[hs] /p' "$entry" | sort | uniq -d)" ""
}

@test "truncated, emptied, garbled or foreign entries are parsed again, with the same findings, and replaced" {
  run --separate-stderr uncached_report
  local expected=$output
  run --separate-stderr report
  assert_equal "$output" "$expected"
  mapfile -t files < <(entries)
  assert_equal "${#files[@]}" 5
  # Cut inside the dependency lines, cut inside the facts, emptied, a
  # dependency's hash changed (the file it names is the same), and the
  # previous format's JSON.
  head -c 60 "${files[0]}" >t && mv t "${files[0]}"
  head -c "$(( $(stat -c %s "${files[1]}") - 7 ))" "${files[1]}" >t && mv t "${files[1]}"
  : >"${files[2]}"
  sed -i '3s/^h \(.\)/h X/; 3s/^s [0-9]/s 9/' "${files[3]}"
  printf '{"deps":[],"facts":"{}"}' >"${files[4]}"
  run --separate-stderr report
  assert_equal "$status" 1
  assert_equal "$output" "$expected"
  # Each was stored again, whole: a third run reads them all.
  local f
  for f in "${files[@]}"; do
    head -1 "$f" | grep -qx 'gpulint facts entry 2'
  done
  run --separate-stderr report
  assert_equal "$output" "$expected"
}

@test "a dependency line naming a path of the wrong length, or a count past the lines, is a miss" {
  run --separate-stderr uncached_report
  local expected=$output
  run --separate-stderr report
  mapfile -t files < <(entries)
  # The length one byte longer than the path: the newline becomes part of it.
  sed -i '3s/ \([0-9]*\) \//X\//' "${files[0]}"
  sed -i '3s/X\// 999 \//' "${files[0]}"
  sed -i '2s/.*/deps 100000/' "${files[1]}"
  run --separate-stderr report
  assert_equal "$output" "$expected"
}

@test "two runs at once on an empty cache both report what one run reports, and leave a cache that a third run uses" {
  run --separate-stderr uncached_report
  local expected=$output
  report >first.json 2>first.err &
  local first=$!
  report >second.json 2>second.err &
  local second=$!
  local rc1=0 rc2=0
  wait "$first" || rc1=$?
  wait "$second" || rc2=$?
  assert_equal "$rc1 $rc2" "1 1"
  assert_equal "$(cat first.json)" "$expected"
  assert_equal "$(cat second.json)" "$expected"
  # No temporary file of either writer is left behind.
  assert_equal "$(find "$XDG_CACHE_HOME/gpulint/facts" -name '*.tmp' | wc -l)" 0
  assert_equal "$(entries | wc -l)" 5
  run --separate-stderr report
  assert_equal "$output" "$expected"
}

@test "a header changed between two runs is seen by the second (the stat memo lasts one run)" {
  run --separate-stderr report
  assert_equal "$(rules_of <<<"$output")" "kernel-signature:kern.cuh:2 unchecked-status:main.c:5"
  # sync.h is not one of the files analysed here: outside the snapshot, it
  # is known by its stat fingerprint.
  FILES=(main.c)
  run --separate-stderr report
  assert_equal "$(rules_of <<<"$output")" "unchecked-status:main.c:5"
  printf '#define SYNC() ((void)cudaDeviceSynchronize())\n' >sync.h
  run --separate-stderr report
  assert_equal "$status" 0
  assert_equal "$(rules_of <<<"$output")" ""
}

@test "a facts directory that cannot be written costs the cache only: same findings, nothing stored" {
  run --separate-stderr uncached_report
  local expected=$output
  mkdir -p "$XDG_CACHE_HOME/gpulint"
  printf 'not a directory\n' >"$XDG_CACHE_HOME/gpulint/facts"
  run --separate-stderr report
  assert_equal "$status" 1
  assert_equal "$output" "$expected"
  run --separate-stderr report
  assert_equal "$output" "$expected"
  assert_equal "$(cat "$XDG_CACHE_HOME/gpulint/facts")" "not a directory"
}

# Headers analysed in their includer's translation unit get their facts from
# one parse of it with the includer's own (analyzer/extract/contain.c):
# the same report as when each is extracted in a job of its own (here: the
# includer's facts cached first, so every header is a job alone).
@test "headers extracted in one job with their includer report what they report extracted alone" {
  cat >use.cu <<'EOF'
#include "kern.cuh"
#include "more.cuh"
#include "sync.h"
void run(int *x) { scale<<<1, 1>>>(x, 2L); SYNC(); }
EOF
  cat >more.cuh <<'EOF'
#pragma once
#include <cuda_runtime.h>
static inline void drop(void) { cudaDeviceSynchronize(); }
EOF
  FILES=(use.cu kern.cuh more.cuh sync.h kern.cu)
  run --separate-stderr report
  local together=$output
  assert_equal "$(rules_of <<<"$together")" "kernel-signature:kern.cuh:2 unchecked-status:more.cuh:3 unchecked-status:use.cu:4"
  rm -rf "$XDG_CACHE_HOME/gpulint/facts"
  FILES=(use.cu kern.cu)
  run --separate-stderr report
  FILES=(use.cu kern.cuh more.cuh sync.h kern.cu)
  run --separate-stderr report
  assert_equal "$output" "$together"
  GPULINT_NO_FACTS_CACHE=1 run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -j1 "${FILES[@]}"
  assert_equal "$output" "$together"
}

# A file kept from a full check by headers not found is cached too (its
# report is the same while those headers stay absent), and reported not
# checked from the cache every time; a header that appears where the parse
# would have found it (beside the file, in an include dir, under a
# directory that did not exist) makes it parse again.
missing_fixture() {
  mkdir -p src inc
  cat >src/use.c <<'EOF'
#include <cuda_runtime_api.h>
#include "later.h"
#include <sub/deep.h>
void go(void) { cudaDeviceSynchronize(); }
EOF
  printf 'include-dirs: ["%s/inc"]\n' "$PWD" >inc.yaml
}

# "rule:line" of use.c's findings, with the config inc.yaml.
missing_report() {
  "$GL" --config inc.yaml --format json src/use.c |
    node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(j.findings.map(f => f.rule + ":" + f.line + (f.rule === "not-checked" ? ":" + f.message.split("'"'"'")[1] : "")).join(" "))'
}

@test "a file with headers not found is cached, reported not checked every time, and parsed again once a header appears" {
  missing_fixture
  local expected="not-checked:2:later.h not-checked:3:sub/deep.h unchecked-status:4"
  assert_equal "$(missing_report)" "$expected"
  assert_equal "$(entries | wc -l)" 1
  local stored
  stored=$(entries | xargs stat -c '%i')
  # From the cache: the same report, the entry read and not written again.
  assert_equal "$(missing_report)" "$expected"
  assert_equal "$(entries | xargs stat -c '%i')" "$stored"
  # later.h beside the file: found by the quoted include.
  printf '#define LATER 1\n' >src/later.h
  assert_equal "$(missing_report)" "not-checked:3:sub/deep.h unchecked-status:4"
  # sub/deep.h under the include dir, in a directory that was not there.
  mkdir -p inc/sub
  assert_equal "$(missing_report)" "not-checked:3:sub/deep.h unchecked-status:4"
  printf '#define DEEP 1\n' >inc/sub/deep.h
  assert_equal "$(missing_report)" "unchecked-status:4"
  # And gone again: not checked again, not the checked answer from before.
  rm inc/sub/deep.h
  assert_equal "$(missing_report)" "not-checked:3:sub/deep.h unchecked-status:4"
}

# A header whose first includer's unit stops before reading it, checked in
# the next includer's unit (the fallback of rules.md's not-checked row):
# its entry depends on the units tried. Its facts were not cached at all,
# so cuda-samples' warm run parsed 21 units again (docs/performance.md).
fallback_report() {
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --format json --config "$EMPTY_CONFIG" \
    fb/bench_fill.cu fb/test_fill.cu fb/fill.h
  parses=$(grep -c 'trace: parse' <<<"$stderr" || true)
  jq -r '[.findings[] | .rule + ":" + (.file | sub(".*/"; "")) + ":" + (.line | tostring)] | join(" ")' <<<"$output"
}

@test "a header checked in a fallback unit is cached, and parsed again when a unit tried for it changes or a header its unit missed appears" {
  mkdir -p fb
  printf '#include <fb_harness_absent.h>\n#include "fill.h"\nint fb_bench(float *d, const float *h) { return fb_fill(d, h) == cudaSuccess; }\n' >fb/bench_fill.cu
  printf '#include "fill.h"\nint fb_test(float *d, const float *h) { return fb_fill(d, h) == cudaSuccess; }\n' >fb/test_fill.cu
  printf '#include <cuda_runtime.h>\nstatic cudaError_t fb_fill(float *d, const float *h)\n{\n    return cudaMemcpy(d, h, 4, cudaMemcpyHostToDevice);\n}\n' >fb/fill.h
  local checked="not-checked:bench_fill.cu:1 mapped-pinned-only:fill.h:4"
  fallback_report >/dev/null
  assert_equal "$(fallback_report)" "$checked"
  fallback_report >/dev/null
  assert_equal "$parses" 0
  # The fallback unit stops before the header too: no unit reads it now.
  printf '#include <fb_other_absent.h>\n' | cat - fb/test_fill.cu >fb/t && mv fb/t fb/test_fill.cu
  local cold
  cold=$(XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cold1 fallback_report)
  assert_equal "$(fallback_report)" "$cold"
  assert [ "$cold" != "$checked" ]
  # The header bench_fill.cu's unit missed appears: that unit reads fill.h.
  printf '/* harness */\n' >fb/fb_harness_absent.h
  cold=$(XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cold2 fallback_report)
  assert_equal "$(fallback_report)" "$cold"
  assert_regex "$cold" 'mapped-pinned-only:fill.h:4'

}

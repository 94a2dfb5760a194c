#!/usr/bin/env bats
# Include-set PCHs (analyzer/extract/preamble.c) for files that set a
# feature-test macro before their system includes: the set is built with
# the file's leading #define lines first, so it declares what the file's own
# preprocessor would (memmem under _GNU_SOURCE, not under plain POSIX), and
# files with other leading lines never share it.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  for f in gnu1 gnu2; do
    printf '#define _GNU_SOURCE\n#include <string.h>\n#include <stdio.h>\nvoid *%s(const char *s) { return memmem(s, 3, "a", 1); }\n' $f >$f.c
  done
  for f in posix1 posix2; do
    printf '#define _POSIX_C_SOURCE 200809L\n#include <string.h>\n#include <stdio.h>\nvoid *%s(const char *s) { return memmem(s, 3, "a", 1); }\n' $f >$f.c
  done
}

FILES=(gnu1.c gnu2.c posix1.c posix2.c)

@test "files that define a feature macro first parse with a set of their own and report what a parse without any PCH does" {
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q "${FILES[@]}"
  local with_sets=$output status_sets=$status
  assert_equal "$(grep -c 'trace: parse .* set PCH' <<<"$stderr")" 4
  # Two sets: one per leading #define line.
  assert_equal "$(ls "$XDG_CACHE_HOME"/gpulint/pch/*.prelude.h | wc -l)" 2
  assert_equal "$(cat "$XDG_CACHE_HOME"/gpulint/pch/*.prelude.h | grep -c '^#define _GNU_SOURCE$')" 1
  # Each set's build is traced with its own CPU (docs/performance.md).
  assert_equal "$(grep -c 'trace: build .*/pch/set-[0-9a-f]*\.pch (process [0-9]*, built, [0-9.]* s CPU)' <<<"$stderr")" 2
  # memmem is undeclared in the POSIX files only: each is a parse error there.
  assert_equal "$(jq -r '[.findings[] | .file] | unique | join(" ")' <<<"$with_sets")" "posix1.c posix2.c"
  rm -rf "$XDG_CACHE_HOME"
  run env GPULINT_NO_PCH=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q "${FILES[@]}"
  assert_equal "$status" "$status_sets"
  assert_equal "$output" "$with_sets"
}

@test "the parse that builds its set tells the build's CPU apart from its own" {
  # Counted into the parse, the cooperative_groups set's 0.9 s build read as
  # a 0.99 s parse of layer/attention_kernels.cu (docs/performance.md,
  # "Branch s16-speed").
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" -j1 -q gnu1.c gnu2.c
  assert_success
  assert_equal "$(grep -c 'trace: parse .* set PCH' <<<"$stderr")" 2
  local build_cpu
  build_cpu=$(sed -n 's|.*trace: build .*/pch/set-[0-9a-f]*\.pch (process [0-9]*, built, \([0-9.]*\) s CPU)$|\1|p' <<<"$stderr")
  [[ $build_cpu =~ ^[0-9]+\.[0-9]{3}$ ]]
  # One parse built the set and names that build's CPU beside its own; the
  # other found it built.
  assert_equal "$(grep -c "trace: parse gnu[12].c (worker [0-9]*, set PCH, [0-9.]* s CPU, and $build_cpu s CPU building its set)\$" <<<"$stderr")" 1
  assert_equal "$(grep -c 'trace: parse gnu[12].c (worker [0-9]*, set PCH, [0-9.]* s CPU)$' <<<"$stderr")" 1
}

@test "a language's base PCH is built only when a file of the run parses with it" {
  [ -r "${CUDA_PATH:-/usr/local/cuda}/include/cuda_runtime.h" ] || skip "no CUDA toolkit here"
  # gnu1.c names no CUDA header: it parses without the C base PCH, so a run
  # over it builds none (it built all three, the C++ one too).
  run env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" -q gnu1.c
  assert_success
  assert_equal "$(find "$XDG_CACHE_HOME/gpulint" -maxdepth 1 -name '*.pch' | wc -l)" 0
  printf '__global__ void k(float *x) { x[0] = 1.0f; }\n' >k.cu
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" -q gnu1.c k.cu
  assert_success
  assert_equal "$(cd "$XDG_CACHE_HOME/gpulint" && ls -- *.pch | sed 's/-.*//')" cuh
  assert_equal "$(grep -c 'trace: build .*/cuh-.*built' <<<"$stderr")" 1
  assert_equal "$(grep -c 'trace: parse k.cu (.* base PCH' <<<"$stderr")" 1
}

# extract/hoist.h: a C file's set goes on past its project header when the
# header cannot change what the system headers after it mean, nor they it.
# $1: the header's body (between its guard and #endif); the two files include
# it, then <errno.h>, <stdio.h> and <string.h>, and call $2 (memmem, declared
# only under _GNU_SOURCE, unless given).
hoist_files() {
  printf '#ifndef PROJ_H\n#define PROJ_H\n#include <stddef.h>\n%b\n#endif\n' "$1" >proj.h
  for f in one two; do
    printf '#include "proj.h"\n#include <errno.h>\n#include <stdio.h>\n#include <string.h>\nconst void *%s(const char *s) { return %s; }\n' \
      $f "${2:-memmem(s, 3, \"a\", 1)}" >$f.c
  done
}

# The report with include sets equals the one without any PCH (exit status
# 1 when not); echoes the run's stderr (the trace).
same_report_as_without_pch() {
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q proj.h one.c two.c
  local with_sets=$output status_sets=$status trace=$stderr
  rm -rf "$XDG_CACHE_HOME"
  run env GPULINT_NO_PCH=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q proj.h one.c two.c
  printf '%s\n' "$trace"
  [ "$status" = "$status_sets" ] && [ "$output" = "$with_sets" ]
}

@test "system includes after a project header that defines nothing they name go into the set" {
  hoist_files 'size_t proj_len(const char *s);\n#define PROJ_MAX 8' 'strchr(s, PROJ_MAX)'
  run same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'trace: parse .* set PCH' <<<"$output")" 2
  assert_equal "$(grep -c 'hoist refused' <<<"$output")" 0
  rm -rf "$XDG_CACHE_HOME"
  run "$GL" --config "$EMPTY_CONFIG" --format json -q proj.h one.c two.c
  assert_success
  assert_equal "$(jq -r '.findings | length' <<<"$output")" 0
  assert_equal "$(cat "$XDG_CACHE_HOME"/gpulint/pch/*.prelude.h)" "$(printf '#include <errno.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <string.h>')"
}

@test "a project header that names a macro of the hoisted headers (errno) keeps them out: refused, the same report" {
  # With <errno.h> first, `errno` would expand in the member's declaration:
  # a member declared as a function.
  hoist_files 'struct proj { int errno; };' 'strchr(s, (int)sizeof(struct proj))'
  run same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'hoist refused one.c' <<<"$output")" 1
  assert_equal "$(grep -c 'hoist refused two.c' <<<"$output")" 1
}

@test "a project header that defines a macro the hoisted headers test (_GNU_SOURCE) keeps them out: refused, the same report" {
  # string.h declares memmem only when it sees _GNU_SOURCE first.
  hoist_files '#define _GNU_SOURCE 1'
  run same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'hoist refused' <<<"$output")" 2
}

@test "a project header that tests a macro of the hoisted headers (EOF) keeps them out: refused, the same report" {
  # With <stdio.h> first, the branch with a syntax error would be taken.
  hoist_files '#ifdef EOF\nint proj_x = ;\n#endif' 'strchr(s, 1)'
  run same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'hoist refused' <<<"$output")" 2
}

@test "a project header with a directive other than a guard, #include, #define, #undef or a conditional ends the set, as before" {
  hoist_files '#if 0\n#error never\n#endif' 'strchr(s, 1)'
  "$GL" --config "$EMPTY_CONFIG" -q proj.h one.c two.c
  assert_equal "$(cat "$XDG_CACHE_HOME"/gpulint/pch/*.prelude.h)" "#include <stddef.h>"
}

# preamble.h, "blocks": a file's set goes on past leading conditional blocks
# whose conditions test only whether macros are defined, when no group of
# them with content is taken, read where they stand and after the set.
# $1: the block the two files start with; then <errno.h>, <stdio.h> and
# <string.h>, and a function returning $2 (memmem, declared only under
# _GNU_SOURCE, unless given).
block_files() {
  for f in one two; do
    printf '%b\n#include <errno.h>\n#include <stdio.h>\n#include <string.h>\nconst void *%s(const char *s) { return %s; }\n' \
      "$1" $f "${2:-memmem(s, 3, \"a\", 1)}" >$f.c
  done
}

# The report with include sets equals the one without any PCH (exit status
# 1 when not); echoes the run's stderr (the trace).
blocks_same_report_as_without_pch() {
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q one.c two.c
  local with_sets=$output status_sets=$status trace=$stderr
  rm -rf "$XDG_CACHE_HOME"
  run env GPULINT_NO_PCH=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q one.c two.c
  printf '%s\n' "$trace"
  [ "$status" = "$status_sets" ] && [ "$output" = "$with_sets" ]
}

@test "system includes after a leading block that no group of is taken (#if defined(_WIN32)) go into the set" {
  block_files '#if defined(_WIN32) || defined(WIN64)\n#define NOMINMAX\n#include <windows.h>\n#else\n#endif' 'strchr(s, 1)'
  run blocks_same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'trace: parse .* set PCH' <<<"$output")" 2
  assert_equal "$(grep -c 'blocks refused' <<<"$output")" 0
  rm -rf "$XDG_CACHE_HOME"
  run "$GL" --config "$EMPTY_CONFIG" --format json -q one.c two.c
  assert_success
  assert_equal "$(cat "$XDG_CACHE_HOME"/gpulint/pch/*.prelude.h)" "$(printf '#include <errno.h>\n#include <stdio.h>\n#include <string.h>')"
}

@test "a leading block whose group is taken where it stands (#define _GNU_SOURCE under __linux__) keeps the set out: refused, the same report" {
  # Without the check the set's <string.h> would not declare memmem.
  block_files '#if defined(__linux__)\n#define _GNU_SOURCE\n#endif'
  run blocks_same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'blocks refused one.c' <<<"$output")" 1
  assert_equal "$(grep -c 'blocks refused two.c' <<<"$output")" 1
}

@test "a leading block skipped where it stands but taken after the set's headers (#ifdef EOF) keeps the set out: refused, the same report" {
  # With <stdio.h> first, the group with a syntax error would be taken.
  block_files '#ifdef EOF\nint block_x = ;\n#endif' 'strchr(s, 1)'
  run blocks_same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'blocks refused' <<<"$output")" 2
}

@test "a leading block whose condition expands a macro (#if EOF < 0) ends the set, as before" {
  block_files '#if EOF < 0\nint block_x = ;\n#endif' 'strchr(s, 1)'
  run blocks_same_report_as_without_pch
  assert_success
  assert_equal "$(grep -c 'set PCH' <<<"$output")" 0
  assert_equal "$(grep -c 'trace: parse one.c (.* no PCH' <<<"$output")" 1
}

@test "a .cu file that defines a macro before its includes parses on a set holding the define after the base PCH's headers" {
  [ -r "${CUDA_PATH:-/usr/local/cuda}/include/cuda_runtime.h" ] || skip "no CUDA toolkit here"
  for f in one two; do
    printf '#define LIMIT_%s 4\n#include <stdio.h>\n#include <string.h>\n__global__ void %s(char *s) { s[0] = (char)strlen("ab"); }\n' \
      ONE $f >$f.cu
  done
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q one.cu two.cu
  local with_sets=$output status_sets=$status
  assert_equal "$(grep -c 'trace: parse .*\.cu (.* set PCH' <<<"$stderr")" 2
  # The set: the base PCH's headers, then the file's define, then its includes.
  assert_equal "$(cat "$XDG_CACHE_HOME"/gpulint/pch/*.prelude.h)" \
    "$(printf '#include <cuda_runtime.h>\n#include <cublas_v2.h>\n#define LIMIT_ONE 4\n#include <stdio.h>\n#include <string.h>')"
  rm -rf "$XDG_CACHE_HOME"
  run env GPULINT_NO_PCH=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q one.cu two.cu
  assert_equal "$status" "$status_sets"
  assert_equal "$output" "$with_sets"
}

@test "a file's include guard keeps it on the base PCH whatever its name (__NAME_H__); a feature macro defined under #ifndef at the top still does not" {
  [ -r "${CUDA_PATH:-/usr/local/cuda}/include/cuda_runtime.h" ] || skip "no CUDA toolkit here"
  printf '#ifndef __RETIRE_H__\n#define __RETIRE_H__\n#include <cuda_runtime_api.h>\ncudaError_t retire(int n);\n#endif\n' >retire.h
  printf '#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n#include <string.h>\n#include <cuda_runtime_api.h>\nvoid *gnu3(const char *s) { (void)cudaDeviceSynchronize(); return memmem(s, 3, "a", 1); }\n' >gnu3.c
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" --format json -q retire.h gnu3.c
  assert_success
  assert_equal "$(jq -r '.findings | length' <<<"$output")" 0
  assert_equal "$(grep -c 'trace: parse retire.h (.* base PCH' <<<"$stderr")" 1
  assert_equal "$(grep -c 'trace: parse gnu3.c (.* base PCH' <<<"$stderr")" 0
}

@test "a set whose first lines are another set's is chained on that set's PCH and holds only the lines after them" {
  [ -r "${CUDA_PATH:-/usr/local/cuda}/include/cuda_runtime.h" ] || skip "no CUDA toolkit here"
  # a1, a2 share {stdio.h}; b1, b2 share {stdio.h, stdlib.h}, whose first
  # line is a's set. Each drops a cudaMalloc status (a finding) and b's
  # call atoi, which only the chained set's <stdlib.h> declares.
  for f in a1 a2; do
    printf '#include <stdio.h>\nvoid %s(void) { float *p; cudaMalloc(&p, 4); puts("x"); }\n' $f >$f.cu
  done
  for f in b1 b2; do
    printf '#include <stdio.h>\n#include <stdlib.h>\nint %s(void) { float *p; cudaMalloc(&p, 4); puts("x"); return atoi("1"); }\n' $f >$f.cu
  done
  local files=(a1.cu a2.cu b1.cu b2.cu)
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q "${files[@]}"
  local with_sets=$output status_sets=$status
  assert_equal "$status" 1
  assert_equal "$(jq '.findings | length' <<<"$with_sets")" 4
  assert_equal "$(grep -c 'trace: parse .*\.cu (.* set PCH' <<<"$stderr")" 4
  assert_equal "$(grep -c 'trace: build .*/pch/set-.*built' <<<"$stderr")" 2
  # a's set on the base PCH: its headers, then stdio.h; b's on a's: stdlib.h alone.
  local preludes
  preludes=$(for p in "$XDG_CACHE_HOME"/gpulint/pch/*.prelude.h; do tr '\n' ';' <"$p"; echo; done | sort)
  assert_equal "$preludes" "$(printf '%s\n' '#include <cuda_runtime.h>;#include <cublas_v2.h>;#include <stdio.h>;' \
    '#include <stdlib.h>;')"
  # The PCHs kept, the facts not: the chain is loaded from the cache, nothing built.
  rm -rf "$XDG_CACHE_HOME"/gpulint/facts "$XDG_CACHE_HOME"/gpulint/results
  run --separate-stderr env GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q "${files[@]}"
  assert_equal "$(grep -c 'trace: parse .*\.cu (.* set PCH' <<<"$stderr")" 4
  assert_equal "$(grep -c 'trace: build' <<<"$stderr")" 0
  assert_equal "$output" "$with_sets"
  rm -rf "$XDG_CACHE_HOME"
  run env GPULINT_NO_PCH=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 -q "${files[@]}"
  assert_equal "$status" "$status_sets"
  assert_equal "$output" "$with_sets"
}

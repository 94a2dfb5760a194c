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

#!/usr/bin/env bats
# Programs from the compilation database's targets (docs/rules.md,
# "Programs"): a CMake project with two executables in one directory, a
# library beside them, and one executable whose sources sit in two sibling
# directories. extern "C" declarations are compared with the definitions
# their own target links with, and a call binds to its own target's
# definition; without targets in the database, by directory, as before.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() {
  gpulint_env_setup_file
  export PROJ=$BATS_FILE_TMPDIR/targets
  mkdir -p "$PROJ/blend" "$PROJ/app" "$PROJ/kern"
  cat >"$PROJ/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(targets LANGUAGES C CUDA)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
add_library(tg_util STATIC blend/util.cu)
add_executable(tg_one blend/one_main.c blend/one.cu blend/util_one.c)
target_link_libraries(tg_one tg_util)
add_executable(tg_two blend/two_main.c blend/two.cu blend/one_fast.c)
add_executable(tg_three app/main.c kern/mix.cu)
CMAKE
  # Target tg_one: its fade() declaration lags its own definition, and
  # tg_two's fade() happens to have the declared signature.
  cat >"$PROJ/blend/one_main.c" <<'C'
void tg_blend(float *x, int n);
void tg_fade(float *x, int n);
void tg_lerp(float *x, int n, int m);
void tg_prepare(float *x, int n);
__attribute__((annotate("gpulint:hot"))) void tg_hot_step(float *x, int n)
{
    tg_prepare(x, n);
}
int main(void)
{
    float x[4] = {0};
    tg_blend(x, 4);
    tg_fade(x, 4);
    tg_lerp(x, 4, 1);
    tg_hot_step(x, 4);
    return 0;
}
C
  # tg_prepare twice: tg_one's counts in integers; tg_two's computes in
  # floats in a loop, in a file whose path is nearer one_main.c's.
  cat >"$PROJ/blend/util_one.c" <<'C'
void tg_prepare(float *x, int n)
{
    int even = 0;
    for (int i = 0; i < n; i++)
        even += i % 2 == 0;
    x[0] = (float)even;
}
C
  cat >"$PROJ/blend/one_fast.c" <<'C'
void tg_prepare(float *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = x[i] * 0.5f;
}
C
  cat >"$PROJ/blend/one.cu" <<'CU'
extern "C" void tg_blend(float *x, int n) { for (int i = 0; i < n; i++) x[i] = 1.0f; }
extern "C" void tg_fade(float *x, int n, float by) { for (int i = 0; i < n; i++) x[i] *= by; }
CU
  # Target tg_two: a dead prototype of a tg_blend it never defines, which
  # tg_one's definition is not (the two executables never link together).
  cat >"$PROJ/blend/two_main.c" <<'C'
void tg_blend(double *x, long n);
void tg_fade(float *x, int n);
int main(void)
{
    float x[4] = {0};
    tg_fade(x, 4);
    return 0;
}
C
  cat >"$PROJ/blend/two.cu" <<'CU'
extern "C" void tg_fade(float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 0.5f; }
CU
  # A library: no main, so the database does not say whom it links with:
  # compared by directory (tg_one links it, and its lerp() declaration lags).
  cat >"$PROJ/blend/util.cu" <<'CU'
extern "C" void tg_lerp(float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 0.25f; }
CU
  # Target tg_three: two sibling directories, one program; its header's
  # prototype lags the definition in the other directory.
  cat >"$PROJ/app/mix.h" <<'H'
void tg_mix(float *x, int n);
H
  cat >"$PROJ/app/main.c" <<'C'
#include "mix.h"
int main(void)
{
    float x[4] = {0};
    tg_mix(x, 4);
    return 0;
}
C
  cat >"$PROJ/kern/mix.cu" <<'CU'
extern "C" void tg_mix(float *x, int n, int stride) { for (int i = 0; i < n; i += stride) x[i] = 2.0f; }
CU
  cmake -S "$PROJ" -B "$PROJ/build" -G "Unix Makefiles" -DCMAKE_CUDA_ARCHITECTURES=90 \
    >"$BATS_FILE_TMPDIR/cmake.log" 2>&1 || { cat "$BATS_FILE_TMPDIR/cmake.log" >&3; return 1; }
}

setup() { gpulint_env_setup; }

@test "CMake's database names each entry's target only in its object path" {
  run grep -c 'CMakeFiles/tg_one.dir/blend/one_main.c.o' "$PROJ/build/compile_commands.json"
  assert_output 1
  run grep -c '"target"' "$PROJ/build/compile_commands.json"
  assert_output 0
}

@test "targets: a declaration is compared with its own target's definition, never another executable's" {
  cd "$PROJ"
  run -1 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p build blend app kern
  refute_output --partial 'parse-error'
  # tg_one's stale fade(), though tg_two defines the declared signature.
  assert_output --partial "blend/one_main.c:2:6: error: declaration 'void tg_fade(float *, int)' differs from the extern \"C\" definition 'void tg_fade(float *, int, float)' at blend/one.cu:2"
  # tg_two's dead prototype of tg_one's tg_blend: no finding.
  refute_output --partial 'blend/two_main.c'
  # A library's definition is still compared by directory.
  assert_output --partial "blend/one_main.c:3:6: error: declaration 'void tg_lerp(float *, int, int)' differs from the extern \"C\" definition 'void tg_lerp(float *, int)' at blend/util.cu:1"
  # tg_hot_step's call binds to tg_one's tg_prepare, which computes nothing.
  refute_output --partial 'no-cpu-compute'
  # One target over two sibling directories: its header's stale prototype.
  assert_output --partial "app/mix.h:1:6: error: declaration 'void tg_mix(float *, int)' differs from the extern \"C\" definition 'void tg_mix(float *, int, int)' at kern/mix.cu:1"
  assert_output --partial 'gpulint: 3 errors, 0 warnings in 10 files analysed'
}

@test "a database whose objects name no target (bear over a Makefile): programs by directory" {
  cd "$PROJ"
  mkdir -p flat
  sed -E 's#CMakeFiles/[a-z_]+\.dir/##g' build/compile_commands.json >flat/compile_commands.json
  run ! grep -q 'CMakeFiles' flat/compile_commands.json
  run -1 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p flat blend app kern
  refute_output --partial 'parse-error'
  # One directory, one program: tg_two's fade matches the declaration, and
  # tg_two's dead prototype is compared with tg_one's blend.
  refute_output --partial "one_main.c:2:6"
  assert_output --partial "blend/two_main.c:1:6: error: declaration 'void tg_blend(double *, long)' differs"
  assert_output --partial "blend/one_main.c:3:6: error: declaration 'void tg_lerp(float *, int, int)'"
  # Sibling directories, separate programs: the header is not compared.
  refute_output --partial 'app/mix.h'
  # The call binds to the definition nearest in the tree: tg_two's.
  assert_output --partial 'blend/one_main.c:7:5: error: hot path computes on the CPU: tg_hot_step -> tg_prepare computes floating-point arithmetic in a loop at blend/one_fast.c:4'
  assert_output --partial 'gpulint: 3 errors, 0 warnings in 10 files analysed'
}

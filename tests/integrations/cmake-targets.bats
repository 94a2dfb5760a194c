#!/usr/bin/env bats
# Programs from the compilation database's targets (docs/rules.md,
# "Programs"): a CMake project with two executables in one directory, a
# library beside them, and one executable whose sources sit in two sibling
# directories. extern "C" declarations are compared with the definitions
# their own target links with, and a call binds to its own target's
# definition; a header both executables include is analysed in a unit of
# each; without targets in the database, by directory, as before.
# With CMake's file API reply beside the database, a library's files are
# compared with the programs that link it and with no other.

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
target_compile_definitions(tg_two PRIVATE TG_TWO_UPLOADS)
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
#include "shared.h"
CU
  # A header both executables include; only tg_two's flags give it code.
  cat >"$PROJ/blend/shared.h" <<'H'
#include <cuda_runtime.h>
#ifdef TG_TWO_UPLOADS
static inline cudaError_t tg_upload(float *d, const float *h, size_t n)
{
    return cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice);
}
#endif
H
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
#include "shared.h"
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
  links_project
}

# Two executables in one directory, each linking its own static library
# there; the libraries define the same extern "C" functions differently.
# CMake is asked for its file API codemodel before it configures.
links_project() {
  export LINKS=$BATS_FILE_TMPDIR/links
  mkdir -p "$LINKS/app" "$LINKS/build/.cmake/api/v1/query"
  : >"$LINKS/build/.cmake/api/v1/query/codemodel-v2"
  cat >"$LINKS/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(links LANGUAGES C CUDA)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
add_library(lk_fast STATIC app/fast.cu)
add_library(lk_slow STATIC app/slow.cu)
add_executable(lk_one app/one.c)
target_link_libraries(lk_one lk_fast)
add_executable(lk_two app/two.c)
target_link_libraries(lk_two lk_slow)
CMAKE
  cat >"$LINKS/app/fast.cu" <<'CU'
extern "C" void lk_scale(float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 2.0f; }
extern "C" void lk_norm(float *x, int n, float eps) { for (int i = 0; i < n; i++) x[i] /= eps; }
extern "C" void lk_warm(float *x, int n) { for (int i = 0; i < n; i++) x[i] = 0.0f; }
CU
  cat >"$LINKS/app/slow.cu" <<'CU'
extern "C" void lk_scale(double *x, long n) { for (long i = 0; i < n; i++) x[i] *= 2.0; }
extern "C" void lk_norm(float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 0.5f; }
CU
  # lk_one links lk_fast: its lk_norm() lags lk_fast's, and only lk_slow,
  # which lk_one does not link, has the declared signature.
  cat >"$LINKS/app/one.c" <<'C'
void lk_scale(float *x, int n);
void lk_norm(float *x, int n);
int main(void)
{
    float x[4] = {0};
    lk_scale(x, 4);
    lk_norm(x, 4);
    return 0;
}
C
  # lk_two links lk_slow: its declarations match lk_slow's, and a dead
  # prototype of lk_warm, which only lk_fast defines.
  cat >"$LINKS/app/two.c" <<'C'
void lk_scale(double *x, long n);
void lk_norm(float *x, int n);
void lk_warm(double *x, long n);
int main(void)
{
    double x[4] = {0};
    float y[4] = {0};
    lk_scale(x, 4);
    lk_norm(y, 4);
    return 0;
}
C
  cmake -S "$LINKS" -B "$LINKS/build" -G "Unix Makefiles" -DCMAKE_CUDA_ARCHITECTURES=90 \
    >"$BATS_FILE_TMPDIR/cmake-links.log" 2>&1 ||
    { cat "$BATS_FILE_TMPDIR/cmake-links.log" >&3; return 1; }
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
  # The header both executables include is analysed in a unit of each
  # target: tg_two's -DTG_TWO_UPLOADS gives it an upload.
  assert_output --partial "blend/shared.h:5:12: error: cudaMemcpy with kind cudaMemcpyHostToDevice"
  assert_output --partial 'gpulint: 4 errors, 0 warnings in 11 files analysed'
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
  # One program: the shared header is analysed in its first includer's
  # unit only, tg_one's, where it has no code.
  refute_output --partial 'blend/shared.h'
  assert_output --partial 'gpulint: 3 errors, 0 warnings in 11 files analysed'
}

@test "CMake's file API reply says which library each executable links" {
  run compgen -G "$LINKS/build/.cmake/api/v1/reply/index-*.json"
  assert_success
  run grep -l '"lk_fast::' "$LINKS"/build/.cmake/api/v1/reply/target-lk_one-*.json
  assert_success
  run grep -l '"lk_fast::' "$LINKS"/build/.cmake/api/v1/reply/target-lk_two-*.json
  assert_failure
}

@test "file API: a library's files are compared with the executables that link it, never with others" {
  cd "$LINKS"
  run -1 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p build app
  refute_output --partial 'parse-error'
  # lk_one's stale lk_norm(), though lk_slow (not linked into lk_one) defines the declared signature.
  assert_output --partial "app/one.c:2:6: error: declaration 'void lk_norm(float *, int)' differs from the extern \"C\" definition 'void lk_norm(float *, int, float)' at app/fast.cu:2"
  # lk_two's dead prototype of lk_fast's lk_warm and its lk_scale(): no finding.
  refute_output --partial 'app/two.c'
  assert_output --partial 'gpulint: 1 error, 0 warnings in 4 files analysed'
}

@test "file API: without a reply beside the database, a library is compared by directory" {
  cd "$LINKS"
  mkdir -p noreply
  cp build/compile_commands.json noreply/
  run -1 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p noreply app
  assert_output --partial "app/two.c:3:6: error: declaration 'void lk_warm(double *, long)' differs from the extern \"C\" definition 'void lk_warm(float *, int)' at app/fast.cu:3"
  refute_output --partial 'app/one.c'
  assert_output --partial 'gpulint: 1 error, 0 warnings in 4 files analysed'
}

@test "file API: a reply that cannot be read is an error naming its file" {
  cd "$LINKS"
  mkdir -p broken
  cp -r build/compile_commands.json build/.cmake broken/
  model=$(ls broken/.cmake/api/v1/reply/codemodel-v2-*.json)
  printf '{"paths": {"build": "x"}, "configurations": [{"targets": [{"name": "t"}]}]}' >"$model"
  run -2 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p broken app
  assert_output --partial "gpulint: error: $model: error: CMake file API codemodel: target 0 has no \"jsonFile\""
}

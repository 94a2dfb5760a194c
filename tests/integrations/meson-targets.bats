#!/usr/bin/env bats
# Programs from a Meson build (docs/rules.md, "Programs"): which programs
# link each library is read from Meson's build directory (meson-info/ and
# build.ninja's link steps, analyzer/input/meson_links.c), so a library's
# files are compared with the programs that link it and with no other,
# where the database alone (objects in <target>.p/) tells them apart only
# by directory.

bats_require_minimum_version 1.5.0
load test_helper

# Two executables in one directory, each linking its own static library
# there, and a shared library only the second links; the static libraries
# define the same extern "C" functions differently.
setup_file() {
  gpulint_env_setup_file
  export MES=$BATS_FILE_TMPDIR/mes
  mkdir -p "$MES/app"
  cat >"$MES/meson.build" <<'MESON'
project('mlinks', 'c', 'cuda')
subdir('app')
MESON
  cat >"$MES/app/meson.build" <<'MESON'
mk_fast = static_library('mk_fast', 'fast.cu')
mk_slow = static_library('mk_slow', 'slow.cu')
mk_shared = shared_library('mk_shared', 'shared.cu')
executable('mk_one', 'one.c', link_with: mk_fast)
executable('mk_two', 'two.c', link_with: [mk_slow, mk_shared])
MESON
  cat >"$MES/app/fast.cu" <<'CU'
extern "C" void lk_scale(float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 2.0f; }
extern "C" void lk_norm(float *x, int n, float eps) { for (int i = 0; i < n; i++) x[i] /= eps; }
extern "C" void lk_warm(float *x, int n) { for (int i = 0; i < n; i++) x[i] = 0.0f; }
CU
  cat >"$MES/app/slow.cu" <<'CU'
extern "C" void lk_scale(double *x, long n) { for (long i = 0; i < n; i++) x[i] *= 2.0; }
extern "C" void lk_norm(float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 0.5f; }
CU
  cat >"$MES/app/shared.cu" <<'CU'
extern "C" void lk_blend(float *x, int n) { for (int i = 0; i < n; i++) x[i] = 1.0f; }
CU
  # mk_one links mk_fast: its lk_norm() lags mk_fast's, and only mk_slow,
  # which mk_one does not link, has the declared signature.
  cat >"$MES/app/one.c" <<'C'
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
  # mk_two links mk_slow and mk_shared: its declarations match mk_slow's, a
  # dead prototype of lk_warm, which only mk_fast defines, and a stale
  # lk_blend() of the shared library it links.
  cat >"$MES/app/two.c" <<'C'
void lk_scale(double *x, long n);
void lk_norm(float *x, int n);
void lk_warm(double *x, long n);
void lk_blend(float *x, int n, int m);
int main(void)
{
    double x[4] = {0};
    float y[4] = {0};
    lk_scale(x, 4);
    lk_norm(y, 4);
    lk_blend(y, 4, 1);
    return 0;
}
C
  (cd "$MES" && meson setup build >"$BATS_FILE_TMPDIR/meson.log" 2>&1) ||
    { cat "$BATS_FILE_TMPDIR/meson.log" >&3; return 1; }
}

setup() { gpulint_env_setup; }

@test "Meson's database names each entry's target in its object directory, and its intro-targets.json names no link; build.ninja's link step does" {
  run grep -c '"output": "app/libmk_fast.a.p/' "$MES/build/compile_commands.json"
  assert_output 1
  run jq -r '.[] | select(.name == "mk_one") | keys | join(" ")' "$MES/build/meson-info/intro-targets.json"
  refute_output --partial 'depend'
  run grep -E '^build app/mk_one: [a-z_]+LINKER app/mk_one.p/one.c.o \| app/libmk_fast.a' "$MES/build/build.ninja"
  assert_success
}

@test "Meson: a library's files are compared with the executables that link it, never with others" {
  cd "$MES"
  run -1 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p build app
  refute_output --partial 'parse-error'
  # mk_one's stale lk_norm(), though mk_slow (not linked into mk_one) defines the declared signature.
  assert_output --partial "app/one.c:2:6: error: declaration 'void lk_norm(float *, int)' differs from the extern \"C\" definition 'void lk_norm(float *, int, float)' at app/fast.cu:2"
  # mk_two's stale lk_blend() of the shared library it links (through its symbols file).
  assert_output --partial "app/two.c:4:6: error: declaration 'void lk_blend(float *, int, int)' differs from the extern \"C\" definition 'void lk_blend(float *, int)' at app/shared.cu:1"
  # mk_two's dead prototype of mk_fast's lk_warm: no finding.
  refute_output --partial 'app/two.c:3'
  assert_output --partial 'gpulint: 2 errors, 0 warnings in 5 files analysed'
}

@test "Meson: an introspection file or build.ninja that cannot be read is an error naming it" {
  cd "$MES"
  mkdir -p broken
  cp -r build/compile_commands.json build/meson-info build/build.ninja broken/
  printf '{"not": "an array"}' >broken/meson-info/intro-targets.json
  run -2 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p broken app
  assert_output --partial "gpulint: error: broken/meson-info/intro-targets.json: error: Meson's intro-targets.json is a JSON array of targets"
  cp build/meson-info/intro-targets.json broken/meson-info/
  rm broken/build.ninja
  run -2 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p broken app
  assert_output --partial "gpulint: error: broken/build.ninja: error: cannot read the Ninja build manifest: No such file or directory"
  printf 'build app/mk_one app/mk_one.p/one.c.o\n' >broken/build.ninja
  run -2 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p broken app
  assert_output --partial "gpulint: error: broken/build.ninja:1: error: the Ninja build manifest has a build statement with no outputs, no ':' or no rule"
  printf '{"directories": {}}' >broken/meson-info/meson-info.json
  run -2 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p broken app
  assert_output --partial "gpulint: error: broken/meson-info/meson-info.json: error: Meson's meson-info.json has no \"directories\".\"build\" (a string)"
}

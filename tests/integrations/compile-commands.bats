#!/usr/bin/env bats
# -p DIR / --compile-commands FILE: include paths and defines come from the
# build's compile_commands.json, nvcc entries included.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  # The header is found only through the database's -I; its macro expands to
  # a banned call, so the finding exists only when the include resolves.
  mkdir -p proj/src proj/third_party/inc proj/build
  cat >proj/third_party/inc/upload_api.h <<'H'
void upload_f32_via_pinned(float *dst, const float *src, int n);
#define UPLOAD(d, h, n) upload_f32_via_pinned(d, h, n)
H
  cat >proj/src/step.cu <<'CU'
#include <cuda_runtime.h>
#include "upload_api.h"
#ifndef FROM_DATABASE
#error "FROM_DATABASE must come from the compilation database"
#endif
__global__ void scale(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] *= 2.0f; }
void step(float *d, const float *h, int n)
{
    UPLOAD(d, h, n);
    scale<<<1, 32>>>(d, n);
}
CU
  cat >proj/build/compile_commands.json <<JSON
[
  {
    "directory": "$BATS_TEST_TMPDIR/proj/build",
    "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -I../third_party/inc -DFROM_DATABASE=1 -gencode arch=compute_90,code=[sm_90,compute_90] --generate-code=arch=compute_80,code=sm_80 -arch=sm_90 -rdc=true -Xcompiler -Wall,-fPIC -x cu -c ../src/step.cu -o step.o",
    "file": "../src/step.cu"
  }
]
JSON
}

@test "-p DIR: the header found only through the database's -I is analysed (the macro's banned call is found)" {
  cd proj
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p build src/step.cu
  assert_output --regexp '"rule": *"no-via-pinned"'
  assert_output --regexp '"line": *9'
  refute_output --partial 'parse-error'
}

@test "--compile-commands FILE does the same" {
  cd proj
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json --compile-commands build/compile_commands.json src/step.cu
  assert_output --regexp '"rule": *"no-via-pinned"'
  refute_output --partial 'parse-error'
}

@test "without the database the include is not found: not checked (exit 1, the header and -p named), and no finding from the macro" {
  cd proj
  rm build/compile_commands.json   # else it is found where clang-tidy looks
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json src/step.cu
  assert_output --regexp '"rule": *"not-checked"'
  assert_output --regexp "'upload_api.h' not found: this file was not checked; [^\"]*-p DIR"
  refute_output --regexp '"line": *9,[^}]*no-via-pinned'
}

@test "a missing compilation database is a usage error naming it" {
  cd proj
  run -2 "$GL" --config "$EMPTY_CONFIG" -p nowhere src/step.cu
  assert_output --partial 'nowhere'
}

@test "the database's include directories come before the config's: a same-named header is the build's" {
  mkdir -p cfgdir dbdir app
  echo '#define PICKED 1' >cfgdir/pick.h
  echo '#define PICKED 2' >dbdir/pick.h
  printf '#include "pick.h"\n#if PICKED != 2\n#error "the config'"'"'s pick.h shadowed the database'"'"'s"\n#endif\nint picked(void) { return PICKED; }\n' >app/pick.c
  printf 'include-dirs: ["cfgdir"]\n' >conf.yaml
  cat >compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR", "command": "cc -Idbdir -c app/pick.c", "file": "app/pick.c"}]
JSON
  run -0 "$GL" --config conf.yaml --format text --color=never -p . app/pick.c
  refute_output --partial 'parse-error'
}

@test "nvcc's relocatable device code (-dc, -rdc=true) is clang's -fgpu-rdc: an extern __shared__ object is no parse error" {
  mkdir -p rdc
  cat >rdc/scratch.cu <<'CU'
struct scratch { float partial[32]; };
/* Defined by the kernel's launch (dynamic shared memory); legal only in
 * relocatable device code, which the build asks for. */
extern __shared__ scratch shared_scratch;
__global__ void sum_rows(const float *x, float *out)
{
    shared_scratch.partial[threadIdx.x % 32] = x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = shared_scratch.partial[0];
}
CU
  for flag in -dc -rdc=true; do
    cat >compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR", "command": "/usr/local/cuda/bin/nvcc $flag -o scratch.o rdc/scratch.cu", "file": "rdc/scratch.cu"}]
JSON
    run -0 "$GL" --config "$EMPTY_CONFIG" --format text --color=never -p . rdc/scratch.cu
    refute_output --partial 'parse-error'
  done
}

@test "a header's #include is searched for with the -I of the unit that includes it: the header it names is analysed in that unit" {
  # include/lib/api.h names "lib/detail.h", which only main.c's -Iinclude
  # finds (not api.h's own directory). detail.h relies on main.c for its
  # real_t: parsed on its own it had a parse error and its dropped status
  # was missed.
  mkdir -p unitflags/src unitflags/include/lib
  printf '#include "lib/detail.h"\n' >unitflags/include/lib/api.h
  printf 'static inline real_t detail_sync(real_t x)\n{\n    cudaDeviceSynchronize();\n    return x;\n}\n' \
    >unitflags/include/lib/detail.h
  printf '#include <cuda_runtime_api.h>\ntypedef float real_t;\n#include "lib/api.h"\nreal_t run(void) { return detail_sync(1.0f); }\n' \
    >unitflags/src/main.c
  cat >compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/unitflags", "command": "cc -Iinclude -c src/main.c", "file": "src/main.c"}]
JSON
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p . unitflags
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "unitflags/include/lib/detail.h:3 unchecked-status"
}

@test "a .cpp file the build compiles as CUDA (nvcc -x cu) is parsed as CUDA, and so is the header it includes" {
  mkdir -p xcu
  cat >xcu/body.h <<'H'
struct body {
    float x, v;
    __host__ __device__ void step(float dt) { x += v * dt; }
};
H
  cat >xcu/main.cpp <<'CPP'
#include <cuda_runtime.h>
#include "body.h"
__global__ void advance(body *bodies, int n, float dt)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        bodies[i].step(dt);
}
int run(body *host, body *dev, int n)
{
    if (cudaMemcpy(dev, host, n * sizeof(body), cudaMemcpyHostToDevice) != cudaSuccess)
        return 1;
    advance<<<(n + 255) / 256, 256>>>(dev, n, 0.1f);
    return cudaDeviceSynchronize() != cudaSuccess;
}
CPP
  cat >compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/xcu", "command": "nvcc -x cu -arch=sm_90 -I. -dc main.cpp -o main.o", "file": "main.cpp"}]
JSON
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p . xcu
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "xcu/main.cpp:11 mapped-pinned-only"
  assert_equal "$(jq -r '.files_checked' <<<"$output")" 2
}

# The build copies include/lib/ into its output directory, which the unit's
# -I finds first (nccl's -I<build>/include holds its nccl_device/): the
# compiler opens the copy, never the tree's header. api.h relies on main.c
# for its real_t: parsed on its own it has a parse error.
make_build_copy() {
  mkdir -p copies/src/include/lib copies/build/include/lib
  printf 'static inline real_t api_sync(real_t x)\n{\n    cudaDeviceSynchronize();\n    return x;\n}\n' \
    >copies/src/include/lib/api.h
  printf '#include <cuda_runtime_api.h>\ntypedef float real_t;\n#include "lib/api.h"\nreal_t run(void) { return api_sync(1.0f); }\n' \
    >copies/src/main.c
  cp copies/src/include/lib/api.h copies/build/include/lib/api.h
  cat >compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/copies/src", "command": "cc -I../build/include -Iinclude -c main.c", "file": "main.c"}]
JSON
}

@test "a header the unit opens through the build's identical copy is analysed in that unit, at its own lines" {
  make_build_copy
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p . copies/src
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "copies/src/include/lib/api.h:3 unchecked-status"
}

@test "a header whose copy in the build differs: one not-checked that names the copy the unit opens" {
  make_build_copy
  # The build's copy is older: the header changed since the last build.
  printf 'static inline float api_sync(float x)\n{\n    return x;\n}\n' >copies/build/include/lib/api.h
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p . copies/src
  # The call the parse on its own still sees is reported too.
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "copies/src/include/lib/api.h:1 not-checked
copies/src/include/lib/api.h:3 unchecked-status"
  run jq -r '.findings[] | select(.rule == "not-checked") | .message' <<<"$output"
  assert_output --partial "the unit of copies/src/main.c opens $BATS_TEST_TMPDIR/copies/build/include/lib/api.h in place of this header"
  assert_output --partial "its content differs from this file's"
}

@test "one database entry's -D names the header of an #include of that macro in that entry's unit only" {
  # lib/backend.h includes BACKEND_HEADER, which each file's entry defines:
  # a.c's names cuda_backend.h, b.c's cpu_backend.h. Each backend relies
  # on its includer's real_t. With every entry's -D counted for every
  # unit, cpu_backend.h was given a.c's unit (the first that seemed to
  # reach it), which does not include it: parsed on its own, a parse error
  # and a not-checked that sent the user to a branch the build does not
  # take.
  mkdir -p perdef/lib perdef/app
  printf '#include BACKEND_HEADER\n' >perdef/lib/backend.h
  for b in cuda cpu; do
    printf 'static inline real_t %s_sync(real_t x)\n{\n    cudaDeviceSynchronize();\n    return x;\n}\n' \
      $b >perdef/lib/${b}_backend.h
  done
  printf '#include <cuda_runtime_api.h>\ntypedef float real_t;\n#include "backend.h"\n' >perdef/app/a.c
  cp perdef/app/a.c perdef/app/b.c
  cat >compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/perdef/app", "arguments": ["cc", "-I../lib", "-DBACKEND_HEADER=\"cuda_backend.h\"", "-c", "a.c"], "file": "a.c"},
 {"directory": "$BATS_TEST_TMPDIR/perdef/app", "arguments": ["cc", "-I../lib", "-DBACKEND_HEADER=\"cpu_backend.h\"", "-c", "b.c"], "file": "b.c"}]
JSON
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p . perdef
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output" | sort)" \
    "$(printf 'perdef/lib/%s_backend.h:3 unchecked-status\n' cpu cuda)"
}

@test "a source file the database given with -p does not list: its not-checked names that database and the entry whose flags it borrowed, not -p DIR" {
  # ggml's template-instance .cu files, which the build compiles only in
  # another configuration, were told to "pass the build's compile database
  # with -p DIR" though -p was given. Here the nearest listed file's flags
  # do not have the -I this file needs.
  cd proj
  mkdir -p src/extra
  printf '#include <cuda_runtime.h>\n#include "extra_only.h"\nvoid f(void) {}\n' >src/extra/other_config.cu
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p build src
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output" | sort)" \
    "$(printf 'src/extra/other_config.cu:2 not-checked\nsrc/step.cu:9 no-via-pinned\n')"
  message=$(jq -r '.findings[] | select(.rule == "not-checked") | .message' <<<"$output")
  assert_regex "$message" "^'extra_only.h' not found: this file was not checked; the compilation database build/compile_commands.json does not list this file, so it was parsed with the flags of src/step.cu \\(listed, in its directory or one above it\\) and the config's, not the build's"
  refute_regex "$message" '-p DIR'
}

@test "a source file the database found without -p does not list: its not-checked names that database, as -p build would" {
  cd proj
  mkdir -p src/extra
  printf '#include <cuda_runtime.h>\n#include "extra_only.h"\nvoid f(void) {}\n' >src/extra/other_config.cu
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json src
  message=$(jq -r '.findings[] | select(.file == "src/extra/other_config.cu") | .message' <<<"$output")
  assert_regex "$message" "the compilation database build/compile_commands.json does not list this file"
  refute_regex "$message" '-p DIR'
  found=$output
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p build src
  assert_equal "$found" "$output"
  # From elsewhere, a database not below the working directory is named in full.
  cd /
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json "$BATS_TEST_TMPDIR/proj/src"
  message=$(jq -r '.findings[] | select(.rule == "not-checked") | .message' <<<"$output")
  assert_regex "$message" "the compilation database $BATS_TEST_TMPDIR/proj/build/compile_commands.json does not list this file"
}

@test "sources two found databases do not list: one note per database, counting its borrowers and naming the first" {
  cd proj
  cp src/step.cu src/other_config.cu
  mkdir -p lib
  cp src/step.cu lib/listed.cu
  cp src/step.cu lib/unlisted_a.cu
  cp src/step.cu lib/unlisted_b.cu
  cat >lib/compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/proj/lib", "command": "nvcc -I../third_party/inc -DFROM_DATABASE=1 -c listed.cu", "file": "listed.cu"}]
JSON
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json lib src
  assert_equal "$(jq -r '.files_checked' <<<"$output")" 5
  assert_equal "$stderr" "$(printf '%s\n%s' \
    "gpulint: note: the compilation database lib/compile_commands.json does not list 2 of the analysed source files; each was parsed with the flags of a listed file of its directory or the nearest one above it (lib/unlisted_a.cu with lib/listed.cu's, ...)" \
    "gpulint: note: the compilation database build/compile_commands.json does not list 1 of the analysed source files; each was parsed with the flags of a listed file of its directory or the nearest one above it (src/other_config.cu with src/step.cu's)")"
}

@test "a source file the database does not list is parsed with the flags of a listed file of its directory (CMake's FindCUDA lists no .cu): checked, and said on stderr" {
  # xmrig-cuda's CMake build compiles its .cu files by FindCUDA's custom
  # commands, so its database lists only the .cpp files: each .cu was
  # not checked for want of the target's -I (docs/realcode.md).
  cd proj
  cp src/step.cu src/other_config.cu
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p build src
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output" | sort)" \
    "$(printf 'src/other_config.cu:9 no-via-pinned\nsrc/step.cu:9 no-via-pinned\n')"
  assert_equal "$(jq -r '.files_checked' <<<"$output")" 2
  assert_equal "$stderr" "gpulint: note: the compilation database build/compile_commands.json does not list 1 of the analysed source files; each was parsed with the flags of a listed file of its directory or the nearest one above it (src/other_config.cu with src/step.cu's)"
}

@test "the flags lent are those of a listed file of the file's directory, else the nearest one above it, never a sibling directory's; a C file takes no C++ -std" {
  # nccl's docs/examples, given the flags of its library in src/, found the
  # library's own utils.h in place of the examples' (146 parse errors).
  mkdir -p near/a/b near/inc_a near/inc_b near/docs
  printf 'int top(void) { return 0; }\n' >near/listed_top.cpp
  printf 'int in_a(void) { return 0; }\n' >near/a/listed.cpp
  printf 'int in_b(void) { return 0; }\n' >near/a/b/listed.cpp
  printf '#define FROM_A 1\n' >near/inc_a/only_a.h
  printf '#error "a sibling directory'"'"'s header"\n' >near/inc_b/utils.h
  printf '#include "only_a.h"\n#include <cuda_runtime_api.h>\nint x(void) { cudaDeviceSynchronize(); return FROM_A; }\n' >near/a/x.c
  printf '#include "utils.h"\nint y(void) { return 0; }\n' >near/docs/y.c
  cat >near/compile_commands.json <<JSON
[
  {"directory": "$BATS_TEST_TMPDIR/near", "arguments": ["c++", "-std=c++17", "-c", "listed_top.cpp"], "file": "listed_top.cpp"},
  {"directory": "$BATS_TEST_TMPDIR/near", "arguments": ["c++", "-std=c++17", "-Iinc_b", "-c", "a/b/listed.cpp"], "file": "a/b/listed.cpp"},
  {"directory": "$BATS_TEST_TMPDIR/near", "arguments": ["c++", "-std=c++17", "-Iinc_a", "-c", "a/listed.cpp"], "file": "a/listed.cpp"}
]
JSON
  cd near
  # a/x.c: a/listed.cpp's -Iinc_a (its own directory's, before the root's
  # listed first), without its -std=c++17, which a C parse refuses.
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p . a/x.c
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" "a/x.c:3 unchecked-status"
  assert_regex "$stderr" '\(a/x.c with a/listed.cpp.s\)$'
  # docs/y.c: the root's listed_top.cpp lends (no -I), never a/b's
  # -Iinc_b, under which utils.h is the wrong one.
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p . docs/y.c
  assert_equal "$(jq -r '.findings[] | .rule' <<<"$output")" "not-checked"
  assert_regex "$(jq -r '.findings[] | .message' <<<"$output")" "^'utils.h' not found: .*parsed with the flags of listed_top.cpp \\(listed, in its directory or one above it\\)"
}

@test "a database whose files share no directory below the working directory with the file lends it nothing" {
  mkdir -p elsewhere/src here
  printf 'int f(void) { return 0; }\n' >elsewhere/src/listed.c
  printf '#include "absent_sdk.h"\nint g(void) { return 0; }\n' >here/lone.c
  cat >elsewhere/compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/elsewhere", "arguments": ["cc", "-Isrc", "-c", "src/listed.c"], "file": "src/listed.c"}]
JSON
  cd here
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p ../elsewhere lone.c
  message=$(jq -r '.findings[] | .message' <<<"$output")
  assert_regex "$message" "parsed with the config's flags alone"
  assert_regex "$stderr" 'lists none of the 1 analysed files'
}

@test "a shared header is said once not checked in another program's unit that failed before reading it, whose file names the database that does not list it" {
  # ggml's src/ggml-common.h, checked in full in the CUDA backend's units,
  # was reported not checked for every missing SDK header of other
  # backends' units (CANN's aclnnop/*.h): 301 findings at 12 headers.
  mkdir -p shared/common shared/gpu shared/vendor shared/probe
  printf '#include <cuda_runtime_api.h>\nstatic inline int shared_sync(void)\n{\n    cudaDeviceSynchronize();\n    return 0;\n}\n' \
    >shared/common/sync.h
  printf '#include "../common/sync.h"\nint gpu_step(void) { return shared_sync(); }\n' >shared/gpu/gpu.c
  printf '#include <vendor_sdk_absent.h>\n#include <vendor_rt_absent.h>\n#include "../common/sync.h"\nint vendor_step(void) { return shared_sync(); }\n' \
    >shared/vendor/vendor.c
  printf '#include "../common/sync.h"\n#include <probe_sdk_absent.h>\nint probe_step(void) { return shared_sync(); }\n' \
    >shared/probe/probe.c
  cat >compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/shared/gpu", "arguments": ["cc", "-c", "gpu.c"], "file": "gpu.c"}]
JSON
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p . shared
  header=$(jq -r '.findings[] | select(.file == "shared/common/sync.h" and .rule == "not-checked") | .message' <<<"$output")
  # One finding for vendor.c's two absent headers, none for probe.c's,
  # which its unit reads after the header.
  assert_equal "$(wc -l <<<"$header")" 1
  assert_regex "$header" "^the unit of shared/vendor/vendor.c, another program that includes this header, was not checked before it had read this header in full \('vendor_sdk_absent.h' not found \(in [^)]*shared/vendor/vendor.c:1\), and 1 more: reported at shared/vendor/vendor.c with its fix\)"
  own=$(jq -r '.findings[] | select(.file == "shared/vendor/vendor.c") | .rule + " " + .message' <<<"$output")
  assert_regex "$own" "^not-checked 'vendor_sdk_absent.h' not found: this file was not checked; the compilation database ./compile_commands.json does not list this file"
  assert_equal "$(jq -r '.findings[] | select(.file == "shared/probe/probe.c") | .rule' <<<"$output")" "not-checked"
  assert_equal "$(jq -r '.findings[] | select(.rule == "unchecked-status") | .file + ":" + (.line | tostring)' <<<"$output")" \
    "shared/common/sync.h:4"
}

@test "a database entry outside the paths given is the unit of the headers it includes: their findings are reported, its own are not" {
  # nccl's collective headers (src/device/*.h) are included only by the
  # sources its build generates in the build directory, which the database
  # lists there: parsed on their own they failed at "device.h" (only the
  # build's -I../include finds it) and were not checked.
  mkdir -p gen/tree/src/device gen/tree/src/include gen/build/gensrc gen/db
  printf 'typedef float gen_real;\n' >gen/tree/src/include/gen_device.h
  printf '#include <cuda_runtime_api.h>\n#include "gen_device.h"\nstatic inline gen_real gen_reduce(gen_real x)\n{\n    cudaDeviceSynchronize();\n    return x;\n}\n' \
    >gen/tree/src/device/gen_reduce.h
  printf '#include "gen_reduce.h"\nfloat gen_reduce_sum(float x)\n{\n    cudaDeviceReset();\n    return gen_reduce(x);\n}\n' \
    >gen/build/gensrc/gen_reduce_sum.cu
  cat >gen/db/compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/gen/tree/src/device", "arguments": ["nvcc", "-I.", "-I../include", "-c", "$BATS_TEST_TMPDIR/gen/build/gensrc/gen_reduce_sum.cu", "-o", "gen_reduce_sum.o"], "file": "$BATS_TEST_TMPDIR/gen/build/gensrc/gen_reduce_sum.cu"}]
JSON
  cd gen/tree
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p ../db src
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "src/device/gen_reduce.h:5 unchecked-status"
  assert_equal "$(jq -r '.files_analyzed' <<<"$output")" 2
  assert_equal "$(jq -r '.files_checked' <<<"$output")" 2
}

# A header that only a generated source in the build directory includes,
# and the database in build/, where clang-tidy finds it.
found_unit_project() {  # found_unit_project DIR PREFIX
  local dir=$1 p=$2
  mkdir -p "$dir/src/device" "$dir/src/include" "$dir/build/gensrc"
  printf 'typedef float %s_real;\n' "$p" >"$dir/src/include/${p}_device.h"
  printf '#include <cuda_runtime_api.h>\n#include "%s_device.h"\nstatic inline %s_real %s_reduce(%s_real x)\n{\n    cudaDeviceSynchronize();\n    return x;\n}\n' \
    "$p" "$p" "$p" "$p" >"$dir/src/device/${p}_reduce.h"
  printf '#include "%s_reduce.h"\nfloat %s_sum(float x) { return %s_reduce(x); }\n' "$p" "$p" "$p" \
    >"$dir/build/gensrc/${p}_sum.cu"
  cat >"$dir/build/compile_commands.json" <<JSON
[{"directory": "$dir/src/device", "arguments": ["nvcc", "-I.", "-I../include", "-c", "$dir/build/gensrc/${p}_sum.cu", "-o", "${p}_sum.o"], "file": "$dir/build/gensrc/${p}_sum.cu"}]
JSON
}

@test "a database found where clang-tidy looks is used as if given with -p: its sources outside the paths analysed are units of the headers they reach" {
  found_unit_project "$BATS_TEST_TMPDIR/found" fd
  cd found
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json -p build src
  given=$output
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$given")" \
    "src/device/fd_reduce.h:5 unchecked-status"
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json src
  assert_equal "$output" "$given"
}

@test "several databases found, each for the files below it: each one's sources outside the paths analysed are units of the headers they reach" {
  found_unit_project "$BATS_TEST_TMPDIR/two/alpha" al
  found_unit_project "$BATS_TEST_TMPDIR/two/beta" be
  cd two
  run -1 --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json alpha/src beta/src
  assert_equal "$(jq -r '.findings[] | .file + ":" + (.line | tostring) + " " + .rule' <<<"$output")" \
    "$(printf 'alpha/src/device/al_reduce.h:5 unchecked-status\nbeta/src/device/be_reduce.h:5 unchecked-status')"
  assert_equal "$(jq -r '.files_analyzed' <<<"$output")" 4
}

@test "a header that only the database's -I finds takes the language of the .cu that includes it: C++ (bool, references, classes), no parse error, its upload and dropped status found" {
  # Issue 13's "header language": the header was given a language through
  # the config's include-dirs only, so one reached through a database -I was
  # parsed as C (bool an unknown type, a reference a syntax error) and its
  # findings lost. Nothing in it looks like CUDA or C++ to a header alone.
  mkdir -p lang/src lang/inc/flags lang/build
  cat >lang/inc/flags/flags.h <<'H'
#pragma once
#include <cuda_runtime_api.h>
class flag_board;
void flags_upload(bool *d_flags, const bool *h_flags, int n);
static inline void flags_sync(const bool &wait)
{
    if (wait)
        cudaDeviceSynchronize();
}
H
  cat >lang/src/flags.cu <<'CU'
#include "flags/flags.h"
void flags_upload(bool *d_flags, const bool *h_flags, int n)
{
    cudaMemcpy(d_flags, h_flags, n * sizeof(bool), cudaMemcpyDefault);
    flags_sync(true);
}
CU
  cat >lang/build/compile_commands.json <<JSON
[{"directory": "$BATS_TEST_TMPDIR/lang/build", "command": "/usr/local/cuda/bin/nvcc -I../inc -c ../src/flags.cu -o flags.o", "file": "../src/flags.cu"}]
JSON
  cd lang
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p build src inc
  assert_equal "$(jq -r '[.findings[] | .file + ":" + (.line | tostring) + " " + .rule] | sort | join(",")' <<<"$output")" \
    "inc/flags/flags.h:8 unchecked-status,src/flags.cu:4 mapped-pinned-only,src/flags.cu:4 unchecked-status"
  assert_equal "$(jq -r '.files_checked' <<<"$output")" 2
}

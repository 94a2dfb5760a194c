#!/usr/bin/env bats
# A directory walk leaves out what git ignores and CMake build trees, says
# so in one note, and analyses whatever is named on the command line
# (analyzer/input/walk_skip.c; docs/gpulint.md, "Paths").

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

# A C file with exactly one error finding (no-via-pinned) on line 1.
bad_c() {
  mkdir -p "$(dirname "$1")"
  printf 'void upload_f32_via_pinned(float *d, const float *h, int n);\n' >"$1"
}

good_c() {
  mkdir -p "$(dirname "$1")"
  printf 'int ok(void) { return 0; }\n' >"$1"
}

# A repository whose .gitignore, nested .gitignore and info/exclude each
# ignore one bad file or directory; src/ok.c is the one file left.
ignoring_repo() {
  git init -q repo && cd repo || return 1
  printf 'build/\n*.gen.c\n' >.gitignore
  bad_c build/out.c
  bad_c build/deep/more.cu
  bad_c src/table.gen.c
  good_c src/ok.c
  printf 'scratch.c\n' >src/.gitignore
  bad_c src/scratch.c
  printf 'vendor/\n' >>.git/info/exclude
  bad_c vendor/lib.h
}

@test "a walk leaves out what .gitignore, a nested .gitignore and info/exclude ignore, in one note" {
  ignoring_repo
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json .
  assert_equal "$status" 0
  [[ $output == *'"files_analyzed": 1'* ]]
  [[ $output == *'"findings": []'* ]]
  assert_equal "$stderr" "gpulint: note: not analysed under '.': build/ (git ignores it), src/scratch.c (git ignores it), src/table.gen.c (git ignores it) and 1 more; name a path to analyse it"
}

@test "a file git tracks is analysed inside an ignored directory; the rest of it is not" {
  ignoring_repo
  git add -f build/out.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json .
  assert_equal "$status" 1
  [[ $output == *'"files_analyzed": 2'* ]]
  [[ $output == *'"file": "build/out.c"'* ]]
  [[ $output != *'more.cu'* ]]
  [[ $stderr == *"build/deep/ (git ignores it)"* ]]
}

@test "an ignored directory or file named on the command line is analysed whole" {
  ignoring_repo
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json build src/table.gen.c
  assert_equal "$status" 1
  [[ $output == *'"files_analyzed": 3'* ]]
  [ "$(grep -c '"rule": "no-via-pinned"' <<<"$output")" -eq 3 ]
  assert_equal "$stderr" ""
  # Also when git tracks a file in it, so that git lists its entries, not it.
  git add -f build/out.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json build
  assert_equal "$status" 1
  [[ $output == *'"files_analyzed": 2'* ]]
  assert_equal "$stderr" ""
}

@test "outside a git work tree every file is analysed, but a CMake build tree is left out unless named" {
  bad_c proj/src/k.cu
  bad_c proj/out/CMakeFiles/3.25.1/CompilerIdCUDA/tmp/id.cudafe1.cpp
  : >proj/out/CMakeCache.txt
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json proj
  assert_equal "$status" 1
  [[ $output == *'"files_analyzed": 1'* ]]
  [[ $output == *'"file": "proj/src/k.cu"'* ]]
  assert_equal "$stderr" "gpulint: note: not analysed under 'proj': proj/out/ (a CMake build tree); name a path to analyse it"
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json proj/out
  assert_equal "$status" 1
  [[ $output == *'"files_analyzed": 1'* ]]
  [[ $output == *'id.cudafe1.cpp'* ]]
}

@test "the default run (what git tracks) is not changed by ignores, and prints no note" {
  ignoring_repo
  git add .gitignore src/ok.c
  git add -f build/out.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json
  assert_equal "$status" 1
  [[ $output == *'"files_analyzed": 2'* ]]
  [[ $stderr != *"note:"* ]]
}

@test "a named directory with nothing left to analyse says so instead of passing in silence" {
  mkdir -p vendored docs
  bad_c vendored/lib.c
  printf 'notes\n' >docs/readme.txt
  printf 'exclude: ["vendored/**"]\n' >excl.yaml
  run --separate-stderr "$GL" --config excl.yaml --color never vendored docs
  assert_success
  assert_output ''
  [ "$stderr" = "gpulint: note: no file to analyse under 'vendored' (none of a C, C++ or CUDA kind, or all left out by the config's exclude: or git's ignore rules); name a file to analyse it whatever they say
gpulint: note: no file to analyse under 'docs' (none of a C, C++ or CUDA kind, or all left out by the config's exclude: or git's ignore rules); name a file to analyse it whatever they say" ]
  run --separate-stderr "$GL" --config excl.yaml --color never vendored/lib.c
  assert_failure 1
}

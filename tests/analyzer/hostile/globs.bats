#!/usr/bin/env bats
# Path globs of .gpulint.yaml: linear-time matching, .gitignore's meaning,
# unsupported syntax refused at its column, and a .gpulint.yaml in a
# subdirectory said to be ignored (analyzer/util/glob.c, config/config.c,
# input/inputs.c). Before: many stars against a deep tree hung gpulint,
# and "****/" excluded every file without a word.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

@test "many stars against a deep tree: answered at once" {
  d=.
  for i in $(seq 1 30); do d=$d/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done
  bad_c "$d/bad.c"
  printf 'exclude: ["**/a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b/**", "****/****/****/****/y.c"]\n' >cfg.yaml
  gl_within 30 --config cfg.yaml .
  assert_equal "$status" 1
  assert_output --partial "bad.c:2:"
}

@test "four stars before a slash are one directory level, not every path" {
  bad_c bad.c
  bad_c sub/bad.c
  printf 'exclude: ["****/"]\n' >cfg.yaml
  gl_within 30 --config cfg.yaml .
  assert_equal "$status" 1
  assert_output --partial "bad.c:2:"
  refute_output --partial "sub/bad.c"
}

@test "gitignore meaning: 'gen/' is a directory at any depth, '*.cu' any depth, '/x' anchored" {
  bad_c gen/bad.c
  bad_c a/gen/bad.c
  bad_c keep/bad.c
  bad_c top.c
  bad_c deep/top.c
  printf 'rules:\n  no-via-pinned:\n    exclude: ["gen/", "/top.c"]\n' >cfg.yaml
  gl_within 60 --config cfg.yaml .
  assert_equal "$status" 1
  assert_output --partial "keep/bad.c:2:"
  assert_output --partial "deep/top.c:2:"
  refute_output --partial "gen/bad.c"
  refute_output --regexp '^top.c'
}

@test "negation and an unclosed set are refused at their line and column" {
  bad_c bad.c
  printf 'exclude:\n  - "!tests/**"\n' >cfg.yaml
  gl_within 30 --config cfg.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "cfg.yaml:2:6: error: exclude: unsupported glob '!tests/**': negation ('!') is not supported: list only what the key should match"
  printf 'hot:\n  - tlob_[ab]_x\n  - tlob_[a_x\n' >cfg.yaml
  gl_within 30 --config cfg.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "cfg.yaml:3:10: error: hot: unsupported glob 'tlob_[a_x': '[' without its closing ']'"
}

@test "a .gpulint.yaml in a subdirectory is said to be ignored, not ignored silently" {
  git init -q -b main repo && cd repo
  bad_c sub/bad.c
  printf 'rules:\n  no-via-pinned:\n    enabled: false\n' >sub/.gpulint.yaml
  git add . && git commit -qm init
  gl_within 30
  assert_equal "$status" 1
  assert_output --partial "sub/bad.c:2:"
  [[ $stderr == *"gpulint: note: 'sub/.gpulint.yaml' is not read: only one .gpulint.yaml applies to a run"* ]]
  gl_within 30 sub
  [[ $stderr == *"gpulint: note: 'sub/.gpulint.yaml' is not read"* ]]
  gl_within 30 --config sub/.gpulint.yaml sub
  assert_equal "$status" 0
  [[ $stderr != *"not read"* ]]
}

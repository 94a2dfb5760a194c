#!/usr/bin/env bats
# A parse that crashes or overflows its stack costs that one file: it is
# reported as not checked (rules/not_checked.c; a crash exits 3), and every
# other file is still analysed
# (analyzer/extract/contain.c). Before the parse ran in a child process,
# each of these inputs killed the whole run with SIGSEGV (exit 139).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; bad_c bad.c; }

chain_c() { python3 -c 'print("int f(int x) { return " + " + ".join(["x"] * 100000) + "; }")' >"$1"; }
else_if_c() {
  python3 -c '
print("int g(int x) {\n  if (x == 0) return 0;")
for i in range(1, 10001): print("  else if (x == %d) return %d;" % (i, i))
print("  return -1;\n}")' >"$1"
}
parens_c() {
  python3 -c 'print("#define P(x) (x)\nint h(void) { return " + "P(" * 4000 + "1" + ")" * 4000 + "; }")' >"$1"
}

# Checked, nothing lost: bad.c's finding, no error about the deep file.
assert_both_checked() {
  assert_equal "$status" 1
  assert_output --partial "bad.c:2:"
  assert_output --partial "[no-via-pinned]"
  refute_output --partial "not checked"
  [[ $stderr == *"in 2 files analysed, 2 fully checked"* ]]
}

@test "100,000 chained binary operators: parsed on the big stack, the other file analysed" {
  chain_c chain.c
  gl_within 240 --config "$EMPTY_CONFIG" -j 2 chain.c bad.c
  assert_both_checked
}

@test "10,000 else-if: parsed on the big stack, the other file analysed" {
  else_if_c elseif.c
  gl_within 120 --config "$EMPTY_CONFIG" elseif.c bad.c
  assert_both_checked
}

# clang stops at 256 nested brackets (-fbracket-depth): a not-checked error
# saying so, where the parse used to die with the run.
@test "macro parentheses 4,000 deep: clang's bracket limit reported, no crash, the other file analysed" {
  parens_c parens.c
  gl_within 120 --config "$EMPTY_CONFIG" parens.c bad.c
  assert_equal "$status" 1
  assert_output --partial "bad.c:2:"
  assert_output --partial "parens.c:2:22: error: clang stopped: bracket nesting level exceeded maximum of 256"
  refute_output --partial "crashed"
}

@test "a stack overflow in a parse: that file not checked (the signal named), the rest analysed" {
  else_if_c elseif.c
  chain_c chain.c
  GPULINT_PARSE_STACK_MB=1 gl_within 120 --config "$EMPTY_CONFIG" -j 2 elseif.c chain.c bad.c
  assert_equal "$status" 3
  assert_output --partial "bad.c:2:"
  assert_output --partial "[no-via-pinned]"
  assert_output --partial "elseif.c:1:1: error: libclang crashed parsing it (signal 11, Segmentation fault): this file was not checked"
  assert_output --partial "chain.c:1:1: error: libclang crashed parsing it (signal 11, Segmentation fault): this file was not checked"
}

# The headers analysed in a unit's parse share it (one job, one parse): when
# that parse dies, the file being parsed pays, and each other file of the
# job is tried again on its own, so none is lost and each is told why.
@test "a stack overflow in a unit shared by two headers: all three not checked, each named, the rest analysed" {
  else_if_c deep.c
  printf '#include "deep_a.h"\n#include "deep_b.h"\n' >>deep.c
  printf '#pragma once\nint deep_a(void);\n' >deep_a.h
  printf '#pragma once\nint deep_b(void);\n' >deep_b.h
  GPULINT_PARSE_STACK_MB=1 gl_within 120 --config "$EMPTY_CONFIG" -j 2 deep.c deep_a.h deep_b.h bad.c
  assert_equal "$status" 3
  assert_output --partial "bad.c:2:"
  local f
  for f in deep.c deep_a.h deep_b.h; do
    assert_output --partial "$f:1:1: error: libclang crashed parsing it (signal 11, Segmentation fault): this file was not checked"
  done
  [[ $stderr == *"in 4 files analysed, 1 fully checked"* ]]
}

@test "a 26-line macro bomb: not checked once over limits.file-seconds, the rest analysed" {
  {
    echo '#define A0 x'
    for i in $(seq 1 26); do echo "#define A$i A$((i - 1)) A$((i - 1))"; done
    echo 'int A26;'
  } >bomb.c
  printf 'limits:\n  file-seconds: 2\n' >limits.yaml
  SECONDS=0
  gl_within 60 --config limits.yaml bomb.c bad.c
  assert_equal "$status" 1
  assert_output --partial "bad.c:2:"
  assert_output --partial "bomb.c:1:1: error: its parse took longer than the budget of 2 s per file: this file was not checked"
  [ "$SECONDS" -lt 20 ]
}

@test "limits.file-seconds must be a whole number from 1: the config's line and column" {
  printf 'limits:\n  file-seconds: 0\n' >limits.yaml
  gl_within 30 --config limits.yaml bad.c
  assert_equal "$status" 2
  [[ $stderr == *"limits.yaml:2:17: error: limits.file-seconds must be a whole number from 1 to 86400"* ]]
}

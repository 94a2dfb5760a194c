#!/usr/bin/env bats
# Choosing what to analyse and which rules run from the command line:
# --files-from FILE|-, --enable RULE, --disable RULE.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  printf 'void upload_f32_via_pinned(float *d);\n' >bad.c
  printf 'void upload_f32_via_pinned(float *d);\n' >other.c
  printf 'int ok(void) { return 0; }\n' >good.c
}

@test "--files-from -: the paths on standard input (empty lines skipped), with those of the command line" {
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --files-from - good.c <<<$'bad.c\n\n'
  assert_equal "$status" 1
  assert_equal "$(grep -c '\[no-via-pinned\]' <<<"$output")" 1
  assert_line --index 0 --partial "bad.c:1:6: error:"
  assert_equal "$stderr" "gpulint: 1 error, 0 warnings in 2 files analysed, 2 fully checked"
}

@test "--files-from FILE; an empty list analyses nothing (not what git tracks)" {
  printf 'bad.c\nother.c\n' >list
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --files-from list
  assert_equal "$status" 1
  [[ $output == *"bad.c:1:6"*"other.c:1:6"* ]]
  : >empty
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --files-from empty
  assert_equal "$status" 0
  assert_equal "$output" ""
  assert_equal "$stderr" "gpulint: note: --files-from empty lists no file: nothing analysed"
}

@test "--files-from of a missing file, or a missing listed path: exit 2, named on stderr" {
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --files-from no-such-list
  assert_equal "$status" 2
  [[ $stderr == *"--files-from no-such-list: No such file or directory"* ]]
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --files-from - <<<"no-such.c"
  assert_equal "$status" 2
  [[ $stderr == *"no-such.c"* ]]
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --files-from
  assert_equal "$status" 2
}

@test "--disable RULE: its findings are gone; --enable RULE overrides the config's enabled: false" {
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --disable no-via-pinned bad.c
  assert_equal "$status" 0
  assert_equal "$output" ""
  printf 'rules:\n  no-via-pinned:\n    enabled: false\n' >off.yaml
  run --separate-stderr "$GL" --config off.yaml bad.c
  assert_equal "$status" 0
  run --separate-stderr "$GL" --config off.yaml --enable no-via-pinned bad.c
  assert_equal "$status" 1
  assert_line --index 0 --partial "[no-via-pinned]"
  # The last one for a rule wins.
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --disable no-via-pinned --enable no-via-pinned bad.c
  assert_equal "$status" 1
}

@test "--enable / --disable of an unknown rule: exit 2 naming it" {
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --disable no-such-rule bad.c
  assert_equal "$status" 2
  [[ $stderr == *"--disable: unknown rule 'no-such-rule'"* ]]
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --enable pattern:nope bad.c
  assert_equal "$status" 2
  [[ $stderr == *"--enable: unknown rule 'pattern:nope'"* ]]
}

#!/usr/bin/env bats
# Human-readable output shows control characters from file names, messages
# and source lines as \xNN: a file name cannot clear the screen or forge a
# diagnostic line (analyzer/report/text.c, report/github.c).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

@test "text: a file name with an escape sequence and a newline is shown, not obeyed" {
  name=$'evil\e[2J\nforged.c:1:1: error: fake [x]\n.c'
  bad_c "$name"
  gl_within 30 --config "$EMPTY_CONFIG" --color never "$name"
  assert_equal "$status" 1
  assert_output --partial 'evil\x1b[2J\x0aforged.c:1:1: error: fake [x]\x0a.c:2:6: error:'
  [[ $output != *$'\e'* ]]
  [ "$(grep -c 'error:' <<<"$output")" -eq 1 ]
}

@test "text: an escape byte in the source line is shown, not obeyed" {
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n); /* \033[2J */\n' >bad.c
  gl_within 30 --config "$EMPTY_CONFIG" --color never bad.c
  assert_equal "$status" 1
  assert_output --partial '/* \x1b[2J */'
  [[ $output != *$'\e'* ]]
}

@test "github: control characters in a file name are escaped" {
  name=$'a\e]8;;x\e\\b.c'
  bad_c "$name"
  gl_within 30 --config "$EMPTY_CONFIG" --format github "$name"
  assert_equal "$status" 1
  assert_output --partial 'file=a\x1b]8;;x\x1b\b.c,line=2'
  [[ $output != *$'\e'* ]]
}

#!/usr/bin/env bats
# --format github: one workflow command per finding, escaped.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

@test "each error finding becomes one ::error workflow command with file, line, col and title" {
  write_uploads up.c 1
  run -1 "$GL" --format github --config "$EMPTY_CONFIG" up.c
  # the declaration (line 1) and the call (line 3)
  assert_line --regexp '^::error file=up\.c,line=1,col=[0-9]+,title=no-via-pinned::'
  assert_line --regexp '^::error file=up\.c,line=3,col=5,title=no-via-pinned::.*upload_f32_via_pinned'
  [ "$(grep -c '^::' <<<"$output")" -eq 2 ]
}

@test "a path with a comma and a colon is escaped in the property value" {
  mkdir 'a,b:c'
  write_uploads 'a,b:c/up.c' 1
  run -1 "$GL" --format github --config "$EMPTY_CONFIG" 'a,b:c/up.c'
  assert_line --regexp '^::error file=a%2Cb%3Ac/up\.c,line=3,'
}

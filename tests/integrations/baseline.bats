#!/usr/bin/env bats
# Baselines: record today's findings; later runs report only new ones, even
# after code moves; fixed findings are reported as such.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  mkdir corpus
  write_uploads corpus/a.c 3
  write_uploads corpus/b.c 2
}

@test "lines inserted above the findings: nothing new; one new violation: exactly that one" {
  run -0 "$GL" --config "$EMPTY_CONFIG" --write-baseline base.json corpus
  run -0 "$GL" --config "$EMPTY_CONFIG" --baseline base.json corpus
  refute_output --partial 'error:'

  # Code moves down: ten lines inserted at the top of both files.
  for f in corpus/a.c corpus/b.c; do
    { for i in $(seq 10); do echo "/* moved $i */"; done; cat "$f"; } >"$f.new" && mv "$f.new" "$f"
  done
  run -0 "$GL" --config "$EMPTY_CONFIG" --baseline base.json corpus
  refute_output --partial 'error:'
  # Without the baseline all seven are still there (five calls and the two
  # declarations), on their new lines.
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json corpus
  [ "$(grep -o '"rule": *"no-via-pinned"' <<<"$output" | wc -l)" -eq 7 ]

  # One new violation, on a line of its own.
  sed -i 's|^}$|    upload_f32_via_pinned(d, h, 99);\n}|' corpus/b.c
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json --baseline base.json corpus
  [ "$(grep -o '"rule": *"no-via-pinned"' <<<"$output" | wc -l)" -eq 1 ]
  assert_output --regexp '"file": *"corpus/b.c"'
  assert_output --regexp '"line": *15'
}

@test "a fixed finding is reported as fixed, and the run passes" {
  run -0 "$GL" --config "$EMPTY_CONFIG" --write-baseline base.json corpus
  sed -i '/(d, h, 1);/d' corpus/a.c
  run -0 "$GL" --config "$EMPTY_CONFIG" --baseline base.json corpus
  assert_output --partial 'fixed since the baseline'
  [ "$(grep -c 'fixed since the baseline' <<<"$output")" -eq 1 ]
}

@test "a baseline that is not a gpulint baseline is a usage error naming the file" {
  printf 'not json\n' >bad.json
  run -2 "$GL" --config "$EMPTY_CONFIG" --baseline bad.json corpus
  assert_output --partial 'bad.json'
}

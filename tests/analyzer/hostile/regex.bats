#!/usr/bin/env bats
# A pattern: rule whose regex hits PCRE2's match or depth limit did not
# search the rest of the file: that is a not-checked error naming the
# pattern and the file, whatever the pattern's own severity
# (analyzer/rules/pattern.c), and the file is not counted as fully checked
# (analyzer/pipeline.c). Before, a warning pattern reported the limit as a
# warning and the run passed (exit 0) with the file unsearched.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  printf 'int x;\nint aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;\n' >slow.c
}

slow_pattern() { # $1: severity, $2: the limits: lines
  printf 'limits:\n%s\npatterns:\n  - id: slow\n    regex: "(a|aa)+$"\n    message: "no runs of a"\n    severity: %s\n' "$2" "$1" >cfg.yaml
}

@test "a warning pattern over regex-match-limit: not-checked error, exit 1" {
  slow_pattern warning '  regex-match-limit: 1000'
  gl_within 30 --config cfg.yaml slow.c
  assert_equal "$status" 1
  assert_output --partial "slow.c:1:1: error: not checked by pattern:slow from here on: match limit exceeded (limits: regex-match-limit: 1000 in .gpulint.yaml raises it, or make the regex cheaper) [not-checked]"
  refute_output --partial "warning"
  assert_equal "$stderr" "gpulint: 1 error, 0 warnings in 1 file analysed, 0 fully checked"
}

@test "a pattern within its limits: its own finding at its own severity, exit 0 for a warning" {
  printf 'patterns:\n  - id: ax\n    regex: "a+;"\n    message: "no runs of a"\n    severity: warning\n' >cfg.yaml
  gl_within 30 --config cfg.yaml slow.c
  assert_equal "$status" 0
  assert_output --partial "slow.c:2:5: warning: no runs of a [pattern:ax]"
}

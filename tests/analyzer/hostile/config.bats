#!/usr/bin/env bats
# Hostile .gpulint.yaml: bounds on its size, nesting and alias expansion,
# NUL characters and files that are not files, each an exit 2 naming the
# config and (where there is one) the line and column
# (analyzer/config/config.c, check_bounds). Before the bounds, 100,000
# nested brackets hung gpulint, and a "\0" in a rule id disabled the rule
# whose name was left after the cut.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; bad_c bad.c; }

@test "100,000 nested brackets: the depth bound at its line and column, at once" {
  python3 -c 'print("hot: " + "[" * 100000 + "]" * 100000)' >deep.yaml
  gl_within 20 --config deep.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "deep.yaml:1:69: error: the config is nested more deeply than gpulint reads (at most 64 levels of nesting and 10000 nodes, aliases expanded)"
}

@test "200 nested mappings: the depth bound at the 65th" {
  python3 -c 'print("".join("  " * i + "k%d:\n" % i for i in range(200)), end="")' >deep.yaml
  gl_within 20 --config deep.yaml bad.c
  assert_equal "$status" 2
  [[ $stderr == "deep.yaml:65:129: error: the config is nested more deeply"* ]]
}

@test "billion laughs: aliases of aliases are counted expanded" {
  {
    echo 'hot: &a0 ["x","x","x","x","x","x","x","x","x","x"]'
    for i in 1 2 3 4 5 6 7 8; do
      printf 'banned-names%d: &a%d [%s]\n' "$i" "$i" "$(printf "*a$((i - 1)),%.0s" 1 2 3 4 5 6 7 8 9)*a$((i - 1))"
    done
  } >laughs.yaml
  gl_within 20 --config laughs.yaml bad.c
  assert_equal "$status" 2
  [[ $stderr == "laughs.yaml:4:"*": error: the config is too large once its aliases are expanded"* ]]
}

@test "a NUL in a rule id is rejected, not cut to the rule it would then disable" {
  printf 'rules:\n  "no-via-pinned\\0x":\n    enabled: false\n' >nul.yaml
  gl_within 20 --config nul.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "nul.yaml:2:3: error: the config has a NUL character in a key or value (it would cut the text short)"
}

@test "a NUL in a regex is rejected at its line and column" {
  printf 'patterns:\n  - id: p\n    regex: "abc\\0def"\n' >nul.yaml
  gl_within 20 --config nul.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "nul.yaml:3:12: error: the config has a NUL character in a key or value (it would cut the text short)"
}

@test "a config over 1 MiB is refused by its size" {
  python3 -c 'print("# " + "x" * (2 << 20))' >big.yaml
  gl_within 20 --config big.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "big.yaml: error: the config is 2097155 bytes; gpulint reads at most 1048576"
}

@test "a FIFO as the config: refused at once, not waited on" {
  mkfifo fifo.yaml
  gl_within 20 --config fifo.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "fifo.yaml: error: the config is not a regular file"
}

@test "limits: unknown keys and bad values are errors with line and column" {
  printf 'limits:\n  file-minutes: 3\n' >l.yaml
  gl_within 20 --config l.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "l.yaml:2:3: error: unknown key 'file-minutes' in limits"
  printf 'limits:\n  regex-match-limit: lots\n' >l.yaml
  gl_within 20 --config l.yaml bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "l.yaml:2:22: error: limits.regex-match-limit must be a whole number from 1 to 4000000000"
}

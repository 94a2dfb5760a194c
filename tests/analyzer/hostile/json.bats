#!/usr/bin/env bats
# JSON inputs (baselines, compilation databases): truncated, nested too
# deeply, wrongly typed or not files at all, each an exit 2 naming the file
# and the position or entry (analyzer/util/files.c, findings/baseline.c,
# input/compile_db.c). The baseline is written by a rename over the old one,
# never in place. Before, a line of -1 was accepted (and printed as
# 4294967295), an unterminated quote was "entry 0 needs directory, file and
# command", and a FIFO as --baseline blocked forever.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  bad_c bad.c
  "$GL" --config "$EMPTY_CONFIG" --write-baseline base.json bad.c >/dev/null 2>&1
}

# base.json edited by a Python expression on `d` (the parsed document).
edited() {
  python3 -c 'import json, sys; d = json.load(open("base.json")); exec(sys.argv[2]); json.dump(d, open(sys.argv[1], "w"))' "$1" "$2"
}

@test "a baseline line of -1 is refused, naming the entry and the field" {
  edited neg.json 'd["findings"][0]["line"] = -1'
  gl_within 30 --config "$EMPTY_CONFIG" --baseline neg.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" 'gpulint: error: neg.json: error: baseline entry 0 (findings[0]): "line" must be a whole number from 1 to 4294967295'
}

@test "a baseline file name with a terminal escape is refused" {
  edited esc.json 'd["findings"][0]["file"] = "x\u001b[2Jy.c"'
  gl_within 30 --config "$EMPTY_CONFIG" --baseline esc.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" 'gpulint: error: esc.json: error: baseline entry 0 (findings[0]): "file" holds a control character'
}

@test "wrong types in a baseline: named" {
  edited type.json 'd["findings"][0]["rule"] = 7'
  gl_within 30 --config "$EMPTY_CONFIG" --baseline type.json bad.c
  assert_equal "$status" 2
  [[ $stderr == *'type.json: error: baseline entry 0 (findings[0]): "rule" is missing or not a string' ]]
  edited fp.json 'd["findings"][0]["fingerprint"] = "zz"'
  gl_within 30 --config "$EMPTY_CONFIG" --baseline fp.json bad.c
  assert_equal "$status" 2
  [[ $stderr == *'"fingerprint" must be 64 lower-case hex digits'* ]]
}

@test "a truncated baseline and a deeply nested one: the line and column" {
  head -c 50 base.json >trunc.json
  gl_within 30 --config "$EMPTY_CONFIG" --baseline trunc.json bad.c
  assert_equal "$status" 2
  [[ $stderr == "gpulint: error: trunc.json:"*": error: the baseline is not valid JSON: premature end of input"* ]]
  python3 -c 'print("[" * 100000)' >deep.json
  gl_within 30 --config "$EMPTY_CONFIG" --baseline deep.json bad.c
  assert_equal "$status" 2
  [[ $stderr == "gpulint: error: deep.json:1:2049: error: the baseline is not valid JSON: maximum parsing depth reached"* ]]
}

@test "a FIFO as --baseline or -p's database: refused, not waited on" {
  mkfifo fifo.json
  gl_within 30 --config "$EMPTY_CONFIG" --baseline fifo.json bad.c
  assert_equal "$status" 2
  [[ $stderr == *"fifo.json: error: the baseline is not a regular file" ]]
  mkdir db && mkfifo db/compile_commands.json
  gl_within 30 --config "$EMPTY_CONFIG" -p db bad.c
  assert_equal "$status" 2
  [[ $stderr == *"compile_commands.json: error: the compilation database is not a regular file"* ]]
}

@test "an unterminated quote in a compile command is said to be one" {
  printf '[{"directory": "%s", "file": "bad.c", "command": "cc \\"-DX -c bad.c"}]\n' "$PWD" >cdb.json
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" 'gpulint: error: cdb.json: error: entry 0: its "command" has an unterminated quote'
}

@test "a compilation database of the wrong shape: the entry named" {
  printf '[{"directory": "/", "file": "bad.c"}, 7]\n' >cdb.json
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 2
  [[ $stderr == *'cdb.json: error: entry 0 needs "directory", "file" and "command" or "arguments" (strings)' ]]
}

@test "--write-baseline replaces the file by a rename, never in place, and leaves no temporary file" {
  ln base.json hardlink.json
  before=$(stat -c %i base.json)
  gl_within 30 --config "$EMPTY_CONFIG" --write-baseline base.json bad.c
  assert_equal "$status" 0
  [ "$(stat -c %i base.json)" != "$before" ]
  cmp -s base.json hardlink.json   # the old inode still holds the old, whole content
  [ "$(ls -A | grep -c '^\.base\.json\.')" -eq 0 ]
}

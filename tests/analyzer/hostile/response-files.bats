#!/usr/bin/env bats
# Response files named by a compilation database (@file, nvcc's
# --options-file / -optf): only a regular file of at most 1 MiB is read; a
# FIFO, a device or a larger file is an exit 2 naming the database, the
# entry and the response file, and so is reading more than 256 of them for
# one command (analyzer/input/compile_db.c). Before, a FIFO
# blocked gpulint forever, @/dev/zero grew it by 200 MB a second, and a
# file naming itself ten times was read 10^8 times (seen in fuzz_response_file:
# its executions slowed, and the input was a libFuzzer timeout).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; bad_c bad.c; }

cdb_with() { # $1: the command's response-file words
  printf '[{"directory": "%s", "file": "bad.c", "command": "cc %s -c bad.c"}]\n' "$PWD" "$1" >cdb.json
}

@test "@/dev/zero: refused at once, named, not read" {
  cdb_with '@/dev/zero'
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "gpulint: error: cdb.json: error: entry 0: response file /dev/zero is not a regular file"
}

@test "a FIFO as --options-file (and inside a response file): refused, not waited on" {
  mkfifo flags.fifo
  cdb_with '--options-file flags.fifo'
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "gpulint: error: cdb.json: error: entry 0: response file $PWD/flags.fifo is not a regular file"
  printf -- '-Iinc @flags.fifo\n' >outer.rsp
  cdb_with '-optf outer.rsp'
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "gpulint: error: cdb.json: error: entry 0: response file $PWD/flags.fifo is not a regular file"
}

@test "a response file over 1 MiB: refused by its size" {
  head -c 1048577 /dev/zero | tr '\0' ' ' >big.rsp
  cdb_with '@big.rsp'
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "gpulint: error: cdb.json: error: entry 0: response file $PWD/big.rsp is 1048577 bytes, more than the 1048576 gpulint reads"
}

@test "a regular response file is still read, and a missing one adds nothing" {
  printf -- '-DUSE_PINNED=1 @missing.rsp\n' >flags.rsp
  printf '#include <stddef.h>\n#if USE_PINNED\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n#endif\n' >bad.c
  cdb_with '@flags.rsp'
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 1
  assert_output --partial "bad.c:3:"
  assert_output --partial "[no-via-pinned]"
}

@test "response files that name each other ten times over: refused after 256 reads, at once" {
  printf -- '-optf r.rsp,r.rsp,r.rsp,r.rsp,r.rsp,r.rsp,r.rsp,r.rsp,r.rsp,r.rsp\n' >r.rsp
  cdb_with '@r.rsp'
  gl_within 30 --config "$EMPTY_CONFIG" --compile-commands cdb.json bad.c
  assert_equal "$status" 2
  assert_equal "$stderr" "gpulint: error: cdb.json: error: entry 0: more than 256 response files in one command (at r.rsp: do they name each other?)"
}

#!/usr/bin/env bats
# tests/fuzz/run-long (the long runs of docs/reliability.md) and the fuzz
# binaries it carries elsewhere: a bundle holds what a run needs, a crash
# or an artifact is exit 1 with the input kept, bad arguments exit 2, the
# stats line holds what the run measured, and no harness needs libclang.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT BINS=$ROOT/${BUILD:-build}/fuzz
  export BUNDLE=$BATS_FILE_TMPDIR/bundle
  # Two harnesses: the fixture-seeded ones take seconds to gather.
  "$ROOT/tests/fuzz/run-long" bundle "$BUNDLE" glob npy >/dev/null
}

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
}

@test "no fuzz binary needs libclang or the third-party shared libraries" {
  for b in "$BINS"/fuzz_*; do
    run readelf -d "$b"
    assert_success
    refute_output --partial libclang
    refute_output --partial libLLVM
    refute_output --regexp 'lib(pcre2-8|yaml|jansson|crypto)[-.]'
  done
}

@test "a bundle holds each harness asked for, its seeds and dictionary, and the script" {
  for n in glob npy; do
    [ -x "$BUNDLE/bin/fuzz_$n" ]
    [ -n "$(ls "$BUNDLE/seeds/$n")" ]
  done
  [ -f "$BUNDLE/dicts/glob.dict" ]
  [ ! -e "$BUNDLE/bin/fuzz_config" ]
  [ -x "$BUNDLE/run-long" ]
  run "$ROOT/tests/fuzz/run-long" bundle b nosuch
  assert_failure 2
  assert_output --partial "fuzz_nosuch is not built"
}

@test "a real run: exit 0, its stats line, and the next run continues the corpus" {
  run "$BUNDLE/run-long" run -t 1 -w work glob:2
  assert_success
  assert_output --partial "fuzz_glob: 2 workers"
  [ "$(wc -l <work/stats.tsv)" -eq 2 ]
  # workers 2, cov and ft numbers, exits "0,0", some executions and CPU
  run awk -F'\t' 'NR == 2 && $3 == 2 && $9 > 0 && $6 > 0 && $10 ~ /^[0-9]+$/ && $11 ~ /^[0-9]+$/ && $14 == "0,0" { ok = 1 } END { exit !ok }' work/stats.tsv
  assert_success
  n=$(ls work/corpus/glob | wc -l)
  [ "$n" -gt 0 ]
  run "$BUNDLE/run-long" run -t 1 -w work glob
  assert_success
  [ "$(wc -l <work/stats.tsv)" -eq 3 ]
  run "$BUNDLE/run-long" total work
  assert_success
  assert_line --regexp '^glob	2	2\+1	'
}

# A bundle of stand-in harnesses: run-long and one seed each.
fake_bundle() {
  mkdir -p b/bin b/seeds/mask b/seeds/npy
  cp "$ROOT/tests/fuzz/run-long" b/
  echo seed >b/seeds/mask/1
  echo seed >b/seeds/npy/1
}

@test "a crashing worker: exit 1, its report, the input kept" {
  fake_bundle
  # A stand-in harness: fine over its seeds, a crash when it fuzzes.
  cat >b/bin/fuzz_mask <<'SH'
#!/bin/sh
for a; do case $a in -runs=0) echo "INITED cov: 1 ft: 1"; exit 0 ;; -artifact_prefix=*) p=${a#*=} ;; esac; done
echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow"; echo x >"${p}crash-1"
echo "Test unit written to ${p}crash-1"; exit 1
SH
  chmod +x b/bin/fuzz_mask
  run b/run-long run -t 1 -w work mask
  assert_failure 1
  assert_output --partial "1 artifacts, exits 1"
  assert_output --partial "heap-buffer-overflow"
  [ -f work/artifacts/mask/crash-1 ]
}

@test "a harness that fails on its seeds stops the run before it starts: exit 1" {
  fake_bundle
  printf '#!/bin/sh\necho "runtime error: shift exponent"; exit 1\n' >b/bin/fuzz_npy
  cp b/bin/fuzz_npy b/bin/fuzz_mask
  printf '#!/bin/sh\necho "INITED cov: 1 ft: 1"\n' >b/bin/fuzz_mask
  chmod +x b/bin/fuzz_npy b/bin/fuzz_mask
  run b/run-long run -t 60 -w work npy mask
  assert_failure 1
  assert_output --partial "fuzz_npy fails on its seeds"
  [ ! -f work/stats.tsv ]
}

@test "bad arguments name the word: exit 2" {
  run "$BUNDLE/run-long" run -t soon glob
  assert_failure 2
  assert_output --partial "-t 'soon'"
  run "$BUNDLE/run-long" run glob:0
  assert_failure 2
  assert_output --partial "'glob:0'"
  run "$BUNDLE/run-long" run nosuch
  assert_failure 2
  assert_output --partial "'nosuch'"
  run "$BUNDLE/run-long" frobnicate
  assert_failure 2
}

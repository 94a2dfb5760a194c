#!/usr/bin/env bats
# File names that break naive scripts: spaces, quotes, non-ASCII, a leading
# dash, glob characters. The hook passes no file names on any command line.

load test_helper

setup() { common_setup; }

names=(
  "src/with space.c"
  "src/it's \"quoted\".c"
  "src/noël_ünïcode_名前.c"
  "-leading-dash.c"
  "src/--staged.c"
  "src/glob*[x]?.c"
  "src/back\\slash.c"
)

@test "violations in awkwardly named files are blocked and named" {
  for n in "${names[@]}"; do
    bad_c "./$n"
  done
  git add -- "${names[@]}"
  expect_blocked commit -m "awkward names"
  for n in "${names[@]}"; do
    assert_finding "$n" no-via-pinned
  done
}

@test "clean awkwardly named files go through" {
  for n in "${names[@]}"; do
    good_c "./$n"
  done
  git add -- "${names[@]}"
  expect_allowed commit -m "awkward names"
  run git ls-files -z
  assert_success
}

@test "one violation among awkward names is blocked and only that one is named" {
  for n in "${names[@]}"; do
    good_c "./$n"
  done
  bad_c "./src/noël_ünïcode_名前.c"
  git add -- "${names[@]}"
  expect_blocked commit -m "one bad"
  assert_finding "src/noël_ünïcode_名前.c" no-via-pinned
  refute_output --partial "with space.c:"
}

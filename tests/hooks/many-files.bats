#!/usr/bin/env bats
# A commit of 2,000 files: no file list on any command line, so no
# argument-list limit, and every file is checked. One gpulint run over 2,000
# files costs several seconds of CPU, so this file has a single test.

load test_helper

setup() { common_setup; }

# 2,000 small C files in 40 directories, with long names (about 140 KiB of
# path names: more than one command-line argument may hold).
make_files() {
  local d i
  for ((d = 0; d < 40; d++)); do
    mkdir -p "src/module_with_a_long_directory_name_$d"
    for ((i = 0; i < 50; i++)); do
      printf 'int f_%d_%d(int x)\n{\n    return x + %d;\n}\n' "$d" "$i" "$i" \
        >"src/module_with_a_long_directory_name_$d/file_with_a_long_name_for_limits_$i.c"
    done
  done
}

@test "2,000 files with one violation: blocked, the one file named" {
  make_files
  bad_c src/module_with_a_long_directory_name_39/file_with_a_long_name_for_limits_49.c
  git add .
  assert_equal "$(git ls-files | wc -l)" 2000
  expect_blocked commit -q -m "2,000 files"
  assert_finding src/module_with_a_long_directory_name_39/file_with_a_long_name_for_limits_49.c no-via-pinned
  # Both occurrences in that file (declaration and call), nothing else.
  assert_output --partial "2 errors in the staged files"
}

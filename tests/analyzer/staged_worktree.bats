#!/usr/bin/env bats
# --staged reads a staged file from the working tree when that copy is the
# staged blob (same git object id: analyzer/input/inputs.c), else from git:
# what is analysed is always exactly the index's content, however the
# working tree copy came to differ.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  git init -q -b main repo
  cd repo || return 1
}

BAD='void upload_f32_via_pinned(float *d);'
GOOD='void upload_f32_via_mapped(float *d);'

# "rule:file:line" of the findings of `gpulint --staged`.
staged_findings() {
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  [ "$status" -le 1 ] || { echo "exit $status: $stderr"; return 1; }
  printf '%s' "$output" | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(j.files_analyzed + " " + j.findings.map(f => f.rule + ":" + f.file + ":" + f.line).join(" "))'
}

@test "a working tree copy that is the staged blob, and one edited after git add with its size and mtime kept" {
  printf '#include <stddef.h>\n%s\n' "$GOOD" >a.c
  printf '#include <stddef.h>\n%s\n' "$BAD" >b.c
  git add a.c b.c
  assert_equal "$(staged_findings)" "2 no-via-pinned:b.c:2"
  # The working tree swapped after staging, sizes equal, mtimes put back:
  # the index still has a.c good and b.c bad.
  [ ${#GOOD} -eq ${#BAD} ]
  touch -r a.c stamp
  printf '#include <stddef.h>\n%s\n' "$BAD" >a.c
  printf '#include <stddef.h>\n%s\n' "$GOOD" >b.c
  touch -r stamp a.c b.c
  assert_equal "$(staged_findings)" "2 no-via-pinned:b.c:2"
  # Deleted from the working tree: read from git.
  rm a.c b.c
  assert_equal "$(staged_findings)" "2 no-via-pinned:b.c:2"
}

@test "a clean filter: the staged blob is what the filter made, not the working tree's text" {
  git config filter.nopinned.clean "sed s/via_pinned/via_mapped/"
  git config filter.nopinned.smudge cat
  printf '*.c filter=nopinned\n' >.gitattributes
  printf '#include <stddef.h>\n%s\n' "$BAD" >c.c
  git add .gitattributes c.c
  assert_equal "$(git show :c.c | sed -n 2p)" "$GOOD"
  assert_equal "$(staged_findings)" "1 "
  # And the other way: the blob has the violation the working tree lacks.
  git config filter.nopinned.clean "sed s/via_mapped/via_pinned/"
  printf '#include <stddef.h>\n%s\n' "$GOOD" >d.c
  git add d.c
  assert_equal "$(staged_findings)" "2 no-via-pinned:d.c:2"
}

@test "a staged file whose working tree copy is a directory, a FIFO or a symbolic link elsewhere: the blob is analysed" {
  printf '#include <stddef.h>\n%s\n' "$BAD" >e.c
  printf '#include <stddef.h>\n%s\n' "$BAD" >f.c
  printf '#include <stddef.h>\n%s\n' "$BAD" >g.c
  git add e.c f.c g.c
  rm e.c f.c g.c
  mkdir e.c
  mkfifo f.c
  printf '#include <stddef.h>\n%s\n' "$GOOD" >../elsewhere.c
  ln -s ../elsewhere.c g.c
  assert_equal "$(staged_findings)" "3 no-via-pinned:e.c:2 no-via-pinned:f.c:2 no-via-pinned:g.c:2"
}

# A `git` first on PATH=$BATS_TEST_TMPDIR/bin:$PATH that appends each call's
# arguments to $BATS_TEST_TMPDIR/git-calls, then runs the real one.
log_git_calls() {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  local real_git
  real_git=$(command -v git)
  printf '#!/bin/sh\necho "$*" >>"%s/git-calls"\nexec "%s" "$@"\n' "$BATS_TEST_TMPDIR" "$real_git" \
    >"$BATS_TEST_TMPDIR/bin/git"
  chmod +x "$BATS_TEST_TMPDIR/bin/git"
}

# The staged .gpulint.yaml too: read from the working tree when that copy is
# the staged blob (no `git cat-file`, one process fewer per commit), from
# git when it differs, and the staged one is what applies either way.
@test "the staged config: its working tree copy when it is the staged blob, else git's" {
  log_git_calls
  printf '#include <stddef.h>\n%s\n' "$BAD" >b.c
  printf 'rules:\n  no-via-pinned:\n    enabled: false\n' >.gpulint.yaml
  git add b.c .gpulint.yaml
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run -0 "$GL" --staged -q
  run grep -c 'cat-file' "$BATS_TEST_TMPDIR/git-calls"
  assert_output 0
  # Edited after git add: the staged config (the rule off) still applies.
  printf 'rules: {}\n' >.gpulint.yaml
  : >"$BATS_TEST_TMPDIR/git-calls"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run -0 "$GL" --staged -q
  run grep -c 'cat-file' "$BATS_TEST_TMPDIR/git-calls"
  assert_output 1
}

# A commit's run starts two git processes: the root and one listing of the
# index, in which the staged config, the baseline it names and the snapshot
# are all looked up (it started four: a listing for the config, one for the
# snapshot and a `git config` for partial clones, asked now only when some
# staged file is not its working tree copy).
@test "a commit of files as they are on disk: two git processes, whatever the config and baseline" {
  log_git_calls
  printf '#include <stddef.h>\n%s\n' "$BAD" >b.c
  printf '#include <stddef.h>\n%s\n' "$GOOD" >a.c
  git add a.c b.c
  run -0 "$GL" --write-baseline base.json
  assert_output --partial "wrote 1 finding to the baseline"
  printf 'baseline: base.json\n' >.gpulint.yaml
  git add base.json .gpulint.yaml
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run -0 "$GL" --staged -q
  run cat "$BATS_TEST_TMPDIR/git-calls"
  assert_output "rev-parse --show-toplevel
ls-files --stage -z --full-name -- :/"
  # The listing is the index's: a file staged and then edited is the staged
  # blob (through `git cat-file --batch`), so its finding is there...
  printf '#include <stddef.h>\n%s\n' "$BAD" >c.c
  git add c.c
  printf '#include <stddef.h>\n%s\n' "$GOOD" >c.c
  : >"$BATS_TEST_TMPDIR/git-calls"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run -1 "$GL" --staged --format github
  assert_output --partial "file=c.c,line=2"
  # ...and only then is the partial-clone setting asked.
  run cat "$BATS_TEST_TMPDIR/git-calls"
  assert_line --index 0 "rev-parse --show-toplevel"
  assert_line --index 1 "ls-files --stage -z --full-name -- :/"
  assert_line --index 2 --partial "config --get-regexp"
  assert_line --index 3 "cat-file --batch"
  assert_equal "${#lines[@]}" 4
}

# The units a run parsed (GPULINT_TRACE), as a count.
parse_count() {
  GPULINT_TRACE=1 "$GL" --config "$EMPTY_CONFIG" -q "$@" 2>&1 >/dev/null | grep -c 'trace: parse' || true
}

@test "an included file outside the analysed set: a plain run and --staged reuse each other's facts while its content is the same" {
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  # kinds.def is read by the parse but never analysed: under --staged it
  # comes from the index, in a plain run from disk.
  printf 'KIND(one)\n' >kinds.def
  printf '#define KIND(k) int k;\n#include "kinds.def"\n%s\n' "$GOOD" >a.c
  git add kinds.def a.c
  git commit -q -m base
  assert_equal "$(parse_count)" 1
  assert_equal "$(parse_count --staged)" 0
  assert_equal "$(parse_count)" 0
  assert_equal "$(parse_count --staged)" 0
  # Changed on disk only: the plain run parses again, and --staged, whose
  # index still has the old text, does not take that entry for its own.
  printf 'KIND(two)\n' >kinds.def
  assert_equal "$(parse_count)" 1
  assert_equal "$(parse_count --staged)" 1
  git add kinds.def
  assert_equal "$(parse_count --staged)" 1
  assert_equal "$(parse_count)" 0
}

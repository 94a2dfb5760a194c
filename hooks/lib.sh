# Shared by hooks/pre-commit and hooks/pre-push; sourced, never run.
# shellcheck shell=bash disable=SC2154  # hooks_dir: set by the hook that sources this
#
# The caller sets hooks_dir (the real directory of the hook scripts, symlinks
# resolved). Everything here reads; nothing writes to the repository being
# committed to or pushed from.

# Where these hooks live (a clone of gpulint's repository, or
# <prefix>/share/gpulint once installed), which may differ from the
# repository the commit is made in: the gpulint that comes with them is the
# last one tried.
# hooks_dir has its symlinks resolved already: its parent is a string
# operation, not a process (the hooks run on every commit).
tool_root=${hooks_dir%/*}
tool_root=${tool_root:-/}

# Git commands gpulint runs must not refresh the index behind git's back:
# the hook promises the index is byte-for-byte what it was.
export GIT_OPTIONAL_LOCKS=0

# Print to the terminal git shows hook output on.
say() { printf '%s\n' "$@" >&2; }

# Where gpulint is when these hooks come with it: installed by `make
# install` (<prefix>/share/gpulint/hooks next to <prefix>/bin/gpulint), or
# this repository's build/gpulint.
if [[ $tool_root == */share/gpulint ]]; then
  own_gpulint=${tool_root%/share/gpulint}/bin/gpulint
else
  own_gpulint=$tool_root/build/gpulint
fi

# Sets `gpulint` to the analyzer to run: $GPULINT, else gpulint on PATH, else
# the one these hooks come with. Returns 1, after saying why and what to do,
# when none is usable: a missing analyzer blocks, it never passes silently.
find_gpulint() {
  local what=$1 candidate dir unusable=()
  if [ -n "${GPULINT:-}" ]; then
    # An explicit choice is honoured or reported, never silently replaced.
    candidate=$GPULINT
    if [[ $candidate != */* ]]; then
      candidate=$(type -P -- "$candidate") || candidate=$GPULINT
    fi
    if [ -f "$candidate" ] && [ -x "$candidate" ]; then
      gpulint=$candidate
      return 0
    fi
    say "gpulint: $what blocked: GPULINT=$GPULINT is not an executable file." \
        "  Point GPULINT at a built gpulint, or unset it to use PATH or $own_gpulint."
    return 1
  fi
  # `type -P` falls back to a gpulint that is not executable when no other
  # is found: skip it but name it, or the user wonders why the one they
  # installed is "not found".
  local IFS=:
  for dir in $PATH; do
    candidate=${dir:-.}/gpulint
    if [ -f "$candidate" ] && [ -x "$candidate" ]; then
      gpulint=$candidate
      return 0
    fi
    [ -e "$candidate" ] && unusable+=("$candidate")
  done
  unset IFS
  if [ -f "$own_gpulint" ] && [ -x "$own_gpulint" ]; then
    gpulint=$own_gpulint
    return 0
  fi
  say "gpulint: $what blocked: gpulint not found, so nothing was checked."
  for candidate in ${unusable[@]+"${unusable[@]}"}; do
    say "  On PATH but not an executable file: $candidate (chmod +x it, or fix PATH)"
  done
  say "  Looked for: \$GPULINT (unset), gpulint on PATH, $own_gpulint"
  if [ "$own_gpulint" = "$tool_root/build/gpulint" ]; then
    say "  Build it:   make -C $(printf '%q' "$tool_root") analyzer"
  fi
  say "  Or use one: export GPULINT=/path/to/gpulint"
  return 1
}

# A directory of this run's temporary files (pre-push's index), removed
# when the hook exits.
hook_tmp=
make_hook_tmp() {
  [ -n "$hook_tmp" ] && return 0
  hook_tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpulint-hook.XXXXXX") || {
    hook_tmp=
    return 1
  }
}

# gpulint runs as a background child so that the hook can stop it: git (or
# a user's Ctrl-C, or a CI runner's timeout) stops the hook with a signal, and
# a gpulint left running would keep parsing for seconds after the push or
# commit was abandoned.
lint_pid=
stop_child_and_exit() {
  if [ -n "$lint_pid" ]; then
    kill -TERM "$lint_pid" 2>/dev/null
    wait "$lint_pid" 2>/dev/null
  fi
  exit "$1"
}
trap 'stop_child_and_exit 143' TERM
trap 'stop_child_and_exit 130' INT
trap 'stop_child_and_exit 129' HUP
trap '[ -z "$hook_tmp" ] || rm -rf -- "$hook_tmp"' EXIT

# gpulint's github format is one line per finding whatever the file name
# holds (a newline in it is %0A); the text format is for people, and a name
# with a newline would split its line in two.
unescape_github() {
  local v=$1
  v=${v//%0A/$'\n'}
  v=${v//%0D/$'\r'}
  v=${v//%3A/:}
  v=${v//%2C/,}
  printf '%s' "${v//%25/%}"
}
# A file name as the user can recognise it: as is, or shell-quoted when it
# holds a control character (src/new<LF>line.c shows as $'src/new\nline.c').
show_path() {
  if [[ $1 == *[[:cntrl:]]* ]]; then
    printf '%q' "$1"
  else
    printf '%s' "$1"
  fi
}

# Runs `gpulint --staged` on the index named by GIT_INDEX_FILE (or the default
# index) and sorts its output. Sets:
#   lint_rc       gpulint's exit status
#   lint_output   everything it printed (stdout and stderr)
#   lint_errors   array of "file:line:column: rule: message", one per error finding
#   lint_warnings number of warning findings
#   lint_notes    array of gpulint's "gpulint: note: ..." lines
run_gpulint() {
  local line file rule message
  local re='^::(error|warning) file=([^,]*),line=([0-9]+),col=([0-9]+),title=([^:]*)::(.*)$'
  local lint_fd
  lint_errors=()
  lint_notes=()
  lint_warnings=0
  # Read through a pipe, not a temporary file: no mktemp and no rm, two
  # processes of the dozen a commit used to start (docs/hooks.md). A
  # signal's trap still runs during the read and stops gpulint
  # (tests/hooks/pre-push-signal.bats).
  if ! exec {lint_fd}< <(exec "$gpulint" --staged --format github 2>&1); then
    lint_rc=125
    lint_output="cannot start $gpulint"
    return
  fi
  lint_pid=$!
  # Trailing newlines go, as $(...) drops them.
  IFS= read -r -d '' -u "$lint_fd" lint_output
  exec {lint_fd}<&-
  wait "$lint_pid"
  lint_rc=$?
  lint_pid=
  while [[ $lint_output == *$'\n' ]]; do lint_output=${lint_output%$'\n'}; done
  while IFS= read -r line; do
    if [[ $line == 'gpulint: note: '* ]]; then
      lint_notes+=("$line")
      continue
    fi
    [[ $line =~ $re ]] || continue
    if [ "${BASH_REMATCH[1]}" = error ]; then
      file=$(unescape_github "${BASH_REMATCH[2]}")
      rule=$(unescape_github "${BASH_REMATCH[5]}")
      message=$(unescape_github "${BASH_REMATCH[6]}")
      message=${message% "[$rule]"}
      lint_errors+=("$(show_path "$file"):${BASH_REMATCH[3]}:${BASH_REMATCH[4]}: $rule: ${message//$'\n'/ }")
    else
      lint_warnings=$((lint_warnings + 1))
    fi
  done <<<"$lint_output"
}

# Clean results are remembered under a key made of everything that decides
# them: the snapshot's entries (mode, blob id, path of every file), the
# gpulint binary (its path in the entry's name, its content in the entry: a
# rebuild of the same code stays warm, a different build does not) and what
# else it reads: its configuration (the staged .gpulint.yaml, which
# `gpulint --staged` reads from the same index) and CUDA_PATH. A snapshot
# already found clean is not analysed again: an amend that only rewords, and
# every commit pushed after pre-commit checked it.
# Findings and failures are never remembered. GPULINT_HOOK_CACHE=0 turns
# this off. The entries live in a directory of their own, each named
# clean-<sha256>: $GPULINT_HOOK_CACHE_DIR/gpulint-hook-clean when that is
# set (it may name a cache shared with other tools), else
# $XDG_CACHE_HOME/gpulint/hook-clean, else ~/.cache/gpulint/hook-clean.
# Nothing else in any of these is ever touched.
entry_re='^clean-[0-9a-f]{64}(\.[0-9]+\.tmp)?$'

# Sets canon to the directory $1 names, symlinks resolved ("" when it
# cannot be entered): a cd there and back, not a realpath process.
canon_dir() {
  local back=$PWD
  canon=
  if CDPATH= cd -P -- "$1" 2>/dev/null; then
    canon=$PWD
    CDPATH= cd -- "$back" || exit 1
  fi
}

# Sets cache_dir (empty: no cache this run). Once per hook run.
cache_dir_known=
choose_cache_dir() {
  local dir real place
  [ -n "$cache_dir_known" ] && return 0
  cache_dir_known=1
  cache_dir=
  [ "${GPULINT_HOOK_CACHE:-1}" != 0 ] || return 0
  if [ -n "${GPULINT_HOOK_CACHE_DIR:-}" ]; then
    dir=$GPULINT_HOOK_CACHE_DIR
    [[ $dir == /* ]] || dir=$PWD/$dir
    dir=$dir/gpulint-hook-clean
  elif [ -n "${XDG_CACHE_HOME:-}" ]; then
    dir=$XDG_CACHE_HOME/gpulint/hook-clean
  elif [ -n "${HOME:-}" ]; then
    dir=$HOME/.cache/gpulint/hook-clean
  else
    return 0
  fi
  # Never inside the repository: files written there would be untracked
  # files of the work tree, or would sit among git's own.
  # One git, and realpath only while the cache directory does not exist
  # yet (each is entered and left instead): this runs on every commit.
  local places=() resolved=()
  mapfile -t places < <(git rev-parse --show-toplevel --absolute-git-dir --git-common-dir 2>/dev/null ||
                        git rev-parse --absolute-git-dir --git-common-dir 2>/dev/null)
  for place in "$dir" ${places[@]+"${places[@]}"}; do
    canon_dir "$place"
    [ -n "$canon" ] || break
    resolved+=("$canon")
  done
  if [ "${#resolved[@]}" -ne $((${#places[@]} + 1)) ]; then
    mapfile -t resolved < <(realpath -m -- "$dir" ${places[@]+"${places[@]}"})
  fi
  places=(${resolved[@]+"${resolved[@]}"})
  real=${places[0]:-}
  [ -n "$real" ] || return 0
  for place in "${places[@]:1}"; do
    [ -n "$place" ] || continue
    if [ "$real" = "$place" ] || [[ $real == "$place"/* ]]; then
      say "gpulint: note: the hook's result cache would be $real, inside this repository;" \
          "  it never writes there, so this run does without it (set GPULINT_HOOK_CACHE_DIR" \
          "  to a directory outside the repository)."
      return 0
    fi
  done
  cache_dir=$real
}

# Index entries left out of the key: files gpulint never reads (it analyses
# .c/.h/.cu/.cuh, and nobody #includes these), so a commit that changes only
# documentation, scripts or the build on top of a checked snapshot is not
# analysed again. Anything else, .inc or .def included, stays in the key, and
# so does JSON: the baseline .gpulint.yaml names is a .json file. YAML goes
# too, but for the top level's files whose names start with a dot: the
# staged .gpulint.yaml is one (glob magic: `*` stops at a slash).
unread_by_gpulint=(
  ':(exclude)*.md' ':(exclude)*.rst' ':(exclude)*.bats' ':(exclude)*.sh'
  ':(exclude)*.py' ':(exclude,glob)[!.]*.yml' ':(exclude,glob)*/**/*.yml'
  ':(exclude,glob)[!.]*.yaml' ':(exclude,glob)*/**/*.yaml'
  ':(exclude)*.mk' ':(exclude)Makefile' ':(exclude)*/Makefile'
  ':(exclude)*.png' ':(exclude)*.jpg' ':(exclude)*.svg' ':(exclude)*.pdf'
)

# Sets result_key (the name of the snapshot's entry: the hash of its index
# listing, the staged configuration included), binary_hash (gpulint's
# SHA-256) and settings_hash (of gpulint's path and CUDA_PATH), the last
# two held in the entry, for the index named by GIT_INDEX_FILE (or the
# default one). One git and one sha256sum: the settings reach it through a
# here-string, which takes no process (each one costs the commit
# milliseconds: the listing and the settings used to go through a
# subshell, a second git and printf).
compute_result_key() {
  local hashes
  local re=$'^([0-9a-f]{64}) [^\n]*\n\\\\?([0-9a-f]{64}) [^\n]*\n\\\\?([0-9a-f]{64}) '
  result_key=
  binary_hash=
  settings_hash=
  hashes=$(set -o pipefail
           git ls-files --stage -z -- . "${unread_by_gpulint[@]}" |
             sha256sum - "$gpulint" /dev/fd/3 3<<<"${gpulint@Q} ${CUDA_PATH-}") || return 1
  [[ $hashes =~ $re ]] || return 1
  result_key=${BASH_REMATCH[1]}
  binary_hash=${BASH_REMATCH[2]}
  settings_hash=${BASH_REMATCH[3]}
}

# True when this snapshot was found clean before; sets lint_warnings.
known_clean() {
  result_key=
  choose_cache_dir
  [ -n "$cache_dir" ] || return 1
  compute_result_key || return 1
  [ -f "$cache_dir/clean-$result_key" ] || return 1
  # The entry: the warnings' count, then the SHA-256 of the gpulint that
  # found the snapshot clean and of its settings (read, not $(<file): no
  # subshell).
  local entry_binary entry_settings
  { read -r lint_warnings && read -r entry_binary && read -r entry_settings; } \
    <"$cache_dir/clean-$result_key" || return 1
  [ "$entry_binary" = "$binary_hash" ] && [ "$entry_settings" = "$settings_hash" ] || return 1
  [[ $lint_warnings =~ ^[0-9]+$ ]] || lint_warnings=0
  touch -- "$cache_dir/clean-$result_key" 2>/dev/null
  return 0
}

# After a clean run: remember it (best effort: a cache that cannot be
# written, or a full disk, only costs speed). Entries of ours unused for 30
# days are dropped: only files directly in our directory whose names are
# ours, so a directory shared with anything else loses nothing.
remember_clean() {
  local f
  choose_cache_dir
  [ -n "$cache_dir" ] || return 0
  [ -n "${result_key:-}" ] || compute_result_key || return 0
  [ -d "$cache_dir" ] || mkdir -p -- "$cache_dir" 2>/dev/null || return 0
  f=$cache_dir/clean-$result_key
  # Written in place, not renamed into place (a mv process): a reader of a
  # half-written entry finds no matching hashes in it, which is a miss.
  printf '%s\n' "$lint_warnings" "$binary_hash" "$settings_hash" 2>/dev/null >"$f" ||
    rm -f -- "$f" 2>/dev/null
  while IFS= read -r -d '' f; do
    [[ ${f##*/} =~ $entry_re ]] && rm -f -- "$f"
  done < <(find "$cache_dir" -mindepth 1 -maxdepth 1 -type f -name 'clean-*' -mtime +30 -print0 2>/dev/null)
  return 0
}

# False when gpulint named files it could not read (a partial clone without
# their content): such a run is not remembered as clean, so the snapshot is
# checked again once they are there.
fully_checked() {
  local note
  for note in ${lint_notes[@]+"${lint_notes[@]}"}; do
    [[ $note == *"not checked"* ]] && return 1
  done
  return 0
}

# "1 error", "2 errors".
count() { if [ "$1" -eq 1 ]; then echo "1 $2"; else echo "$1 ${2}s"; fi; }

# The findings of the last run_gpulint, at most max_listed of them.
max_listed=50
list_findings() {
  local indent=$1 f n=0
  if [ "${#lint_errors[@]}" -eq 0 ]; then
    # Exit 1 with nothing we could parse: show gpulint's own words.
    printf '%s\n' "$lint_output" | sed "s/^/$indent/" >&2
    return
  fi
  for f in "${lint_errors[@]}"; do
    n=$((n + 1))
    if [ "$n" -gt "$max_listed" ]; then
      say "$indent... and $(( ${#lint_errors[@]} - max_listed )) more (run the command below to see all)"
      break
    fi
    say "$indent$f"
  done
}

# Whether CI is known to run this same check on what is committed here:
# true in the repository the hooks come from, whose `make check` does
# (tests/hooks/ci-parity.bats). Elsewhere the hooks cannot know.
ci_runs_check() {
  local top
  top=$(git rev-parse --show-toplevel 2>/dev/null) || return 1
  [ "$top" -ef "$tool_root" ] && [ -f "$tool_root/tests/hooks/ci-parity.bats" ]
}
bypass_line() {
  if ci_runs_check; then
    say "  CI runs the same check (make check): --no-verify only delays the failure."
  else
    say "  --no-verify skips this check; say why in the commit message."
  fi
}

# Explains a gpulint run that ended neither clean (0) nor with findings (1):
# the check did not happen, so the commit or push is blocked.
explain_failure() {
  local what=$1 cause
  case $lint_rc in
    2) cause="usage or configuration error (exit 2): check .gpulint.yaml" ;;
    3) cause="internal error, or a file libclang could not parse (exit 3)" ;;
    125) cause="the hook could not start it" ;;
    *) cause="it exited $lint_rc" ;;
  esac
  say "gpulint: $what blocked: $gpulint could not check it: $cause."
  [ -n "$lint_output" ] && printf '%s\n' "$lint_output" | sed 's/^/  | /' >&2
  say "  Nothing was checked, so nothing passes. If gpulint itself is at fault, report it;"
  bypass_line
}

# What to do next, after the list of findings. $1: commit or push.
how_to_fix() {
  if [ "$1" = push ]; then
    say "" \
        "  Every pushed commit is checked: each one can be checked out, bisected or built." \
        "  Fix:      rewrite the commit itself, not with a fix on top: \`git rebase -i\`," \
        "            mark it \`edit\`, fix, \`git add\`; there \`gpulint --staged\` shows" \
        "            each finding with its source line; then \`git commit --amend\`."
  else
    say "" \
        "  Fix:      edit the code, \`git add\` it and commit again; \`gpulint --staged\`" \
        "            shows each finding with its source line, \`gpulint --explain RULE\` why."
  fi
  say "  Suppress: only with a reason, on the line of the finding or the line above:" \
      "            // gpulint: allow(RULE) -- why this is safe here"
  bypass_line
}

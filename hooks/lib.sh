# Shared by hooks/pre-commit and hooks/pre-push; sourced, never run.
# shellcheck shell=bash disable=SC2154  # hooks_dir: set by the hook that sources this
#
# The caller sets hooks_dir (the real directory of the hook scripts, symlinks
# resolved). Everything here reads; nothing writes to the repository being
# committed to or pushed from.

# This repository (the one holding hooks/), which may differ from the one the
# commit is made in: its build/ is the last place gpulint is looked for.
tool_root=$(cd -P -- "$hooks_dir/.." && pwd)

# Git commands gpulint runs must not refresh the index behind git's back:
# the hook promises the index is byte-for-byte what it was.
export GIT_OPTIONAL_LOCKS=0

# Print to the terminal git shows hook output on.
say() { printf '%s\n' "$@" >&2; }

# Sets `gpulint` to the analyzer to run: $GPULINT, else gpulint on PATH, else
# this repository's build/gpulint. Returns 1, after saying why and what to do,
# when none is usable: a missing analyzer blocks, it never passes silently.
find_gpulint() {
  local what=$1 candidate
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
        "  Point GPULINT at a built gpulint, or unset it to use PATH or $tool_root/build/gpulint."
    return 1
  fi
  if candidate=$(type -P gpulint); then
    gpulint=$candidate
    return 0
  fi
  candidate=$tool_root/build/gpulint
  if [ -f "$candidate" ] && [ -x "$candidate" ]; then
    gpulint=$candidate
    return 0
  fi
  say "gpulint: $what blocked: gpulint not found, so nothing was checked." \
      "  Looked for: \$GPULINT (unset), gpulint on PATH, $candidate" \
      "  Build it:   make -C '$tool_root' analyzer" \
      "  Or use one: export GPULINT=/path/to/gpulint"
  return 1
}

# Runs `gpulint --staged` on the index named by GIT_INDEX_FILE (or the default
# index) and sorts its output. Sets:
#   lint_rc       gpulint's exit status
#   lint_output   everything it printed (stdout and stderr)
#   lint_errors   array of "file:line: rule: message", one per error finding
#   lint_warnings number of warning findings
#   lint_notes    array of gpulint's "gpulint: note: ..." lines
run_gpulint() {
  local line
  local re='^(.+):([0-9]+):([0-9]+): (error|warning): (.*) \[([^][]+)\]$'
  lint_output=$("$gpulint" --staged --format text 2>&1)
  lint_rc=$?
  lint_errors=()
  lint_notes=()
  lint_warnings=0
  while IFS= read -r line; do
    if [[ $line == 'gpulint: note: '* ]]; then
      lint_notes+=("$line")
      continue
    fi
    [[ $line =~ $re ]] || continue
    if [ "${BASH_REMATCH[4]}" = error ]; then
      lint_errors+=("${BASH_REMATCH[1]}:${BASH_REMATCH[2]}: ${BASH_REMATCH[6]}: ${BASH_REMATCH[5]}")
    else
      lint_warnings=$((lint_warnings + 1))
    fi
  done <<<"$lint_output"
}

# Clean results are remembered under a key made of everything that decides
# them: the snapshot's entries (mode, blob id, path of every file), the
# gpulint binary (path, size, mtime, inode) and what else it reads: its
# configuration (the staged .gpulint.yaml, which `gpulint --staged` reads
# from the same index) and CUDA_PATH. A snapshot already found clean is not
# analysed again: an amend that only rewords, and every commit pushed after
# pre-commit checked it.
# Findings and failures are never remembered. GPULINT_HOOK_CACHE=0 turns
# this off; GPULINT_HOOK_CACHE_DIR moves it (default:
# $XDG_CACHE_HOME/gpulint/hook-clean, else ~/.cache/gpulint/hook-clean).
result_cache_dir() {
  [ "${GPULINT_HOOK_CACHE:-1}" != 0 ] || return 1
  if [ -n "${GPULINT_HOOK_CACHE_DIR:-}" ]; then
    printf '%s\n' "$GPULINT_HOOK_CACHE_DIR"
    return 0
  fi
  local base=${XDG_CACHE_HOME:-}
  if [ -z "$base" ]; then
    [ -n "${HOME:-}" ] || return 1
    base=$HOME/.cache
  fi
  printf '%s\n' "$base/gpulint/hook-clean"
}

# Index entries left out of the key: files gpulint never reads (it analyses
# .c/.h/.cu/.cuh, and nobody #includes these), so a commit that changes only
# documentation, scripts or the build on top of a checked snapshot is not
# analysed again. Anything else, .inc or .def included, stays in the key.
unread_by_gpulint=(
  ':(exclude)*.md' ':(exclude)*.rst' ':(exclude)*.bats' ':(exclude)*.sh'
  ':(exclude)*.py' ':(exclude)*.json' ':(exclude)*.yml' ':(exclude)*.yaml'
  ':(exclude)*.mk' ':(exclude)Makefile' ':(exclude)*/Makefile'
  ':(exclude)*.png' ':(exclude)*.jpg' ':(exclude)*.svg' ':(exclude)*.pdf'
)

# Sets result_key for the index named by GIT_INDEX_FILE (or the default one).
compute_result_key() {
  local listing binary config
  result_key=
  listing=$(set -o pipefail
            git ls-files --stage -z -- . "${unread_by_gpulint[@]}" | sha256sum) || return 1
  binary=$(stat -L -c '%s %Y %i' -- "$gpulint") || return 1
  config=$(git ls-files --stage -- ':(top,literal).gpulint.yaml') || return 1
  result_key=$(printf '%s\n' "$gpulint" "$binary" "$config" "${CUDA_PATH:-}" "$listing" |
    sha256sum) || return 1
  result_key=${result_key%% *}
}

# True when this snapshot was found clean before; sets lint_warnings.
known_clean() {
  local dir
  result_key=
  dir=$(result_cache_dir) || return 1
  compute_result_key || return 1
  [ -f "$dir/$result_key" ] || return 1
  lint_warnings=$(<"$dir/$result_key") || return 1
  [[ $lint_warnings =~ ^[0-9]+$ ]] || lint_warnings=0
  touch -- "$dir/$result_key" 2>/dev/null
  return 0
}

# After a clean run: remember it (best effort; a cache that cannot be
# written only costs speed). Entries unused for 30 days are dropped.
remember_clean() {
  local dir
  dir=$(result_cache_dir) || return 0
  [ -n "${result_key:-}" ] || compute_result_key || return 0
  mkdir -p -- "$dir" 2>/dev/null || return 0
  printf '%s\n' "$lint_warnings" >"$dir/.$result_key.$$" 2>/dev/null &&
    mv -f -- "$dir/.$result_key.$$" "$dir/$result_key" 2>/dev/null
  find "$dir" -type f -mtime +30 -delete 2>/dev/null
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

# Explains a gpulint run that ended neither clean (0) nor with findings (1):
# the check did not happen, so the commit or push is blocked.
explain_failure() {
  local what=$1 cause
  case $lint_rc in
    2) cause="usage or configuration error (exit 2): check .gpulint.yaml" ;;
    3) cause="internal error, or a file libclang could not parse (exit 3)" ;;
    *) cause="it exited $lint_rc" ;;
  esac
  say "gpulint: $what blocked: $gpulint could not check it: $cause."
  [ -n "$lint_output" ] && printf '%s\n' "$lint_output" | sed 's/^/  | /' >&2
  say "  Nothing was checked, so nothing passes. If gpulint itself is at fault," \
      "  report it; in an emergency --no-verify skips the hook, and CI runs the same check."
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
      "            // gpulint: allow(RULE) -- why this is safe here" \
      "  CI runs the same check (make check): --no-verify only delays the failure."
}

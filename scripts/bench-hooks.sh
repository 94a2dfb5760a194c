#!/usr/bin/env bash
# Hook latency (make bench-hooks, part of make bench): wall time of `git
# commit` through the pre-commit hook, as a developer sees it.
#   1. a one-file commit in a clone of this repository, warm (caches filled
#      by a first commit);
#   2. a generated repository of 2,000 files (half .c, half .cu): the first
#      commit with every cache empty (cold), then one-file commits (warm).
# Targets (docs/hooks.md records them and the figures): 1. <= 0.2 s;
# 2. <= 0.5 s warm, <= 60 s cold. Measured, never asserted: speed is not a
# test. Usage: scripts/bench-hooks.sh [GPULINT] (default: build/gpulint).
set -euo pipefail

repo=$(cd -P -- "$(dirname -- "$0")/.." && pwd)
gpulint=$(realpath -- "${1:-$repo/build/gpulint}")
[ -x "$gpulint" ] || { echo "bench-hooks: no gpulint at $gpulint (make analyzer)" >&2; exit 2; }
files=${BENCH_FILES:-2000}
rounds=${BENCH_ROUNDS:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpulint-bench.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# A private identity and caches: nothing of the user's is read or touched.
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1 XDG_CACHE_HOME=$tmp/cache GPULINT=$gpulint
mkdir -p "$HOME"
export GIT_CONFIG_GLOBAL=$HOME/.gitconfig
git config --global user.name bench
git config --global user.email bench@example.invalid
git config --global init.defaultBranch main

now() { date +%s.%N; }
# Commits what is staged; prints the wall time in seconds.
timed_commit() {
  local t0 t1
  t0=$(now)
  git commit -q -m "$1" >/dev/null 2>"$tmp/commit.err" ||
    { echo "bench-hooks: commit '$1' failed:" >&2; cat "$tmp/commit.err" >&2; exit 1; }
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
# "min-max s (median m s) over N commits" of the numbers on stdin.
summary() {
  sort -n | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.2f-%.2f s (median %.2f s) over %d commits\n", v[1], v[NR], m, NR }'
}
# One-file commits: append a comment to $1, commit, $rounds times.
warm_commits() {
  local i
  for ((i = 0; i < rounds; i++)); do
    printf '/* bench %d */\n' "$i" >>"$1"
    git add -- "$1"
    timed_commit "bench $i"
  done
}

echo "bench-hooks: gpulint $gpulint ($("$gpulint" --version | head -n 1)), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. This repository.
git clone -q "$repo" "$tmp/self"
cd "$tmp/self"
git config core.hooksPath "$tmp/self/.githooks"
printf '/* warm-up */\n' >>layer/tlob.c
git add layer/tlob.c
first=$(timed_commit warm-up)
echo "this repository, first commit (caches empty): ${first} s"
echo "this repository, one-file .c commit, warm: $(warm_commits layer/tlob.c | summary)"

# 2. A generated repository.
mkdir -p "$tmp/gen/src"
cd "$tmp/gen"
git init -q
git config core.hooksPath "$tmp/self/.githooks"
for ((i = 0; i < files / 2; i++)); do
  printf '#include "common.h"\n\nint scale_%d(int x)\n{\n    return x * COMMON_FACTOR + %d;\n}\n' \
    "$i" "$i" >"src/f$i.c"
  printf '#include "common.h"\n\n__global__ void kernel_%d(float *x, int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n)\n        x[i] = x[i] * COMMON_FACTOR + %d.0f;\n}\n' \
    "$i" "$i" >"src/k$i.cu"
done
printf '#define COMMON_FACTOR 3\n' >src/common.h
git add src
rm -rf "$XDG_CACHE_HOME"
cold=$(timed_commit "generated: $files files")
echo "generated $files files (half .c, half .cu), first commit, every cache empty: ${cold} s"
echo "generated $files files, one-file .c commit, warm: $(warm_commits src/f7.c | summary)"
echo "generated $files files, one-file .cu commit, warm: $(warm_commits src/k7.cu | summary)"
echo "bench-hooks: load at the end $(cut -d" " -f1-3 /proc/loadavg)"

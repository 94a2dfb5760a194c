#!/usr/bin/env bash
# make bench-analyzer: gpulint's speed on four corpora, beside clang -fsyntax-only
# with the same flags run two at a time, in the same run. Nothing comes from the
# network: the public corpora are read from bare git mirrors when present
# (BENCH_MIRRORS, default /work/.mirror) and extracted outside the repository
# (BENCH_DIR, default ${TMPDIR:-/tmp}/gpulint-bench); a missing one is skipped
# with a message. Prints one table: cold, warm (nothing changed), one file
# changed, clang, cold/clang, peak memory (-j2). docs/performance.md records it.
# BENCH_CLANG=0 leaves the clang column out (n/a): on a shared machine the
# largest corpus's clang run alone is minutes of CPU.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
gl=${GPULINT:-$repo/build/gpulint}
mirrors=${BENCH_MIRRORS:-/work/.mirror}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/gpulint-bench}
small_files=${BENCH_SMALL_FILES:-10000}
corpora=${BENCH_CORPORA:-repo small llmc samples}   # which rows to run
clang=${CLANG:-$(command -v clang-19 || command -v /usr/lib/llvm-19/bin/clang || true)}
cuda=${CUDA_PATH:-/usr/local/cuda}
[ -x "$gl" ] || { echo "bench-analyzer: $gl not built (make analyzer)" >&2; exit 2; }
# Each row runs gpulint from inside its corpus: a relative GPULINT would name
# nothing there, and the row would be left out without a word.
gl=$(realpath "$gl")
mkdir -p "$work"
export XDG_CACHE_HOME=$work/cache

# seconds and peak KB of a command: "S KB CPU" (CPU: user + system
# seconds, which say more than wall time on a shared machine); its stderr
# goes to $stderr_to (default: nowhere)
measure() {
  /usr/bin/time -o "$work/time.txt" -f '%e %M %U %S' "$@" >/dev/null 2>"${stderr_to:-/dev/null}" || true
  tail -1 "$work/time.txt" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'
}
# "S s (C s CPU)" of a measure line
shown() { set -- $1; printf '%s s (%s s CPU)' "$1" "$3"; }

# clang -fsyntax-only over the translation units gpulint's cold run parsed
# (UNITS: the sources among its GPULINT_TRACE parses, so the same files: none
# the config excludes, the .cpp files too), two at a time, each with the
# flags gpulint's parse of it has (analyzer/extract/extract.c: base_args by
# language, then build_args: the file's directory, then FLAGS: the
# repository root when there is one, the config's include dirs and
# defines). Not in it: headers gpulint parsed on their own (no unit reached
# them) and gpulint's PCH builds. Prints "W s (C s CPU, F fatal)": F files
# where clang stopped at a fatal error (an #include not found, mostly),
# after which it skips work that gpulint's parse, which keeps going, does
# (docs/performance.md, "Branch s7-speed").
clang_time() {
  local dir=$1 flags=$2 units=$3
  [ -n "$clang" ] && [ "${BENCH_CLANG:-1}" != 0 ] || { printf 'n/a'; return; }
  local shim=$XDG_CACHE_HOME/gpulint/shim fatal=$work/clang-fatal.txt
  : >"$fatal"
  (cd "$dir" && grep -E '\.(c|cu|cpp|cc|cxx)$' "$units" | tr '\n' '\0' |
    /usr/bin/time -o "$work/clang-time.txt" -f '%e %U %S' xargs -0 -P2 -n1 sh -c '
      clang=$1 cuda=$2 shim=$3 flags=$4 fatal=$5 f=$6
      case "$f" in
        *.cu) lang="-x cuda --cuda-host-only --cuda-path=$cuda -nocudalib -Wno-unknown-cuda-version
                    -idirafter $shim -include $shim/gpulint_nvcc_host.h -isystem $cuda/include/cccl" ;;
        *.c) lang="-x c -isystem $cuda/include" ;;
        *) lang="-x c++ -isystem $cuda/include" ;;
      esac
      # grep -c reads all of it: clang is not cut short by a closed pipe.
      n=$("$clang" -fsyntax-only $lang -w -ferror-limit=0 -I"$(dirname "$f")" $flags "$f" \
            2>&1 >/dev/null | grep -c "fatal error:")
      [ "$n" = 0 ] || echo "$f" >>"$fatal"' sh "$clang" "$cuda" "$shim" "$flags" "$fatal" \
    >/dev/null 2>&1 || true)
  awk '{ printf "%.2f s (%.2f s CPU, ", $1, $2 + $3 }' "$work/clang-time.txt"
  printf '%s fatal)' "$(wc -l <"$fatal")"
}

# -I and -D flags of a config's include-dirs and defines (block lists, as
# this repository's .gpulint.yaml writes them)
config_flags() {
  awk '/^include-dirs:/ { flag = "-I"; next } /^defines:/ { flag = "-D"; next }
       /^[^ #]/ { flag = "" }
       flag != "" && /^ *- / { sub(/^ *- */, ""); gsub(/^["\047]|["\047]$/, ""); printf "%s%s ", flag, $0 }' "$1"
}

# row NAME DIR FILE-TO-CHANGE "CLANG-FLAGS" GPULINT-ARGS...: one table row
row() {
  local name=$1 dir=$2 one=$3 clang_flags=$4; shift 4
  local args=("$@")
  # Cold is an empty cache, the language PCHs included: they used to be
  # kept from an earlier row or run, so a cold figure depended on whether
  # the benchmark had run before in that directory (1.0-1.5 s of CPU here).
  rm -rf "$XDG_CACHE_HOME/gpulint"
  local cold warm changed
  cold=$(cd "$dir" && GPULINT_TRACE=1 stderr_to=$work/cold-trace.txt measure "$gl" -j2 -q "${args[@]}")
  grep -o 'trace: parse [^ ]*' "$work/cold-trace.txt" | sed 's/.* parse //' | sort -u >"$work/units.txt"
  warm=$(cd "$dir" && measure "$gl" -j2 -q "${args[@]}")
  printf '\n/* changed by bench-analyzer */\n' >>"$dir/$one"
  changed=$(cd "$dir" && measure "$gl" -j2 -q "${args[@]}")
  local c
  c=$(clang_time "$dir" "$clang_flags" "$work/units.txt")
  local ratio=n/a
  set -- $cold
  local cold_s=$1 peak_kb=$2
  [ "$c" != n/a ] && ratio="$(echo "scale=2; $cold_s / ${c%% s *}" | bc)x"
  printf '| %s | %s | %s | %s | %s | %s | %s MB | %s |\n' "$name" "$(shown "$cold")" "$(shown "$warm")" \
    "$(shown "$changed")" "$c" "$ratio" "$(( peak_kb / 1024 ))" "$(cut -d' ' -f1 /proc/loadavg)"
}

extract() {   # mirror-name target [paths...]
  local git_dir=$mirrors/$1/repo target=$2; shift 2
  [ -d "$git_dir" ] || return 1
  rm -rf "$target" && mkdir -p "$target"
  # Source files only: a mirror may lack large blobs (documents) it never needed.
  # xargs may split a long list over several archives: tar -i reads on past
  # each one's end (cuda-samples' 747 files fit in one today).
  git --git-dir="$git_dir" ls-tree -r --name-only HEAD "$@" |
    grep -E '\.(c|h|cu|cuh|cpp|hpp|cc|inl)$' |
    xargs git --git-dir="$git_dir" archive HEAD 2>/dev/null | tar -x -i -C "$target" || true
  [ -n "$(ls -A "$target")" ]
}

echo "gpulint $("$gl" --version | head -n 1 | cut -d' ' -f2), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), clang: ${clang:-not installed (apt-get install clang-19)}"
echo
echo '| corpus | cold | warm | one file changed | clang -fsyntax-only (-P2) | cold / clang | peak memory | load after |'
echo '|---|---|---|---|---|---|---|---|'
want() { [[ " $corpora " == *" $1 "* ]]; }
if want repo; then
tree=$work/this-repo
rm -rf "$tree" && mkdir -p "$tree" && git -C "$repo" archive HEAD | tar -x -C "$tree"
git -C "$tree" init -q && git -C "$tree" add -A && git -C "$tree" -c user.name=b -c user.email=b@b commit -qm bench
row "this repository" "$tree" layer/tlob.c "-I$tree $(config_flags "$tree/.gpulint.yaml")"
fi
if want small; then
  gen=$work/small-$small_files
  [ -d "$gen" ] || "$repo/tests/bench/gen-small-files.sh" "$small_files" "$gen"
  row "$small_files generated small .c/.h files" "$gen" d0/mod_0.c "" .
fi
if ! want llmc; then
  :
elif extract karpathy+llm.c "$work/llmc" dev/cuda; then
  row "llm.c dev/cuda" "$work/llmc/dev/cuda" adamw.cu "" .
else
  echo "| llm.c dev/cuda | SKIP: no mirror at $mirrors/karpathy+llm.c/repo (nothing is fetched; BENCH_MIRRORS names the mirrors' directory) ||||||||"
fi
if ! want samples; then
  :
elif extract NVIDIA+cuda-samples "$work/samples" Samples Common; then
  printf 'include-dirs: ["%s"]\n' "$work/samples/Common" >"$work/samples.yaml"
  one=$(cd "$work/samples" && find Samples -name '*.cu' | sort | sed -n 1p)
  row "cuda-samples Samples/" "$work/samples" "$one" "-I$work/samples/Common" \
    --config "$work/samples.yaml" Samples
else
  echo "| cuda-samples Samples/ | SKIP: no mirror at $mirrors/NVIDIA+cuda-samples/repo (nothing is fetched; BENCH_MIRRORS names the mirrors' directory) ||||||||"
fi

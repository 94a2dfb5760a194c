#!/usr/bin/env bash
# gen-small-files.sh N DIR: N small C files (half .c, half .h) in DIR, each
# .c including its own header and its neighbour's, in directories of 100, the
# shape of a large plain-C code base. The same N gives the same files.
set -euo pipefail
n=${1:?usage: gen-small-files.sh N DIR}
dir=${2:?usage: gen-small-files.sh N DIR}
pairs=$(( n / 2 ))
mkdir -p "$dir"
for (( i = 0; i < pairs; i++ )); do
  sub=$dir/d$(( i / 100 ))
  [ -d "$sub" ] || mkdir -p "$sub"
  prev=$(( i > 0 ? i - 1 : 0 ))
  printf '#ifndef MOD_%d_H\n#define MOD_%d_H\n#include <stddef.h>\n/** Sum of the first n values of s.\n * @param s the state\n * @param n how many */\nint mod_%d_sum(const int *s, size_t n);\ntypedef struct { int v[4]; } mod_%d_state;\n#endif\n' \
    "$i" "$i" "$i" "$i" >"$sub/mod_$i.h"
  printf '#include "mod_%d.h"\n#include "../d%d/mod_%d.h"\n\nint mod_%d_sum(const int *s, size_t n)\n{\n    int total = 0;\n    for (size_t k = 0; k < n; k++)\n        total += s[k] * %d;\n    return total + mod_%d_sum(s, 0);\n}\n' \
    "$i" "$(( prev / 100 ))" "$prev" "$i" "$i" "$prev" >"$sub/mod_$i.c"
done

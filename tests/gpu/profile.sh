#!/usr/bin/env bash
# Per-kernel device times of one `tlob layer` forward+backward at a reference
# size, through Nsight Compute (clocks left alone). Usage:
#   tests/gpu/profile.sh B T D [tf32|fp32]    (run after `make layer`)
set -eu
B=$1 T=$2 D=$3 MATH=${4:-tf32}
out=${OUT:-build/device-logs}
w=$(mktemp -d)
build/tlob init --dim "$D" --out "$w/p"
python3 -c "import numpy as np; r=np.random.default_rng(0); np.save('$w/x.npy', r.uniform(-1,1,($B,$T,$D)).astype(np.float32)); np.save('$w/dy.npy', r.uniform(-1,1,($B,$T,$D)).astype(np.float32))"
ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  build/tlob layer --dim "$D" --params "$w/p" --x "$w/x.npy" --dy "$w/dy.npy" --out "$w/o" --math "$MATH" \
  >"$out/ncu_${B}_${T}_${D}_${MATH}.csv" 2>"$out/ncu_err.txt" || { tail "$out/ncu_err.txt"; exit 1; }
# "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
python3 - "$out/ncu_${B}_${T}_${D}_${MATH}.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 14 and r[0].isdigit()]
total = 0.0
for r in rows:
    v = float(r[14].replace(',', ''))
    unit = r[13]
    us = v * {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1.0, 'usecond': 1.0, 'ms': 1e3, 'msecond': 1e3}[unit]
    total += us
    print(f"{us:9.1f} us  grid {r[8]:>16} block {r[7]:>12}  {r[4][:90]}")
print(f"{total:9.1f} us  total over {len(rows)} kernels")
PY

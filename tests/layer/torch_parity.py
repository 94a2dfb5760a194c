#!/usr/bin/env python3
"""Device-only check (not part of `make check`): an independent PyTorch
TransformerLayer, written from docs/layer.md / TLOB.md, against `build/tlob`.

1. Parity: `tlob init` writes parameters; this script loads them into the
   PyTorch module by their published names, runs the same x and dy in float64,
   and compares y, att, dx and every gradient with what `tlob layer` wrote
   (relative L2; FP32 mode <= 1e-5, TF32 mode <= 2e-3).
2. Speed: PyTorch (float32, TF32 on and off) forward and fwd+bwd, eager and
   CUDA-graphed, at TLOB's reference sizes and B=1 (one inference), next to
   `tlob bench --json` (`make bench` runs both on the same device).

usage: tests/layer/torch_parity.py [--tlob build/tlob] [--bench-json FILE] [--out FILE]
Exit 1 if any parity check fails.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ComputeQKV(nn.Module):
    def __init__(self, d, nh):
        super().__init__()
        self.q = nn.Linear(d, d * nh)
        self.k = nn.Linear(d, d * nh)
        self.v = nn.Linear(d, d * nh)

    def forward(self, x):
        return self.q(x), self.k(x), self.v(x)


class MLP(nn.Module):
    def __init__(self, d, hidden, dout):
        super().__init__()
        self.layer_norm = nn.LayerNorm(dout)
        self.fc = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, dout)

    def forward(self, x):
        res = x
        x = self.fc2(F.gelu(self.fc(x)))
        if x.shape[-1] == res.shape[-1]:
            x = x + res
        return F.gelu(self.layer_norm(x))


class TransformerLayer(nn.Module):
    """TransformerLayer(D, nh, Dout) as TLOB.md states it."""

    def __init__(self, d, nh, dout):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.qkv = ComputeQKV(d, nh)
        self.attention = nn.MultiheadAttention(d * nh, nh, batch_first=True)
        self.mlp = MLP(d, 4 * d, dout)
        self.w0 = nn.Linear(d * nh, d)

    def forward(self, x):
        res = x
        q, k, v = self.qkv(x)
        x, att = self.attention(q, k, v, need_weights=True, average_attn_weights=False)
        x = self.norm(self.w0(x) + res)
        x = self.mlp(x)
        if x.shape[-1] == res.shape[-1]:
            x = x + res
        return x, att


def rel_l2(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    den = np.linalg.norm(want)
    num = np.linalg.norm(got - want)
    return float(num / den) if den > 0 else float(num)


def parity(tlob, b, t, d, nh, dout, seed, workdir):
    pdir = os.path.join(workdir, f"p_{b}_{t}_{d}_{nh}_{dout}")
    subprocess.run([tlob, "init", "--dim", str(d), "--heads", str(nh), "--out-dim", str(dout),
                    "--seed", str(seed), "--out", pdir], check=True)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (b, t, d)).astype(np.float32)
    dy = rng.uniform(-1, 1, (b, t, dout)).astype(np.float32)
    np.save(os.path.join(workdir, "x.npy"), x)
    np.save(os.path.join(workdir, "dy.npy"), dy)

    model = TransformerLayer(d, nh, dout).double()
    state = {name: torch.from_numpy(np.load(os.path.join(pdir, name + ".npy"))).double()
             for name in model.state_dict()}
    model.load_state_dict(state, strict=True)
    xt = torch.from_numpy(x).double().requires_grad_(True)
    y, att = model(xt)
    y.backward(torch.from_numpy(dy).double())
    ref = {"y": y.detach().numpy(), "att": att.detach().numpy(), "dx": xt.grad.numpy()}
    ref_grads = {n: p.grad.numpy() for n, p in model.named_parameters()}

    rows = []
    for math_mode, tol in (("fp32", 1e-5), ("tf32", 2e-3)):
        out = os.path.join(workdir, f"o_{math_mode}")
        subprocess.run([tlob, "layer", "--dim", str(d), "--heads", str(nh), "--out-dim", str(dout),
                        "--params", pdir, "--x", os.path.join(workdir, "x.npy"),
                        "--dy", os.path.join(workdir, "dy.npy"), "--out", out,
                        "--math", math_mode], check=True)
        errs = {k: rel_l2(np.load(os.path.join(out, k + ".npy")), v) for k, v in ref.items()}
        grad_errs = {n: rel_l2(np.load(os.path.join(out, "grad", n + ".npy")), g)
                     for n, g in ref_grads.items()}
        # d(qkv.k.bias) is exactly zero (softmax ignores a constant shift of a
        # score row): measure it against the scale of d(qkv.k.weight).
        kb = np.load(os.path.join(out, "grad", "qkv.k.bias.npy")).astype(np.float64)
        grad_errs["qkv.k.bias"] = float(np.linalg.norm(kb - ref_grads["qkv.k.bias"]) /
                                        max(np.linalg.norm(ref_grads["qkv.k.bias"]),
                                            np.linalg.norm(ref_grads["qkv.k.weight"])))
        worst = max(grad_errs, key=grad_errs.get)
        ok = all(e <= tol for e in errs.values()) and all(e <= tol for e in grad_errs.values())
        rows.append({"B": b, "T": t, "D": d, "nh": nh, "Dout": dout, "math": math_mode,
                     "tol": tol, "ok": ok, **errs, "worst_grad": grad_errs[worst],
                     "worst_grad_name": worst, "grads": grad_errs})
    return rows


def time_torch(b, t, d, dout, tf32, iters=100):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    dev = torch.device("cuda")
    model = TransformerLayer(d, 1, dout).to(dev)
    x = torch.randn(b, t, d, device=dev, requires_grad=True)
    dy = torch.randn(b, t, dout, device=dev)

    def median_us(fn):
        for _ in range(10):
            fn()
        times = []
        for _ in range(iters):
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            fn()
            e1.record()
            e1.synchronize()
            times.append(e0.elapsed_time(e1) * 1e3)
        return float(np.median(times))

    def fwd():
        with torch.no_grad():
            model(x)

    def fwdbwd():
        y, _ = model(x)
        y.backward(dy)

    fwd_us = median_us(fwd)
    fwdbwd_us = median_us(fwdbwd)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fwdbwd()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fwdbwd()
    graph_us = median_us(g.replay)
    with torch.cuda.stream(s):
        for _ in range(3):
            fwd()
    torch.cuda.current_stream().wait_stream(s)
    gf = torch.cuda.CUDAGraph()
    with torch.cuda.graph(gf):
        fwd()
    fwd_graph_us = median_us(gf.replay)
    return {"fwd_us": fwd_us, "fwd_bwd_us": fwdbwd_us, "fwd_graph_us": fwd_graph_us,
            "fwd_bwd_graph_us": graph_us}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlob", default="build/tlob")
    ap.add_argument("--bench-json", help="output of `tlob bench --json` to compare with")
    ap.add_argument("--out", help="write all results as JSON here")
    args = ap.parse_args()

    torch.manual_seed(0)
    results = {"parity": [], "speed": []}
    with tempfile.TemporaryDirectory() as work:
        for i, shape in enumerate([(3, 7, 6, 2, 10), (2, 16, 8, 1, 8), (1, 9, 5, 3, 5),
                                   (4, 128, 40, 1, 40), (2, 40, 128, 1, 128)]):
            results["parity"].extend(parity(args.tlob, *shape, seed=100 + i, workdir=work))
    print("parity: tlob layer vs PyTorch float64 (relative L2)")
    print(f"{'B':>3} {'T':>4} {'D':>4} {'nh':>3} {'Dout':>4} {'math':>5} | {'y':>9} {'att':>9} "
          f"{'dx':>9} {'worst grad':>10} {'(tensor)':<28} ok")
    for r in results["parity"]:
        print(f"{r['B']:>3} {r['T']:>4} {r['D']:>4} {r['nh']:>3} {r['Dout']:>4} {r['math']:>5} | "
              f"{r['y']:9.2e} {r['att']:9.2e} {r['dx']:9.2e} {r['worst_grad']:10.2e} "
              f"{r['worst_grad_name']:<28} {'ok' if r['ok'] else 'FAIL'}")

    bench = {}
    if args.bench_json:
        with open(args.bench_json) as f:
            for r in json.load(f)["layer"]:
                bench[(r["B"], r["T"], r["D"], r["math"])] = r
    print("\nspeed at TLOB's reference sizes and B=1, nh=1, median us (PyTorch float32 vs tlob; "
          "'graph': CUDA-graph replay)")
    print(f"{'B':>4} {'T':>4} {'D':>4} {'math':>5} | {'torch fwd':>9} {'f+b':>7} {'fwd grph':>8} "
          f"{'f+b grph':>8} | {'tlob fwd':>8} {'f+b':>7} {'fwd grph':>8} {'f+b grph':>8} | "
          f"{'fwd graph':>9} {'f+b graph':>9}")
    for b, t, d in ((128, 128, 40), (128, 40, 128), (32, 128, 144), (1, 128, 40)):
        for tf32 in (True, False):
            m = "tf32" if tf32 else "fp32"
            r = {"B": b, "T": t, "D": d, "math": m, "torch": time_torch(b, t, d, d, tf32)}
            tb = bench.get((b, t, d, m))
            if tb:
                r["tlob"] = tb
            results["speed"].append(r)
            tt = r["torch"]
            line = (f"{b:>4} {t:>4} {d:>4} {m:>5} | {tt['fwd_us']:9.1f} {tt['fwd_bwd_us']:7.1f} "
                    f"{tt['fwd_graph_us']:8.1f} {tt['fwd_bwd_graph_us']:8.1f} | ")
            if tb:
                line += (f"{tb['fwd_us']:8.1f} {tb['fwd_bwd_us']:7.1f} {tb['fwd_graph_us']:8.1f} "
                         f"{tb['fwd_bwd_graph_us']:8.1f} | "
                         f"{tt['fwd_graph_us'] / tb['fwd_graph_us']:8.1f}x "
                         f"{tt['fwd_bwd_graph_us'] / tb['fwd_bwd_graph_us']:8.1f}x")
            print(line)
    print(f"\ntorch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    failed = [r for r in results["parity"] if not r["ok"]]
    print(f"{len(results['parity']) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

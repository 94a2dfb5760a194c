#!/usr/bin/env python3
"""Device-only (not part of `make check`): tlob.TransformerLayer (python/tlob,
our CUDA layer through libtlob.so) against the published PyTorch
TransformerLayer (the module of tests/layer/torch_parity.py, written from
TLOB.md), loaded with the same state_dict.

1. parity: y, att, dx and every parameter gradient against the published
   layer in float64 (relative L2; FP32 <= 1e-5, TF32 <= 2e-3), on fresh
   random inputs; also on a side stream, with two forwards before one
   backward, and through the numpy-level tlob.Layer;
2. safetensors: a file saved by the `safetensors` package read by the
   library, and one the library wrote loaded by the package;
3. training: 100 Adam steps of a small regression task, both layers from the
   same state_dict; the loss curves compared step by step;
4. speed: one training step (forward, MSE, backward, Adam) at TLOB's
   reference sizes, median of CUDA-event intervals.

usage: PYTHONPATH=python tests/gpu/torch_module.py [--out FILE.json]
Exit 1 if a parity or training check fails."""
import argparse
import json
import os
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "layer"))
from torch_parity import TransformerLayer as Published  # noqa: E402

import tlob  # noqa: E402

failures = []


def rel(got, want):
    got, want = got.detach().double().cpu(), want.detach().double().cpu()
    den = want.norm().item()
    return (got - want).norm().item() / den if den > 0 else (got - want).norm().item()


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def reference(sd, x, dy, d, nh, o):
    ref = Published(d, nh, o).double()
    ref.load_state_dict({k: v.double().cpu() for k, v in sd.items()})
    xr = x.detach().double().cpu().requires_grad_(True)
    y, att = ref(xr)
    y.backward(dy.double().cpu())
    return y, att, xr.grad, {n: p.grad for n, p in ref.named_parameters()}


def grad_errors(got, want):
    errs = {}
    for n, g in want.items():
        if n == "qkv.k.bias":  # exactly zero: against the k weight's scale
            errs[n] = (got[n].double().cpu() - g).norm().item() / max(
                g.norm().item(), want["qkv.k.weight"].norm().item())
        else:
            errs[n] = rel(got[n], g)
    return errs


def parity(b, t, d, nh, o, math, rows):
    tol = 1e-5 if math == "fp32" else 2e-3
    pub = Published(d, nh, o)
    sd = pub.state_dict()
    layer = tlob.TransformerLayer(d, nh, o, math=math).cuda()
    layer.load_state_dict(sd, strict=True)
    x = torch.rand(b, t, d, device="cuda") * 2 - 1
    dy = torch.rand(b, t, o, device="cuda") * 2 - 1
    ry, ratt, rdx, rg = reference(sd, x, dy, d, nh, o)
    xg = x.clone().requires_grad_(True)
    y, att = layer(xg)
    y.backward(dy)
    got = {n: p.grad for n, p in layer.named_parameters()}
    ge = grad_errors(got, rg)
    worst = max(ge, key=ge.get)
    e = {"y": rel(y, ry), "att": rel(att, ratt), "dx": rel(xg.grad, rdx), "grad": ge[worst]}
    ok = all(v <= tol for v in e.values())
    check(ok, f"parity B={b} T={t} D={d} nh={nh} Dout={o} {math}: y {e['y']:.2e} att "
              f"{e['att']:.2e} dx {e['dx']:.2e} worst grad {e['grad']:.2e} ({worst}), tol {tol:g}")
    rows.append({"B": b, "T": t, "D": d, "nh": nh, "Dout": o, "math": math, **e,
                 "worst_grad": worst})

    # the same on a side stream (torch's current stream is what the layer uses)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y2, _ = layer(x)
    torch.cuda.current_stream().wait_stream(s)
    check(torch.equal(y2, y.detach()), f"  same y on a side stream ({math})")

    # two forwards, then one backward of both: the first is recomputed
    layer.zero_grad()
    x1, x2 = x.clone().requires_grad_(True), (x.flip(0)).clone().requires_grad_(True)
    ya, _ = layer(x1)
    yb, _ = layer(x2)
    ((ya * dy).sum() + (yb * dy).sum()).backward()
    _, _, rdx2, rg2 = reference(sd, x.flip(0), dy, d, nh, o)
    both = {n: p.grad for n, p in layer.named_parameters()}
    ge2 = grad_errors(both, {n: rg[n] + rg2[n] for n in rg})
    e2 = max(max(ge2.values()), rel(x1.grad, rdx), rel(x2.grad, rdx2))
    check(e2 <= tol, f"  two forwards then one backward: worst {e2:.2e} ({math})")

    if math == "fp32":  # numpy-level layer, host arrays
        host = tlob.Layer(d, nh, o, t, b, math=math, params={k: v.numpy() for k, v in sd.items()})
        hy, hatt = host.forward(x.cpu().numpy())
        hdx = host.backward(dy.cpu().numpy())
        eh = max(rel(torch.from_numpy(hy), ry), rel(torch.from_numpy(hatt), ratt),
                 rel(torch.from_numpy(hdx), rdx),
                 max(grad_errors({k: torch.from_numpy(v) for k, v in host.grads().items()},
                                 rg).values()))
        check(eh <= tol, f"  numpy tlob.Layer: worst {eh:.2e}")
        host.close()


def safetensors_check(out):
    try:
        from safetensors.torch import load_file, save_file
    except ImportError:
        print("note: no safetensors package here; skipped the cross-check")
        return
    d, nh, o = 40, 2, 48
    sd = {k: v.contiguous() for k, v in Published(d, nh, o).state_dict().items()}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "published.safetensors")
        save_file(sd, path)
        try:
            got = tlob.params.read_safetensors(path, d, nh, o)
        except tlob.TlobError as e:
            if e.name.startswith("TLOB_ERR_UNSUPPORTED"):
                print(f"note: {e}")
                out["safetensors"] = "library built without jansson"
                return
            raise
        same = all(np.array_equal(got[k], v.numpy()) for k, v in sd.items())
        check(same, "safetensors saved by the safetensors package, read by libtlob")
        path2 = os.path.join(tmp, "ours.safetensors")
        tlob.params.write_safetensors(path2, {k: v.numpy() for k, v in sd.items()}, d, nh, o)
        back = load_file(path2)
        check(set(back) == set(sd) and all(torch.equal(back[k], sd[k]) for k in sd),
              "safetensors written by libtlob, loaded by the safetensors package")
        layer = tlob.TransformerLayer(d, nh, o).cuda()
        layer.load_state_dict(back)
        out["safetensors"] = "ok"


def train(math, steps=100, b=32, t=32, d=40, o=40):
    torch.manual_seed(7)
    pub = Published(d, 1, o).cuda()
    teacher = Published(d, 1, o).cuda()
    x = torch.rand(b, t, d, device="cuda") * 2 - 1
    with torch.no_grad():
        target = teacher(x)[0]
    ours = tlob.TransformerLayer(d, 1, o, math=math).cuda()
    ours.load_state_dict(pub.state_dict())
    curves = {}
    for name, m in (("published", pub), ("tlob", ours)):
        opt = torch.optim.Adam(m.parameters(), lr=1e-3)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(m(x)[0], target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        curves[name] = losses
    p, q = np.array(curves["published"]), np.array(curves["tlob"])
    dev = float(np.max(np.abs(p - q) / np.abs(p)))
    tol = 1e-3 if math == "fp32" else 2e-2
    check(dev <= tol and q[-1] < 0.5 * q[0],
          f"100 Adam steps, tlob {math} vs published fp32: loss {p[0]:.4f} -> {p[-1]:.4f} "
          f"(published), {q[0]:.4f} -> {q[-1]:.4f} (tlob); max relative difference per step "
          f"{dev:.2e} (tolerance {tol:g})")
    return {"math": math, "published": curves["published"], "tlob": curves["tlob"],
            "max_rel_diff": dev}


def step_time(m, x, target, iters=50, with_adam=True):
    opt = torch.optim.Adam(m.parameters(), lr=1e-4)

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(m(x)[0], target).backward()
        if with_adam:
            opt.step()

    for _ in range(10):
        step()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return float(np.median(times))


def speed(rows):
    print("\ntraining step (forward, MSE, backward, Adam), median us over 50 steps")
    print(f"{'B':>4} {'T':>4} {'D':>4} {'math':>5} | {'published':>10} {'tlob':>10} | speedup"
          f" | without Adam: {'published':>10} {'tlob':>10}")
    for b, t, d in ((128, 128, 40), (128, 40, 128), (32, 128, 144)):
        for math in ("tf32", "fp32"):
            torch.backends.cuda.matmul.allow_tf32 = math == "tf32"
            pub = Published(d, 1, d).cuda()
            ours = tlob.TransformerLayer(d, 1, d, math=math).cuda()
            ours.load_state_dict(pub.state_dict())
            x = torch.rand(b, t, d, device="cuda")
            target = torch.rand(b, t, d, device="cuda")
            tp, tt = step_time(pub, x, target), step_time(ours, x, target)
            np_, nt = (step_time(pub, x, target, with_adam=False),
                       step_time(ours, x, target, with_adam=False))
            print(f"{b:>4} {t:>4} {d:>4} {math:>5} | {tp:>10.1f} {tt:>10.1f} | {tp / tt:.2f}x"
                  f" |                {np_:>10.1f} {nt:>10.1f}")
            rows.append({"B": b, "T": t, "D": d, "math": math, "published_us": tp,
                         "tlob_us": tt, "published_no_adam_us": np_, "tlob_no_adam_us": nt})
    torch.backends.cuda.matmul.allow_tf32 = False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "parity": [],
           "train": [], "speed": []}
    for shape in ((4, 128, 40, 1, 40), (3, 7, 6, 2, 10), (2, 40, 128, 1, 128), (3, 16, 48, 3, 32)):
        for math in ("fp32", "tf32"):
            parity(*shape, math, out["parity"])
    safetensors_check(out)
    for math in ("fp32", "tf32"):
        out["train"].append(train(math))
    speed(out["speed"])
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    print(f"\n{len(failures)} failed" + (": " + "; ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

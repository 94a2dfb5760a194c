"""tlob.TransformerLayer: a torch.nn.Module with the published constructor
(hidden_dim, num_heads, final_dim), the published state_dict names and
forward (x -> (y, att)), whose forward and backward are our CUDA code run on
torch's device tensors in place, on torch's current stream.

The parameters are views of one flat float32 device buffer in the library's
layout, so the layer reads them without copies and the optimiser updates
them in place; the backward writes every gradient into one fresh flat buffer
whose views become the parameters' .grad. A library layer (cuBLAS handle,
activations) is made for the (T, batch) of the first call and remade when T
changes or a larger batch comes."""
import ctypes

import torch
from torch import nn

from . import params as _params
from ._lib import MATH, Config, check, lib


class _Core:
    """One library layer for a given T and maximum batch."""

    def __init__(self, dim, heads, out_dim, seq_len, max_batch, math):
        self.seq_len, self.max_batch = seq_len, max_batch
        self.handle = ctypes.c_void_p()
        cfg = Config(dim, heads, out_dim, seq_len, max_batch, MATH[math])
        check(lib.tlob_create(ctypes.byref(cfg), ctypes.byref(self.handle)))
        self.token = 0  # which forward the activations inside belong to

    def __del__(self):
        if self.handle:
            lib.tlob_destroy(self.handle)

    def bind(self, flat, grads, device):
        stream = torch.cuda.current_stream(device).cuda_stream
        check(lib.tlob_set_stream(self.handle, stream))
        check(lib.tlob_set_buffers(self.handle, flat.data_ptr(), grads.data_ptr()))

    def forward(self, flat, x, y, att):
        self.bind(flat, flat, x.device)  # forward reads no gradients
        check(lib.tlob_forward(self.handle, x.data_ptr(), x.shape[0], y.data_ptr(),
                               att.data_ptr()))
        self.token += 1
        return self.token


class _TlobFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, module, *parameters):
        core, flat = module._core_for(x), module._flat
        B, T, _ = x.shape
        y = x.new_empty((B, T, module.final_dim))
        att = x.new_empty((B, module.num_heads, T, T))
        with torch.cuda.device(x.device):
            token = core.forward(flat, x, y, att)
        ctx.save_for_backward(x)
        ctx.module, ctx.core, ctx.token = module, core, token
        ctx.mark_non_differentiable(att)
        return y, att

    @staticmethod
    def backward(ctx, dy, _datt):
        (x,) = ctx.saved_tensors
        module, core = ctx.module, ctx.core
        flat = module._flat
        dy = dy.contiguous()
        with torch.cuda.device(x.device):
            if core.token != ctx.token:
                # Another forward ran on this layer since: recompute this one's
                # activations (the parameters are those of now, as autograd
                # expects when nothing updated them in between).
                scratch_y = x.new_empty((x.shape[0], x.shape[1], module.final_dim))
                scratch_att = x.new_empty((x.shape[0], module.num_heads, x.shape[1], x.shape[1]))
                core.token = ctx.token = core.forward(flat, x, scratch_y, scratch_att)
            grads = torch.zeros_like(flat)
            dx = torch.empty_like(x)
            core.bind(flat, grads, x.device)
            check(lib.tlob_backward(core.handle, x.data_ptr(), dy.data_ptr(), x.shape[0],
                                    dx.data_ptr()))
        views = [grads[off:off + p.numel()].view(p.shape)
                 for (_, off, _), p in zip(module._layout, module._params_in_order())]
        return (dx, None, *views)


def _holder(**params):
    m = nn.Module()
    for name, p in params.items():
        setattr(m, name, p)
    return m


class TransformerLayer(nn.Module):
    """TransformerLayer(hidden_dim, num_heads, final_dim) as published, on our
    CUDA layer. math: "tf32" (default) or "fp32". Parameters start from the
    library's seeded default initialisation (the published distributions;
    torch's random stream cannot be reproduced) or come with
    load_state_dict from a published model."""

    def __init__(self, hidden_dim, num_heads, final_dim, math="tf32", seed=0):
        super().__init__()
        if math not in MATH:
            raise ValueError(f"math '{math}' is not one of {sorted(MATH)}")
        self.hidden_dim, self.num_heads, self.final_dim, self.math = (
            hidden_dim, num_heads, final_dim, math)
        self._layout, total = _params.layout(hidden_dim, num_heads, final_dim)
        init = _params.dict_to_flat(_params.init(hidden_dim, num_heads, final_dim, seed),
                                    hidden_dim, num_heads, final_dim)
        self._flat = torch.from_numpy(init)
        views = {name: nn.Parameter(self._flat[off:off + int(torch.Size(shape).numel())].view(shape))
                 for name, off, shape in self._layout}
        # The published module tree, so that state_dict names match it.
        self.norm = _holder(weight=views["norm.weight"], bias=views["norm.bias"])
        self.qkv = nn.Module()
        for part in "qkv":
            setattr(self.qkv, part, _holder(weight=views[f"qkv.{part}.weight"],
                                            bias=views[f"qkv.{part}.bias"]))
        self.attention = _holder(in_proj_weight=views["attention.in_proj_weight"],
                                 in_proj_bias=views["attention.in_proj_bias"])
        self.attention.out_proj = _holder(weight=views["attention.out_proj.weight"],
                                          bias=views["attention.out_proj.bias"])
        self.mlp = nn.Module()
        self.mlp.layer_norm = _holder(weight=views["mlp.layer_norm.weight"],
                                      bias=views["mlp.layer_norm.bias"])
        self.mlp.fc = _holder(weight=views["mlp.fc.weight"], bias=views["mlp.fc.bias"])
        self.mlp.fc2 = _holder(weight=views["mlp.fc2.weight"], bias=views["mlp.fc2.bias"])
        self.w0 = _holder(weight=views["w0.weight"], bias=views["w0.bias"])
        self._core = None

    def _params_in_order(self):
        named = dict(self.named_parameters())
        return [named[name] for name, _, _ in self._layout]

    def _ensure_packed(self):
        """Puts the parameters back into one flat buffer when something (.cuda(),
        .to(), load_state_dict(assign=True)) replaced their storage."""
        ps = self._params_in_order()
        device = ps[0].device
        base = self._flat.data_ptr() if self._flat.device == device else None
        if base is not None and all(
                p.dtype == torch.float32 and p.is_contiguous()
                and p.data_ptr() == base + 4 * off
                for p, (_, off, _) in zip(ps, self._layout)):
            return
        for p, (name, _, _) in zip(ps, self._layout):
            if p.dtype != torch.float32 or p.device != device:
                raise TypeError(f"tlob.TransformerLayer: parameter '{name}' is {p.dtype} on "
                                f"{p.device}; the layer needs float32, all on one device")
        flat = torch.empty(self._flat.numel(), dtype=torch.float32, device=device)
        with torch.no_grad():
            for p, (_, off, _) in zip(ps, self._layout):
                flat[off:off + p.numel()].copy_(p.reshape(-1))
                p.data = flat[off:off + p.numel()].view(p.shape)
        self._flat = flat

    def _core_for(self, x):
        B, T = x.shape[0], x.shape[1]
        core = self._core
        if core is None or core.seq_len != T or core.max_batch < B:
            with torch.cuda.device(x.device):
                self._core = _Core(self.hidden_dim, self.num_heads, self.final_dim, T,
                                   max(B, core.max_batch if core and core.seq_len == T else 0),
                                   self.math)
        return self._core

    def forward(self, x):
        if not x.is_cuda:
            raise RuntimeError("tlob.TransformerLayer runs on CUDA tensors: move the module "
                               "and x with .cuda()")
        if x.dim() != 3 or x.shape[2] != self.hidden_dim:
            raise ValueError(f"x: shape {tuple(x.shape)}, expected (B, T, {self.hidden_dim})")
        if x.dtype != torch.float32:
            raise TypeError(f"x: {x.dtype}; the layer computes in float32")
        self._ensure_packed()
        if self._flat.device != x.device:
            raise RuntimeError(f"x is on {x.device}, the parameters on {self._flat.device}")
        return _TlobFunction.apply(x.contiguous(), self, *self._params_in_order())

"""The layer on host (numpy) arrays, without torch: each call copies its
inputs to the device and its results back (tlob_forward_host,
tlob_backward_host). For device tensors in place, see tlob.TransformerLayer."""
import ctypes

import numpy as np

from . import params as _params
from ._lib import MATH, Config, check, floats, lib


def _f32(a, shape, what):
    a = np.ascontiguousarray(a, dtype=np.float32)
    if a.shape != shape:
        raise ValueError(f"{what}: shape {a.shape}, expected {shape}")
    return a


class Layer:
    """TransformerLayer(dim, heads, out_dim) for x [B, T, dim], B <= max_batch.

    params: {published name: array}, a path (.npy directory or safetensors
    file), or None for the seeded default initialisation."""

    def __init__(self, dim, heads, out_dim, seq_len, max_batch, math="tf32", params=None, seed=0):
        if math not in MATH:
            raise ValueError(f"math '{math}' is not one of {sorted(MATH)}")
        self.dim, self.heads, self.out_dim = dim, heads, out_dim
        self.seq_len, self.max_batch = seq_len, max_batch
        self._handle = ctypes.c_void_p()
        cfg = Config(dim, heads, out_dim, seq_len, max_batch, MATH[math])
        check(lib.tlob_create(ctypes.byref(cfg), ctypes.byref(self._handle)))
        self._n = lib.tlob_num_params(self._handle)
        self._batch = None
        if params is None:
            params = _params.init(dim, heads, out_dim, seed)
        elif not isinstance(params, dict):
            params = _params.read(params, dim, heads, out_dim)
        self.set_params(params)

    def close(self):
        # a layer refused by __init__ before tlob_create has no handle
        if getattr(self, "_handle", None):
            lib.tlob_destroy(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self):
        self.close()

    def _download(self, dev):
        flat = np.empty(self._n, dtype=np.float32)
        check(lib.tlob_download(self._handle, floats(flat), dev, self._n))
        return _params.flat_to_dict(flat, self.dim, self.heads, self.out_dim)

    def set_params(self, params):
        flat = _params.dict_to_flat(params, self.dim, self.heads, self.out_dim)
        check(lib.tlob_upload(self._handle, lib.tlob_params(self._handle), floats(flat), self._n))

    def params(self):
        return self._download(lib.tlob_params(self._handle))

    def grads(self):
        """The gradient buffer: what every backward since zero_grads added."""
        return self._download(lib.tlob_grads(self._handle))

    def zero_grads(self):
        check(lib.tlob_zero_grads(self._handle))
        check(lib.tlob_sync(self._handle))

    def forward(self, x):
        """y [B, T, out_dim] and the attention map [B, heads, T, T]."""
        x = np.asarray(x)
        if x.ndim != 3:
            raise ValueError(f"x: shape {x.shape}, expected (B, {self.seq_len}, {self.dim})")
        B = x.shape[0]
        x = _f32(x, (B, self.seq_len, self.dim), "x")
        y = np.empty((B, self.seq_len, self.out_dim), dtype=np.float32)
        att = np.empty((B, self.heads, self.seq_len, self.seq_len), dtype=np.float32)
        check(lib.tlob_forward_host(self._handle, floats(x), B, floats(y), floats(att)))
        self._batch = B
        return y, att

    def backward(self, dy):
        """dx for dy [B, T, out_dim] after forward; adds the parameter gradients."""
        if self._batch is None:
            raise RuntimeError("backward before forward")
        dy = _f32(dy, (self._batch, self.seq_len, self.out_dim), "dy")
        dx = np.empty((self._batch, self.seq_len, self.dim), dtype=np.float32)
        check(lib.tlob_backward_host(self._handle, floats(dy), self._batch, floats(dx)))
        return dx

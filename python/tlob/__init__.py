"""tlob: the TLOB TransformerLayer in CUDA C (libtlob.so) from Python.

Needs only the shared library and numpy at import (ctypes; no build step):
  tlob.params      the flat layout, seeded initialisation, .npy/safetensors files
  tlob.Layer       the layer on numpy arrays (copies through the host)
  tlob.TransformerLayer   a torch.nn.Module on device tensors in place (needs torch;
                   imported on first use)
See docs/pytorch.md."""
from . import params
from ._lib import TlobError
from .layer import Layer

__all__ = ["Layer", "TlobError", "TransformerLayer", "params"]


def __getattr__(name):
    if name == "TransformerLayer":
        from .torch_layer import TransformerLayer
        return TransformerLayer
    raise AttributeError(f"module 'tlob' has no attribute '{name}'")

"""TransformerLayer(dim, heads, out_dim) parameters on the host, through the
library: the flat layout (published names, shapes, offsets), the seeded
initialisation, and the .npy directory and safetensors file formats. Every
array is float32; a parameter set is a dict {published name: array}."""
import ctypes

import numpy as np

from ._lib import TLOB_NUM_TENSORS, TensorInfo, check, floats, lib


def layout(dim, heads, out_dim):
    """[(name, offset, shape)] in flat-buffer order, and the total float count."""
    infos = (TensorInfo * TLOB_NUM_TENSORS)()
    total = ctypes.c_size_t()
    check(lib.tlob_param_layout(dim, heads, out_dim, infos, ctypes.byref(total)))
    return [(t.name.decode(), t.offset, tuple(t.shape[: t.ndim])) for t in infos], total.value


def flat_to_dict(flat, dim, heads, out_dim):
    """Views of one flat buffer (numpy, or anything sliceable with .reshape) by name."""
    entries, total = layout(dim, heads, out_dim)
    if len(flat) != total:
        raise ValueError(f"flat buffer holds {len(flat)} floats, the layout {total}")
    return {name: flat[off:off + int(np.prod(shape))].reshape(shape)
            for name, off, shape in entries}


def dict_to_flat(params, dim, heads, out_dim):
    """One flat float32 buffer from {name: array}; every published name needed."""
    entries, total = layout(dim, heads, out_dim)
    flat = np.empty(total, dtype=np.float32)
    for name, off, shape in entries:
        if name not in params:
            raise KeyError(f"parameter '{name}' is missing")
        value = np.asarray(params[name], dtype=np.float32)
        if value.shape != shape:
            raise ValueError(f"parameter '{name}': shape {value.shape}, expected {shape}")
        flat[off:off + value.size] = value.ravel()
    return flat


def _flat_call(fn, path, dim, heads, out_dim):
    _, total = layout(dim, heads, out_dim)
    flat = np.empty(total, dtype=np.float32)
    check(fn(str(path).encode(), dim, heads, out_dim, floats(flat)))
    return flat


def init(dim, heads, out_dim, seed=0):
    """The reference's default initialisation (tlob_init_params_host)."""
    _, total = layout(dim, heads, out_dim)
    flat = np.empty(total, dtype=np.float32)
    check(lib.tlob_init_params_host(dim, heads, out_dim, seed, floats(flat)))
    return flat_to_dict(flat, dim, heads, out_dim)


def read(path, dim, heads, out_dim):
    """From a directory of <name>.npy files or a safetensors file."""
    return flat_to_dict(_flat_call(lib.tlob_read_params_any, path, dim, heads, out_dim),
                        dim, heads, out_dim)


def read_safetensors(path, dim, heads, out_dim):
    return flat_to_dict(_flat_call(lib.tlob_read_safetensors_host, path, dim, heads, out_dim),
                        dim, heads, out_dim)


def _write(fn, path, params, dim, heads, out_dim):
    flat = dict_to_flat(params, dim, heads, out_dim)
    check(fn(str(path).encode(), dim, heads, out_dim, floats(flat)))


def write_safetensors(path, params, dim, heads, out_dim):
    _write(lib.tlob_write_safetensors_host, path, params, dim, heads, out_dim)


def write_npy_dir(path, params, dim, heads, out_dim):
    """DIR/<name>.npy for every parameter; DIR must exist."""
    _write(lib.tlob_write_params_host, path, params, dim, heads, out_dim)

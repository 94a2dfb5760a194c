"""The shared library libtlob.so through ctypes: where it is found, the C
signatures of layer/tlob.h, and TlobError for a failed tlob_status.

The library is looked for at $TLOB_LIBRARY, then beside this package in a
source checkout (build/libtlob.so), then by the loader (libtlob.so.0 on the
library path, e.g. after `make install`)."""
import ctypes
import os

TLOB_NUM_TENSORS = 20
TLOB_MAX_NAME = 32
MATH = {"tf32": 0, "fp32": 1}


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * TLOB_MAX_NAME), ("offset", ctypes.c_size_t),
                ("numel", ctypes.c_size_t), ("ndim", ctypes.c_int),
                ("shape", ctypes.c_int * 2)]


class Config(ctypes.Structure):
    _fields_ = [("dim", ctypes.c_int), ("heads", ctypes.c_int), ("out_dim", ctypes.c_int),
                ("seq_len", ctypes.c_int), ("max_batch", ctypes.c_int), ("math", ctypes.c_int)]


class TlobError(RuntimeError):
    """A tlob_status other than TLOB_OK: the status name and tlob_last_error()."""

    def __init__(self, status, name, detail):
        super().__init__(f"{name}: {detail}")
        self.status = status
        self.name = name
        self.detail = detail


def _candidates():
    env = os.environ.get("TLOB_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.join(here, "..", "..", "build", "libtlob.so")
    return [checkout, "libtlob.so.0"]


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("tlob: cannot load libtlob.so (build it with `make layer`, or set "
                      "TLOB_LIBRARY): " + "; ".join(errors))


lib = _load()

_P = ctypes.c_void_p
_F = ctypes.POINTER(ctypes.c_float)
_S = ctypes.c_int  # tlob_status
_signatures = {
    "tlob_status_string": (ctypes.c_char_p, [_S]),
    "tlob_last_error": (ctypes.c_char_p, []),
    "tlob_param_layout": (_S, [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                               ctypes.POINTER(TensorInfo), ctypes.POINTER(ctypes.c_size_t)]),
    "tlob_init_params_host": (_S, [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint64, _F]),
    "tlob_read_params_host": (_S, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, _F]),
    "tlob_write_params_host": (_S, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, _F]),
    "tlob_read_safetensors_host": (_S, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, _F]),
    "tlob_write_safetensors_host": (_S, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, _F]),
    "tlob_read_params_any": (_S, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, _F]),
    "tlob_create": (_S, [ctypes.POINTER(Config), ctypes.POINTER(_P)]),
    "tlob_destroy": (None, [_P]),
    "tlob_num_params": (ctypes.c_size_t, [_P]),
    "tlob_params": (_P, [_P]),
    "tlob_grads": (_P, [_P]),
    "tlob_set_stream": (_S, [_P, _P]),
    "tlob_set_buffers": (_S, [_P, _P, _P]),
    "tlob_set_math": (_S, [_P, ctypes.c_int]),
    "tlob_forward": (_S, [_P, _P, ctypes.c_int, _P, _P]),
    "tlob_backward": (_S, [_P, _P, _P, ctypes.c_int, _P]),
    "tlob_forward_host": (_S, [_P, _F, ctypes.c_int, _F, _F]),
    "tlob_backward_host": (_S, [_P, _F, ctypes.c_int, _F]),
    "tlob_zero_grads": (_S, [_P]),
    "tlob_sync": (_S, [_P]),
    "tlob_upload": (_S, [_P, _P, _F, ctypes.c_size_t]),
    "tlob_download": (_S, [_P, _F, _P, ctypes.c_size_t]),
}
for _name, (_res, _args) in _signatures.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def check(status):
    """Raises TlobError for a failed status."""
    if status != 0:
        raise TlobError(status, lib.tlob_status_string(status).decode(),
                        lib.tlob_last_error().decode())


def floats(array):
    """A float* to a C-contiguous float32 numpy array."""
    return array.ctypes.data_as(_F)

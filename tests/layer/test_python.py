"""The Python package python/tlob/ through build/libtlob.so, without a GPU:
parameter layouts, the seeded initialisation, .npy directories and
safetensors files read and written by the library and checked against
independent readers and writers written here (struct + json + numpy), error
messages that name the file and the tensor, and that importing tlob needs
neither torch nor a device. Ends with "N passed, N failed"."""
import gc
import json
import os
import struct
import sys
import tempfile
import unittest

import numpy as np

import tlob


def expected_layout(D, nh, O):
    E, F = D * nh, 4 * D
    shapes = [("norm.weight", (D,)), ("norm.bias", (D,)),
              ("qkv.q.weight", (E, D)), ("qkv.k.weight", (E, D)), ("qkv.v.weight", (E, D)),
              ("qkv.q.bias", (E,)), ("qkv.k.bias", (E,)), ("qkv.v.bias", (E,)),
              ("attention.in_proj_weight", (3 * E, E)), ("attention.in_proj_bias", (3 * E,)),
              ("attention.out_proj.weight", (E, E)), ("attention.out_proj.bias", (E,)),
              ("mlp.layer_norm.weight", (O,)), ("mlp.layer_norm.bias", (O,)),
              ("mlp.fc.weight", (F, D)), ("mlp.fc.bias", (F,)),
              ("mlp.fc2.weight", (O, F)), ("mlp.fc2.bias", (O,)),
              ("w0.weight", (D, E)), ("w0.bias", (D,))]
    out, off = [], 0
    for name, shape in shapes:
        out.append((name, off, shape))
        off += int(np.prod(shape))
    return out, off


def read_safetensors_here(path):
    """An independent reader of the format: {name: array}."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        self_dtype = {"F32": "<f4", "F64": "<f8"}[e["dtype"]]
        b, end = e["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + b:8 + n + end], dtype=self_dtype).reshape(e["shape"])
    return out, header


def write_safetensors_here(path, tensors, metadata=None):
    """An independent writer: tensors in the given order, header padded to 8."""
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, a in tensors:
        a = np.ascontiguousarray(a)
        dtype = {np.dtype("<f4"): "F32", np.dtype("<f8"): "F64"}[a.dtype]
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


class Layout(unittest.TestCase):
    def test_matches_the_published_names_and_shapes(self):
        for D, nh, O in [(4, 2, 3), (40, 1, 40), (5, 3, 7)]:
            entries, total = tlob.params.layout(D, nh, O)
            self.assertEqual((entries, total), expected_layout(D, nh, O))

    def test_bad_sizes_raise_with_the_library_message(self):
        with self.assertRaises(tlob.TlobError) as cm:
            tlob.params.layout(0, 1, 1)
        self.assertEqual(cm.exception.name.split(":")[0], "TLOB_ERR_INVALID_ARGUMENT")
        self.assertIn("dim=0", cm.exception.detail)

    def test_flat_and_dict_round_trip(self):
        _, total = tlob.params.layout(4, 2, 3)
        flat = np.arange(total, dtype=np.float32)
        d = tlob.params.flat_to_dict(flat, 4, 2, 3)
        self.assertEqual(d["qkv.k.weight"].shape, (8, 4))
        self.assertEqual(float(d["qkv.k.weight"][0, 0]), 8 + 32)
        np.testing.assert_array_equal(tlob.params.dict_to_flat(d, 4, 2, 3), flat)
        del d["w0.bias"]
        with self.assertRaisesRegex(KeyError, "'w0.bias' is missing"):
            tlob.params.dict_to_flat(d, 4, 2, 3)
        d["w0.bias"] = np.zeros(5, dtype=np.float32)
        with self.assertRaisesRegex(ValueError, r"'w0.bias': shape \(5,\), expected \(4,\)"):
            tlob.params.dict_to_flat(d, 4, 2, 3)


class Init(unittest.TestCase):
    def test_seeded_and_within_the_published_bounds(self):
        a, b = tlob.params.init(8, 2, 6, seed=3), tlob.params.init(8, 2, 6, seed=3)
        c = tlob.params.init(8, 2, 6, seed=4)
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
        self.assertFalse(np.array_equal(a["w0.weight"], c["w0.weight"]))
        np.testing.assert_array_equal(a["norm.weight"], np.ones(8, np.float32))
        np.testing.assert_array_equal(a["attention.in_proj_bias"], np.zeros(48, np.float32))
        self.assertLessEqual(np.abs(a["mlp.fc2.weight"]).max(), 1 / np.sqrt(32))
        self.assertGreater(np.abs(a["mlp.fc2.weight"]).max(), 0.9 / np.sqrt(32))
        self.assertLessEqual(np.abs(a["attention.in_proj_weight"]).max(), np.sqrt(6 / 64))


def safetensors_supported():
    """False for a library built without jansson (it says TLOB_ERR_UNSUPPORTED)."""
    try:
        tlob.params.read_safetensors("/nonexistent.safetensors", 1, 1, 1)
    except tlob.TlobError as e:
        return not e.name.startswith("TLOB_ERR_UNSUPPORTED")
    return True


class Files(unittest.TestCase):
    def setUp(self):
        if not safetensors_supported() and any(w in self._testMethodName for w in ("safetensors", "errors")):
            self.skipTest("libtlob built without jansson: no safetensors")
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.p = tlob.params.init(6, 2, 5, seed=9)

    def tearDown(self):
        self.tmp.cleanup()

    def test_safetensors_written_by_the_library_read_here(self):
        path = os.path.join(self.dir, "w.safetensors")
        tlob.params.write_safetensors(path, self.p, 6, 2, 5)
        got, header = read_safetensors_here(path)
        self.assertEqual(set(got), set(self.p))
        for k in self.p:
            self.assertEqual(header[k]["dtype"], "F32")
            np.testing.assert_array_equal(got[k], self.p[k])
        self.assertEqual(os.path.getsize(path) % 4, 0)

    def test_safetensors_written_here_read_by_the_library(self):
        path = os.path.join(self.dir, "foreign.safetensors")
        rng = np.random.default_rng(1)
        p = {k: rng.standard_normal(v.shape).astype(np.float32) for k, v in self.p.items()}
        items = [("head.weight", np.ones((2, 2), np.float64))] + list(reversed(list(p.items())))
        write_safetensors_here(path, items, {"format": "pt"})
        got = tlob.params.read_safetensors(path, 6, 2, 5)
        for k in p:
            np.testing.assert_array_equal(got[k], p[k])
        got = tlob.params.read(path, 6, 2, 5)  # a file: safetensors
        np.testing.assert_array_equal(got["mlp.fc.weight"], p["mlp.fc.weight"])

    def test_npy_directory_written_by_the_library(self):
        tlob.params.write_npy_dir(self.dir, self.p, 6, 2, 5)
        for k, v in self.p.items():
            a = np.load(os.path.join(self.dir, k + ".npy"))
            self.assertEqual(a.dtype, np.float32)
            np.testing.assert_array_equal(a, v)
        got = tlob.params.read(self.dir, 6, 2, 5)  # a directory: .npy files
        for k in self.p:
            np.testing.assert_array_equal(got[k], self.p[k])

    def test_errors_name_the_file_and_the_tensor(self):
        path = os.path.join(self.dir, "bad.safetensors")
        items = [(k, v) for k, v in self.p.items() if k != "mlp.fc.bias"]
        write_safetensors_here(path, items)
        with self.assertRaises(tlob.TlobError) as cm:
            tlob.params.read(path, 6, 2, 5)
        self.assertIn(path, str(cm.exception))
        self.assertIn("'mlp.fc.bias' is missing", str(cm.exception))
        items = [(k, v.astype(np.float64) if k == "w0.weight" else v) for k, v in self.p.items()]
        write_safetensors_here(path, items)
        with self.assertRaisesRegex(tlob.TlobError, "tensor 'w0.weight': dtype F64, expected F32"):
            tlob.params.read(path, 6, 2, 5)
        with self.assertRaisesRegex(tlob.TlobError, r"tensor 'qkv.q.weight': shape \(12, 6\), expected \(6, 6\)"):
            tlob.params.read_safetensors(os.path.join(self.dir, "bad.safetensors"), 6, 1, 5)
        with self.assertRaisesRegex(tlob.TlobError, "nope.safetensors: cannot open"):
            tlob.params.read(os.path.join(self.dir, "nope.safetensors"), 6, 2, 5)
        with self.assertRaisesRegex(tlob.TlobError, r"norm\.weight\.npy: cannot open"):
            tlob.params.read(self.dir, 6, 2, 5)  # an empty directory


class Package(unittest.TestCase):
    def test_import_needs_no_torch(self):
        self.assertNotIn("torch", sys.modules)

    def test_layer_runs_or_says_there_is_no_device(self):
        try:
            layer = tlob.Layer(4, 1, 4, seq_len=3, max_batch=2, seed=1)
        except tlob.TlobError as e:
            self.assertTrue(e.name.startswith("TLOB_ERR_NO_DEVICE"), str(e))
            return
        y, att = layer.forward(np.zeros((2, 3, 4), np.float32) + 0.5)
        self.assertEqual(y.shape, (2, 3, 4))
        np.testing.assert_allclose(att.sum(-1), 1.0, rtol=1e-5)

    def test_bad_math_mode(self):
        # the refused layer is collected with nothing reported by its
        # finaliser (it had no handle yet: an AttributeError was printed)
        unraisable = []
        old_hook = sys.unraisablehook
        sys.unraisablehook = unraisable.append
        try:
            with self.assertRaisesRegex(ValueError, "math 'fp16'"):
                tlob.Layer(4, 1, 4, 3, 2, math="fp16")
            gc.collect()
        finally:
            sys.unraisablehook = old_hook
        self.assertEqual([repr(u.exc_value) for u in unraisable], [])


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    print(f"{result.testsRun - failed - skipped} passed, {failed} failed"
          + (f", {skipped} skipped" if skipped else ""))
    sys.exit(1 if failed else 0)

"""A DLPack producer of any rank, made with ctypes: NumPy's own __dlpack__
stops at its 32 dimensions, bcast takes up to 64 (the tests of results over
NumPy's rank limit need operands and outputs of rank 33 to 64, as a PyTorch
tensor of that rank would offer them)."""
import ctypes

import numpy as np


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}  # DLPack's type codes by NumPy's kind
_NAME = b"dltensor"
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class RawDLPack:
    """`array`'s memory seen with `shape` and strides in elements (C order's
    over `shape` when None), offered only through __dlpack__. `released`
    counts the consumer's calls of the deleter."""

    def __init__(self, array, shape, strides=None):
        self.array = array  # keeps the memory alive
        self.shape = tuple(shape)
        if strides is None:
            strides, step = [], 1
            for extent in reversed(self.shape):
                strides.append(step)
                step *= extent
            strides = strides[::-1]
        self.strides = tuple(strides)
        self.released = 0
        self._keep = []

    def __dlpack__(self, stream=None):
        rank = len(self.shape)
        shape = (ctypes.c_int64 * rank)(*self.shape)
        strides = (ctypes.c_int64 * rank)(*self.strides)
        deleter = _DELETER(self._release)
        managed = _Managed()
        dtype = self.array.dtype
        managed.dl_tensor = _Tensor(self.array.ctypes.data, _Device(1, 0), rank,
                                    _DataType(_CODES[dtype.kind], 8 * dtype.itemsize, 1),
                                    ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)),
                                    ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)), 0)
        managed.deleter = deleter
        self._keep.append((shape, strides, deleter, managed))
        return _capsule_new(ctypes.addressof(managed), _NAME, None)

    def __dlpack_device__(self):
        return (1, 0)

    def _release(self, _managed):
        self.released += 1


def numpy_max_dims():
    """The most dimensions this NumPy's arrays take (32 before NumPy 2, 64 after)."""
    rank = 1
    while rank < 128:
        try:
            np.empty((1,) * (rank + 1))
        except ValueError:
            return rank
        rank += 1
    return rank

"""h5py helpers for the kernels: open with MPI_Info hints, and read the hints the file really uses."""

from __future__ import annotations

import ctypes
from typing import Any

import h5py
from mpi4py import MPI

from autotune.kernels._common import KernelContext, info_dict

_lib: Any = None


def _hdf5() -> Any:
    """libhdf5 as h5py loaded it (dlsym on h5py's extension searches its dependencies)."""
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(h5py.h5f.__file__)
        lib.H5Fget_vfd_handle.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p)]
        lib.H5Fget_vfd_handle.restype = ctypes.c_int
        _lib = lib
    return _lib


def hints_in_effect(f: h5py.File) -> dict[str, str]:
    """``MPI_File_get_info`` of the MPI file under an h5py mpio file (``f.id.get_vfd_handle()`` crashes)."""
    fapl = f.id.get_access_plist()
    ptr = ctypes.c_void_p()
    if _hdf5().H5Fget_vfd_handle(f.id.id, fapl.id, ctypes.byref(ptr)) < 0 or not ptr.value:
        raise RuntimeError("H5Fget_vfd_handle failed")
    handle = ctypes.c_void_p.from_address(ptr.value).value  # the mpio driver hands out &MPI_File
    if handle is None:
        raise RuntimeError("H5Fget_vfd_handle returned a null MPI_File")
    return info_dict(MPI.File.fromhandle(handle).Get_info())


def open_file(ctx: KernelContext, path: str, mode: str, alignment: int = 1) -> h5py.File:
    """h5py.File on the mpio driver with the run's hints (and HDF5 alignment when > 1)."""
    kwargs: dict[str, Any] = {"driver": "mpio", "comm": ctx.comm}
    info = ctx.info()
    if info != MPI.INFO_NULL:
        kwargs["info"] = info
    if alignment > 1:
        kwargs.update(alignment_threshold=alignment, alignment_interval=alignment)
    f = h5py.File(path, mode, **kwargs)
    if info != MPI.INFO_NULL:
        info.Free()
    ctx.note_hints(hints_in_effect(f))
    return f


def sync(f: h5py.File) -> None:
    """H5Fflush: on the mpio driver this ends in MPI_File_sync (fsync on UFS)."""
    f.flush()

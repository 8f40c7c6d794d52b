"""libxlat from Python: contexts, configs, units, callbacks, statistics.

    import xlat
    with xlat.Context() as ctx:
        l1 = xlat.Tlb(ctx, name="l1", entries=16, ways=16, latency=1)
        walker = xlat.Fixed(ctx, name="walker", latency=100)
        l1.set_next(walker)
        l1.translate(0x7f0000001000, print, id=0, pasid=1)
        ctx.run()

The declarations come from libxlat's headers (python/gen_cdef.py at build
time) and the library is opened with cffi in ABI mode. doc/python.md is
the guide.
"""

from ._ffi import CONSTANTS, ffi, lib, library_path
from .config import Config, struct_to_dict
from .context import NEVER, Context, Response
from .errors import (AgainError, BusyError, ExistError, FaultError, FullError, InvalidError,
                     NoMemoryError, NotFoundError, PermError, StateError, UnsupportedError,
                     XlatError)
from .sim import find_sim, run_sim
from .units import Cuckoo, Fixed, Iommu, PageTable, PhysMem, System, Tlb, Unit, Walker

PERM_R, PERM_W, PERM_X, PERM_U = lib.XLAT_PERM_R, lib.XLAT_PERM_W, lib.XLAT_PERM_X, lib.XLAT_PERM_U
OK = lib.XLAT_OK


def version():
    """The library's version string (xlat_version_string())."""
    return ffi.string(lib.xlat_version_string()).decode()


def strerror(code):
    return ffi.string(lib.xlat_strerror(code)).decode()


__all__ = [
    "AgainError", "BusyError", "CONSTANTS", "Config", "Context", "Cuckoo", "ExistError",
    "FaultError", "Fixed", "FullError", "InvalidError", "Iommu", "NEVER", "NoMemoryError",
    "NotFoundError", "OK", "PERM_R", "PERM_U", "PERM_W", "PERM_X", "PageTable", "PermError",
    "PhysMem", "Response", "StateError", "System", "Tlb", "Unit", "UnsupportedError", "Walker",
    "XlatError", "ffi", "find_sim", "lib", "library_path", "run_sim", "strerror",
    "struct_to_dict", "version",
]

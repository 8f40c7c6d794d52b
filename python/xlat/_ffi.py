"""The cffi handle on libxlat: declarations generated from the headers
(_cdef.py, written by python/gen_cdef.py) and the shared library opened in
ABI mode, so that nothing here is compiled."""

import os

import cffi

from . import _cdef, _paths

ffi = cffi.FFI()
ffi.cdef(_cdef.CDEF)


def library_path():
    """XLAT_LIBRARY when set, else the libxlat.so.0 recorded at build or
    install time."""
    return os.environ.get("XLAT_LIBRARY") or os.path.join(_paths.LIBDIR, _paths.SONAME)


def _open():
    path = library_path()
    try:
        return ffi.dlopen(path)
    except OSError as e:
        raise ImportError("xlat: cannot load libxlat from %s (set XLAT_LIBRARY to the "
                          "path of libxlat.so.0): %s" % (path, e)) from None


lib = _open()


def size_through(struct, member):
    """Bytes of `struct` up to and including `member` (XLAT_SIZE_THROUGH)."""
    return ffi.offsetof(struct, member) + ffi.sizeof(ffi.typeof(struct).fields[
        [name for name, _ in ffi.typeof(struct).fields].index(member)][1].type)


CONSTANTS = dict(_cdef.CONSTANTS)
CONSTANTS.update({name: size_through(s, m) for name, (s, m) in _cdef.SIZE_THROUGH.items()})

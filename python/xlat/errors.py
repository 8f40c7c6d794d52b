"""Status codes as exceptions: a failing call raises the XlatError subclass
of its code, carrying xlat_strerror() and the context's xlat_ctx_errmsg()."""

from ._ffi import ffi, lib


class XlatError(Exception):
    """A libxlat call failed. `code` is the XLAT_ERR_* value, `name` the
    library's text for it, `detail` the context's message (may be empty)."""

    code = None

    def __init__(self, code, detail=""):
        self.code = code
        self.name = ffi.string(lib.xlat_strerror(code)).decode()
        self.detail = detail
        super().__init__("%s: %s" % (self.name, detail) if detail else self.name)


def _subclass(name, code):
    return type(name, (XlatError,), {"code": code, "__doc__": "XLAT code %d." % code})


InvalidError = _subclass("InvalidError", lib.XLAT_ERR_INVAL)
NoMemoryError = _subclass("NoMemoryError", lib.XLAT_ERR_NOMEM)
AgainError = _subclass("AgainError", lib.XLAT_ERR_AGAIN)
NotFoundError = _subclass("NotFoundError", lib.XLAT_ERR_NOT_FOUND)
FullError = _subclass("FullError", lib.XLAT_ERR_FULL)
ExistError = _subclass("ExistError", lib.XLAT_ERR_EXIST)
FaultError = _subclass("FaultError", lib.XLAT_ERR_FAULT)
PermError = _subclass("PermError", lib.XLAT_ERR_PERM)
StateError = _subclass("StateError", lib.XLAT_ERR_STATE)
UnsupportedError = _subclass("UnsupportedError", lib.XLAT_ERR_UNSUPPORTED)
BusyError = _subclass("BusyError", lib.XLAT_ERR_BUSY)

_BY_CODE = {cls.code: cls for cls in (
    InvalidError, NoMemoryError, AgainError, NotFoundError, FullError, ExistError,
    FaultError, PermError, StateError, UnsupportedError, BusyError)}


def error(code, ctx_ptr=None):
    """The exception for `code`, with the detail of the context `ctx_ptr`."""
    detail = ""
    if ctx_ptr is not None and ctx_ptr != ffi.NULL:
        detail = ffi.string(lib.xlat_ctx_errmsg(ctx_ptr)).decode(errors="replace")
    return _BY_CODE.get(code, XlatError)(code, detail)


def check(rc, ctx_ptr=None):
    """Raise for a negative status; return `rc` otherwise."""
    if rc < 0:
        raise error(rc, ctx_ptr)
    return rc

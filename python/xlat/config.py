"""Flat sized configs: a struct made by the library's own
xlat_<obj>_config_init_sized() with this binding's struct size, set by
attribute or keyword, refusing names the struct does not have."""

import cffi

from ._ffi import ffi, lib


class Config:
    """One `xlat_<kind>_config`, filled with the library's defaults.

    `Config("tlb", entries=64, ways=4)`; `cfg.latency = 10`; an enum field
    also takes its constant's name (`repl="XLAT_REPL_FIFO"`). A field that
    points somewhere takes a str (for `const char *`), another Config, a
    unit (its handle), a list (an array the field points to) or None; the
    Config keeps what it was given alive as long as itself.
    """

    def __init__(self, kind, init=None, struct=None, **fields):
        struct = struct or "xlat_%s_config" % kind
        init = init or "xlat_%s_config_init_sized" % kind
        try:
            ctype = ffi.typeof(struct)
        except cffi.CDefError:
            raise ValueError("xlat: no config struct %s" % struct) from None
        ptr = ffi.new(struct + " *")
        getattr(lib, init)(ptr, ffi.sizeof(ctype))
        object.__setattr__(self, "_struct", struct)
        object.__setattr__(self, "_ptr", ptr)
        object.__setattr__(self, "_fields", dict(ctype.fields))
        object.__setattr__(self, "_keep", {})
        self.set(**fields)

    def set(self, **fields):
        """Set several fields at once; returns self."""
        for name, value in fields.items():
            setattr(self, name, value)
        return self

    def fields(self):
        """The struct's field names, in order."""
        return list(self._fields)

    def __setattr__(self, name, value):
        field = self._fields.get(name)
        if field is None or name == "struct_size":
            raise AttributeError("%s has no settable field %r (fields: %s)"
                                 % (self._struct, name, ", ".join(self._fields)))
        if field.type.kind == "pointer":
            value = self._pointer(name, field.type, value)
        elif isinstance(value, str):  # an enum constant by name: "XLAT_INCL_LEAST"
            value = _enum_value(self._struct, name, value)
        try:
            setattr(self._ptr, name, value)
        except (TypeError, OverflowError) as e:
            raise type(e)("%s.%s: %s" % (self._struct, name, e)) from None

    def _pointer(self, name, ctype, value):
        keep = self._keep
        keep.pop(name, None)
        if value is None:
            return ffi.NULL
        if isinstance(value, str):
            value = ffi.new("char[]", value.encode())
        elif isinstance(value, Config):
            keep[name] = value
            return value._ptr
        elif hasattr(value, "_handle"):
            keep[name] = value
            return value._handle()
        elif isinstance(value, (list, tuple)):
            items = [v._ptr[0] if isinstance(v, Config) else
                     (v._handle() if hasattr(v, "_handle") else v) for v in value]
            keep[name + ".items"] = value
            value = ffi.new("%s[]" % ffi.getctype(ctype.item), items)
        keep[name] = value
        return value

    def __getattr__(self, name):
        if name not in self._fields:
            raise AttributeError("%s has no field %r" % (self._struct, name))
        kept = self._keep.get(name)
        if isinstance(kept, Config) or hasattr(kept, "_handle"):
            return kept
        value = getattr(self._ptr, name)
        if self._fields[name].type.cname in ("char *", "const char *"):
            return None if value == ffi.NULL else ffi.string(value).decode()
        return value

    def __repr__(self):
        shown = []
        for name, field in self._fields.items():
            if field.type.kind in ("primitive", "enum"):
                shown.append("%s=%r" % (name, getattr(self._ptr, name)))
        return "Config(%s: %s)" % (self._struct, ", ".join(shown))


def _enum_value(struct, field, name):
    value = getattr(lib, name, None)
    if not isinstance(value, int):
        raise ValueError("%s.%s: %r is not an XLAT_ constant" % (struct, field, name))
    return value


def struct_to_dict(value):
    """A struct's numbers as a dict (nested structs as dicts, arrays as
    lists, strings as str); pointers other than strings are left out."""
    ctype = ffi.typeof(value)
    if ctype.kind == "pointer":
        value, ctype = value[0], ctype.item
    out = {}
    for name, field in ctype.fields:
        converted = _convert(getattr(value, name), field.type)
        if converted is not _SKIP:
            out[name] = converted
    return out


_SKIP = object()


def _convert(value, ctype):
    if ctype.kind == "struct":
        return struct_to_dict(value)
    if ctype.kind == "array":
        return [_convert(v, ctype.item) for v in value]
    if ctype.kind == "pointer":
        if ctype.cname in ("char *", "const char *"):
            return None if value == ffi.NULL else ffi.string(value).decode()
        return _SKIP
    if ctype.kind == "function":
        return _SKIP
    return value

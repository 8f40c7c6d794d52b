"""The context (one clock domain) and the translate callbacks.

Every unit belongs to its context, which destroys the ones still open when
it closes, so a context always outlives its units. A request's Python
callback runs from inside tick()/advance(); an exception it raises is kept
and raised again once the library's call has returned, because an
exception must never unwind through libxlat's frames.
"""

import itertools

from ._ffi import ffi, lib
from .errors import BusyError, StateError, check, error

NEVER = (1 << 64) - 1

# Requests in flight: key -> (context, callback). The key is the request's
# `user` pointer, so the C side holds no Python object.
_pending = {}
_keys = itertools.count(1)


class Response:
    """An answer: every member of xlat_resp, plus `resolver_name`."""

    __slots__ = tuple(name for name, _ in ffi.typeof("xlat_resp").fields) + ("resolver_name",)

    def __init__(self, resp, ctx):
        for name, _ in ffi.typeof("xlat_resp").fields:
            value = getattr(resp, name)
            setattr(self, name, value if name != "meta" else
                    {m: getattr(value, m) for m, _ in ffi.typeof("xlat_meta").fields})
        self.resolver_name = ctx.unit_name(self.resolver)

    def __repr__(self):
        return ("Response(id=%d, vaddr=%#x, paddr=%#x, status=%d, issued=%d, completed=%d, "
                "resolver=%r)" % (self.id, self.vaddr, self.paddr, self.status, self.issued,
                                  self.completed, self.resolver_name))


@ffi.callback("void(void *, const xlat_resp *)")
def _on_done(user, resp):
    ctx, fn = _pending.pop(int(ffi.cast("uintptr_t", user)))
    try:
        answer = Response(resp, ctx)
        if fn is None:
            ctx.completed.append(answer)
        else:
            fn(answer)
    except BaseException as e:  # kept for after the library's call: see the module's doc
        ctx._callback_errors.append(e)


class Context:
    """`xlat_ctx`: a cycle counter, an event queue and the units on it.

    Use it as a context manager, or call close(); a context that is
    garbage-collected closes itself.
    """

    def __init__(self, seed=None):
        self._ptr = ffi.NULL
        self._units = []
        self._callback_errors = []
        self.completed = []   # answers of requests sent with no callback
        out = ffi.new("xlat_ctx **")
        cfg = ffi.NULL
        if seed is not None:
            cfg = ffi.new("xlat_ctx_config *")
            lib.xlat_ctx_config_init_sized(cfg, ffi.sizeof("xlat_ctx_config"))
            cfg.seed = seed
        check(lib.xlat_ctx_create(cfg, out))
        self._ptr = out[0]

    def _live(self):
        if self._ptr == ffi.NULL:
            raise StateError(lib.XLAT_ERR_STATE, "the context is closed")
        return self._ptr

    def close(self):
        """Destroy every open unit (the ones holding others first), then the
        context. Closing twice does nothing."""
        if self._ptr == ffi.NULL:
            return
        while self._units:
            progress = False
            for unit in list(reversed(self._units)):
                try:
                    unit.close()
                    progress = True
                except BusyError:
                    pass
            if not progress:  # a cycle the library refuses to break: leave them
                break
        lib.xlat_ctx_destroy(self._ptr)
        self._ptr = ffi.NULL
        # Requests still in flight died with their units: forget their callbacks.
        for key in [k for k, (ctx, _) in _pending.items() if ctx is self]:
            del _pending[key]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # never raise from a finalizer
            pass

    @property
    def closed(self):
        return self._ptr == ffi.NULL

    def errmsg(self):
        """xlat_ctx_errmsg(): the detail of the last failure."""
        return ffi.string(lib.xlat_ctx_errmsg(self._live())).decode(errors="replace")

    # -- time --------------------------------------------------------------
    def now(self):
        return lib.xlat_now(self._live())

    def next_event(self):
        """The cycle of the next event, or NEVER."""
        return lib.xlat_next_event(self._live())

    def tick(self):
        self._timed(lib.xlat_tick(self._live()))

    def advance(self, cycles):
        self._timed(lib.xlat_advance(self._live(), cycles))

    def run(self, limit=None):
        """Jump from event to event until none is left (or the cycle `limit`)."""
        while True:
            when = self.next_event()
            if when == NEVER or (limit is not None and when > limit):
                return self.now()
            self.advance(when - self.now())

    def _timed(self, rc):
        errors, self._callback_errors = self._callback_errors, []
        check(rc, self._ptr)
        if errors:
            raise errors[0]

    # -- requests ----------------------------------------------------------
    def _send(self, translate, handle, req, done):
        """Call translate(handle, req, _on_done, key): True when accepted,
        False on back-pressure (XLAT_ERR_AGAIN), an exception otherwise."""
        key = next(_keys)
        _pending[key] = (self, done)
        rc = translate(handle, req, _on_done, ffi.cast("void *", key))
        if rc == lib.XLAT_OK:
            return True
        del _pending[key]  # refused: the callback will never be called
        if rc == lib.XLAT_ERR_AGAIN:
            return False
        raise error(rc, self._ptr)

    # -- registry and statistics --------------------------------------------
    def unit_name(self, unit_id):
        name = lib.xlat_unit_name(self._live(), unit_id)
        return None if name == ffi.NULL else ffi.string(name).decode()

    def unit_kind(self, unit_id):
        kind = lib.xlat_unit_kind(self._live(), unit_id)
        return None if kind == ffi.NULL else ffi.string(kind).decode()

    def stats(self, unit_id=None):
        """xlat_stats_foreach(): {unit id: {"kind", "name", "counters": {name: value}}};
        with `unit_id`, that unit's counters alone."""
        units = {}

        def collect(_user, uid, kind, name, counter, value):
            unit = units.setdefault(uid, {"kind": ffi.string(kind).decode(),
                                          "name": ffi.string(name).decode(), "counters": {}})
            unit["counters"][ffi.string(counter).decode()] = value

        fn = ffi.callback("xlat_stats_fn", collect)
        if unit_id is None:
            check(lib.xlat_stats_foreach(self._live(), fn, ffi.NULL), self._ptr)
            return units
        check(lib.xlat_unit_stats_foreach(self._live(), unit_id, fn, ffi.NULL), self._ptr)
        return units[unit_id]["counters"] if unit_id in units else {}

    def stats_reset(self, unit_id=0):
        """xlat_stats_reset(): one unit, or every unit with 0."""
        check(lib.xlat_stats_reset(self._live(), unit_id), self._ptr)

"""The units a Python host composes: TLB, fixed responder, cuckoo filter,
physical memory, page table, walker pool and the system builder.

A unit is created on a Context from a Config (or keyword arguments for
one) and destroyed by close(), or by its context's close(). Units the
system builder made are views: the system destroys them.
"""

from ._ffi import ffi, lib
from .config import Config, struct_to_dict
from .errors import StateError, check

ACCESS = {"read": lib.XLAT_ACCESS_READ, "write": lib.XLAT_ACCESS_WRITE,
          "exec": lib.XLAT_ACCESS_EXEC, "atomic": lib.XLAT_ACCESS_ATOMIC}


class Unit:
    """What every unit has: a handle, its context, an id, counters."""

    kind = None          # the xlat_<kind>_... functions
    config_init = None   # the config's init function when not the kind's own

    def __init__(self, ctx, config=None, **fields):
        if config is None:
            config = Config(self.kind, init=self.config_init, struct=self._config_struct())
        config.set(**fields)
        self.ctx = ctx
        self.config = config   # keeps what the config points to alive
        self._owned = True
        out = ffi.new("xlat_%s **" % self.kind)
        check(getattr(lib, "xlat_%s_create" % self.kind)(ctx._live(), config._ptr, out), ctx._ptr)
        self._ptr = out[0]
        ctx._units.append(self)

    @classmethod
    def _config_struct(cls):
        return None

    @classmethod
    def _view(cls, ctx, ptr, owner):
        """A unit another unit made and will destroy."""
        unit = cls.__new__(cls)
        unit.ctx, unit.config, unit._owned, unit._ptr, unit._owner = ctx, None, False, ptr, owner
        return unit

    def _handle(self):
        if not self._owned:
            self._owner._handle()   # a view dies with its owner
        if self._ptr == ffi.NULL:
            raise StateError(lib.XLAT_ERR_STATE, "the %s is closed" % self.kind)
        return self._ptr

    def close(self):
        """Destroy the unit. BusyError while another unit holds it as its next
        level (close that one first); closing twice does nothing."""
        if not self._owned or self._ptr == ffi.NULL:
            return
        check(getattr(lib, "xlat_%s_destroy" % self.kind)(self._ptr), self.ctx._ptr)
        self._ptr = ffi.NULL
        self.ctx._units.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def id(self):
        """The unit's id in its context's registry."""
        return lib.xlat_unit_id(self.ctx._live(), self._handle())

    def counters(self):
        """The uniform statistics of this unit: {counter: value}."""
        return self.ctx.stats(self.id)

    def stats(self):
        """The unit's own stats struct (xlat_<kind>_stats_get) as a dict."""
        out = ffi.new("xlat_%s_stats *" % self.kind)
        getattr(lib, "xlat_%s_stats_get" % self.kind)(self._handle(), out, ffi.sizeof(out[0]))
        return struct_to_dict(out)

    def stats_reset(self):
        getattr(lib, "xlat_%s_stats_reset" % self.kind)(self._handle())


class TimedUnit(Unit):
    """A unit that takes translation requests and is an xlat_target."""

    def translate(self, vaddr, done=None, *, id=0, pasid=0, access="read", gpu=0, cu=0):
        """Send one request. `done(response)` is called from inside a later
        tick()/advance() (with no `done`, the Response goes to
        ctx.completed). Returns True when accepted, False on back-pressure
        (XLAT_ERR_AGAIN: nothing was taken, retry after a tick); raises
        XlatError for anything else."""
        req = ffi.new("xlat_req *", {"id": id, "vaddr": vaddr, "pasid": pasid,
                                      "access": ACCESS.get(access, access), "gpu": gpu, "cu": cu})
        return self.ctx._send(getattr(lib, "xlat_%s_translate" % self.kind), self._handle(),
                              req, done)

    def target(self):
        """The unit's xlat_target (a cdata the caller keeps alive)."""
        out = ffi.new("xlat_target *", {"struct_size": ffi.sizeof("xlat_target")})
        check(getattr(lib, "xlat_%s_get_target" % self.kind)(self._handle(), out), self.ctx._ptr)
        return out


class Tlb(TimedUnit):
    """xlat_tlb: Tlb(ctx, name="l1", entries=16, ways=16, latency=1)."""

    kind = "tlb"

    def set_next(self, unit):
        """Send misses to `unit` (another TimedUnit); it stays alive as long as this TLB."""
        check(lib.xlat_tlb_set_next(self._handle(), unit.target()), self.ctx._ptr)
        self._next = unit

    def close(self):
        super().close()
        self._next = None

    def lookup(self, pasid, vaddr):
        """The functional lookup: the entry as a dict, or None on a miss."""
        out = ffi.new("xlat_tlb_entry *")
        rc = lib.xlat_tlb_lookup(self._handle(), pasid, vaddr, out)
        if rc == lib.XLAT_ERR_NOT_FOUND:
            return None
        check(rc, self.ctx._ptr)
        return struct_to_dict(out)

    def insert(self, pasid, vpn, pfn, page_shift=12, perm=lib.XLAT_PERM_R | lib.XLAT_PERM_W):
        """Insert an entry; returns the victim as a dict, or None."""
        entry = ffi.new("xlat_tlb_entry *", {"pasid": pasid, "vpn": vpn, "pfn": pfn,
                                              "page_shift": page_shift, "perm": perm})
        victim = ffi.new("xlat_tlb_entry *")
        rc = check(lib.xlat_tlb_insert(self._handle(), entry, victim), self.ctx._ptr)
        return struct_to_dict(victim) if rc > 0 else None

    def flush(self):
        check(lib.xlat_tlb_flush(self._handle()), self.ctx._ptr)

    def __len__(self):
        return lib.xlat_tlb_count(self._handle())


class Fixed(TimedUnit):
    """xlat_fixed: answers every request after `latency` cycles."""

    kind = "fixed"


class Walker(TimedUnit):
    """xlat_walker: a walker pool over a PageTable (`pt=`)."""

    kind = "walker"


class Cuckoo(Unit):
    """xlat_cuckoo: approximate set membership with deletion."""

    kind = "cuckoo"

    def insert(self, key):
        check(lib.xlat_cuckoo_insert(self._handle(), key), self.ctx._ptr)

    def remove(self, key):
        """Remove one copy of `key`'s fingerprint; NotFoundError when absent."""
        check(lib.xlat_cuckoo_remove(self._handle(), key), self.ctx._ptr)

    def __contains__(self, key):
        return bool(lib.xlat_cuckoo_contains(self._handle(), key))

    contains = __contains__

    def __len__(self):
        return lib.xlat_cuckoo_count(self._handle())

    def stats(self):
        return {"count": len(self), "slots": lib.xlat_cuckoo_slots(self._handle())}


class PhysMem(Unit):
    """xlat_physmem: simulated physical memory (regions, frame placement)."""

    kind = "physmem"

    def alloc(self, frames, region=0, align=1):
        """Allocate `frames` frames; returns the first PFN."""
        pfn = ffi.new("uint64_t *")
        check(lib.xlat_physmem_alloc(self._handle(), region, frames, align, pfn), self.ctx._ptr)
        return pfn[0]

    def free_frames(self, region=0):
        return lib.xlat_physmem_free_frames(self._handle(), region)


class PageTable(Unit):
    """xlat_pagetable: a radix page table in a PhysMem (`mem=`)."""

    kind = "pagetable"

    def map(self, pasid, vaddr, pfn, page_shift=12, perm=lib.XLAT_PERM_R | lib.XLAT_PERM_W):
        check(lib.xlat_pagetable_map(self._handle(), pasid, vaddr, pfn, page_shift, perm),
              self.ctx._ptr)

    def map_range(self, pasid, vaddr, nbytes, requester=0, perm=lib.XLAT_PERM_R | lib.XLAT_PERM_W):
        """Map a range on frames the placement chooses; returns the pages mapped."""
        return check(lib.xlat_pagetable_map_range(self._handle(), pasid, vaddr, nbytes,
                                                  requester, perm), self.ctx._ptr)

    def unmap(self, pasid, vaddr):
        check(lib.xlat_pagetable_unmap(self._handle(), pasid, vaddr), self.ctx._ptr)

    def lookup(self, pasid, vaddr):
        """The translation as a dict; FaultError when unmapped."""
        out = ffi.new("xlat_tlb_entry *")
        check(lib.xlat_pagetable_lookup(self._handle(), pasid, vaddr, out), self.ctx._ptr)
        return struct_to_dict(out)

    def walk(self, pasid, vaddr):
        """The walk's trace as a dict, `step` cut to the steps taken."""
        out = ffi.new("xlat_walk_trace *")
        check(lib.xlat_pagetable_walk(self._handle(), pasid, vaddr, out), self.ctx._ptr)
        trace = struct_to_dict(out)
        trace["step"] = trace["step"][:trace["steps"]]
        return trace


class Iommu(Unit):
    """xlat_iommu, as the system builder made it (a view)."""

    kind = "iommu"


class System(TimedUnit):
    """xlat_system: a whole multi-GPU system from one Config("system")."""

    kind = "system"

    def gpus(self):
        return lib.xlat_system_gpus(self._handle())

    def l1(self, gpu, cu):
        return self._part(Tlb, lib.xlat_system_l1(self._handle(), gpu, cu), "l1(%d, %d)" % (gpu, cu))

    def l2(self, gpu):
        return self._part(Tlb, lib.xlat_system_l2(self._handle(), gpu), "l2(%d)" % gpu)

    def iommu(self):
        return self._part(Iommu, lib.xlat_system_iommu(self._handle()), "iommu()")

    def _part(self, cls, ptr, what):
        if ptr == ffi.NULL:
            raise IndexError("xlat: the system has no %s" % what)
        return cls._view(self.ctx, ptr, self)

    def invalidate(self, pasid, vaddr):
        check(lib.xlat_system_invalidate(self._handle(), pasid, vaddr), self.ctx._ptr)

    def flush(self):
        check(lib.xlat_system_flush(self._handle()), self.ctx._ptr)

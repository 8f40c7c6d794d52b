/* The TLB as a structure against a plain model: a geometry from the first
 * bytes (sets x ways or unbounded, LRU, FIFO, random or PLRU, modulo or
 * hashed sets, which of 4K/64K/2M/1G pages), then insert, lookup, probe,
 * invalidate (one address, one PASID, everything) and flush, each answer
 * compared with the model's, victims included (for LRU and FIFO with
 * modulo sets the model picks them; otherwise it checks the library's
 * pick). The model keeps a flat list with one stamp per entry (the victim
 * of a full set is its oldest stamp), unlike the
 * recency lists of tests/tlb_model.c, which also runs here, with a seed
 * and the geometry from the input. Bad configs must be refused with INVAL
 * and a message; bad inserts (page_shift, a vpn too wide) change nothing. */
#include <string.h>

#include "fuzz.h"
#include "tlb_model.h"

/* Ops are at most one per input byte; an insert adds at most one entry. */
#define MAX_OPS 2048

typedef struct model_entry {
    uint32_t pasid;
    uint64_t vpn, pfn;
    uint8_t shift, perm;
    uint64_t stamp; /* LRU: last use; FIFO: insertion */
} model_entry;

typedef struct model {
    uint32_t sets, ways; /* sets 0: unbounded, nothing is ever evicted */
    int lru;
    /* Random and PLRU victims, and the sets of hashed indexing, are the
     * library's to choose: the model then checks the victim it names
     * (held, and with modulo indexing from the new entry's full set) and
     * follows it. */
    int own_victims, hashed;
    uint64_t clock;
    size_t n;
    model_entry e[MAX_OPS];
} model;

static const uint8_t page_shifts[] = {12, 16, 21, 30};

static uint32_t set_of(const model *m, uint64_t vpn)
{
    return m->sets ? (uint32_t)(vpn % m->sets) : 0;
}

static void remove_at(model *m, size_t i)
{
    m->e[i] = m->e[--m->n];
}

static model_entry *find(model *m, uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->e[i].pasid == pasid && m->e[i].vpn == vpn && m->e[i].shift == shift)
            return &m->e[i];
    return NULL;
}

/* The smallest page that translates vaddr, like the library's lookup. */
static model_entry *lookup(model *m, uint32_t pasid, uint64_t vaddr)
{
    model_entry *hit = NULL;
    for (size_t i = 0; i < m->n; i++) {
        model_entry *e = &m->e[i];
        if (e->pasid == pasid && e->vpn == vaddr >> e->shift && (!hit || e->shift < hit->shift))
            hit = e;
    }
    return hit;
}

/* Entries of vpn's set (modulo indexing), and the oldest of them. */
static uint32_t held_in_set(const model *m, uint64_t vpn, size_t *oldest)
{
    uint32_t set = set_of(m, vpn), held = 0;
    *oldest = m->n;
    for (size_t i = 0; i < m->n; i++)
        if (set_of(m, m->e[i].vpn) == set) {
            held++;
            if (*oldest == m->n || m->e[i].stamp < m->e[*oldest].stamp)
                *oldest = i;
        }
    return held;
}

/* An update or a new entry, made the most recent (an update is a use, for FIFO too). */
static void put(model *m, const model_entry *x)
{
    model_entry *old = find(m, x->pasid, x->vpn, x->shift);
    if (!old)
        old = &m->e[m->n++];
    *old = *x;
    old->stamp = ++m->clock;
}

/* Returns 1 and the victim when the set was full. */
static int insert(model *m, const model_entry *x, model_entry *victim)
{
    size_t oldest;
    int evicted = 0;
    if (!find(m, x->pasid, x->vpn, x->shift) && m->sets &&
        held_in_set(m, x->vpn, &oldest) == m->ways) {
        *victim = m->e[oldest];
        remove_at(m, oldest);
        evicted = 1;
    }
    put(m, x);
    return evicted;
}

/* The library chose: its victim `v` (when rc is 1) must be one the model
 * holds, from the new entry's full set where the model knows sets. */
static void follow_victim(model *m, const model_entry *x, int rc, const xlat_tlb_entry *v)
{
    size_t oldest;
    int update = find(m, x->pasid, x->vpn, x->shift) != NULL;
    int full = m->sets && !m->hashed && held_in_set(m, x->vpn, &oldest) == m->ways;
    FUZZ_CHECK(rc == 0 || rc == 1, "insert: %d", rc);
    FUZZ_CHECK(!update || rc == 0, "an update evicted");
    if (m->sets && !m->hashed && !update)
        FUZZ_CHECK(rc == full, "insert into a set %s: %d", full ? "full" : "with room", rc);
    if (rc == 1) {
        model_entry *held = find(m, v->pasid, v->vpn, v->page_shift);
        FUZZ_CHECK(held && held->pfn == v->pfn && held->perm == v->perm,
                   "victim (%u, 0x%llx, %u) was not held", v->pasid, (unsigned long long)v->vpn,
                   v->page_shift);
        FUZZ_CHECK(m->hashed || set_of(m, v->vpn) == set_of(m, x->vpn), "victim of another set");
        remove_at(m, (size_t)(held - m->e));
    }
    put(m, x);
}

static int invalidate(model *m, int (*match)(const model_entry *, uint32_t, uint64_t),
                      uint32_t pasid, uint64_t vaddr)
{
    int removed = 0;
    for (size_t i = m->n; i-- > 0;)
        if (match(&m->e[i], pasid, vaddr)) {
            remove_at(m, i);
            removed++;
        }
    return removed;
}

static int translates(const model_entry *e, uint32_t pasid, uint64_t vaddr)
{
    return e->pasid == pasid && e->vpn == vaddr >> e->shift;
}

static int of_pasid(const model_entry *e, uint32_t pasid, uint64_t vaddr)
{
    (void)vaddr;
    return e->pasid == pasid;
}

static int any(const model_entry *e, uint32_t pasid, uint64_t vaddr)
{
    (void)e, (void)pasid, (void)vaddr;
    return 1;
}

/* Addresses in 4 GiB of three PASIDs, so that pages of every size overlap. */
static uint64_t read_vaddr(fuzz_input *in)
{
    uint64_t v = (uint64_t)(fuzz_u8(in) % 4) << 30;
    v |= (uint64_t)(fuzz_u8(in) % 4) << 21;
    v |= (uint64_t)(fuzz_u8(in) % 64) << 12;
    return v | fuzz_u8(in);
}

static void same_entry(const xlat_tlb_entry *got, const model_entry *want, const char *what)
{
    FUZZ_CHECK(got->pasid == want->pasid && got->vpn == want->vpn &&
                   got->page_shift == want->shift && got->pfn == want->pfn &&
                   got->perm == want->perm,
               "%s: got (%u, 0x%llx, %u, 0x%llx), model (%u, 0x%llx, %u, 0x%llx)", what,
               got->pasid, (unsigned long long)got->vpn, got->page_shift,
               (unsigned long long)got->pfn, want->pasid, (unsigned long long)want->vpn,
               want->shift, (unsigned long long)want->pfn);
}

static void do_lookup(xlat_tlb *t, model *m, uint32_t pasid, uint64_t vaddr, int touch)
{
    xlat_tlb_entry got;
    model_entry *want = lookup(m, pasid, vaddr);
    int rc = touch ? xlat_tlb_lookup(t, pasid, vaddr, &got) : xlat_tlb_probe(t, pasid, vaddr, &got);
    FUZZ_CHECK(rc == (want ? XLAT_OK : XLAT_ERR_NOT_FOUND), "lookup 0x%llx: %d, model %s",
               (unsigned long long)vaddr, rc, want ? "hit" : "miss");
    if (!want)
        return;
    same_entry(&got, want, "hit");
    if (touch && m->lru)
        want->stamp = ++m->clock;
}

/* What the eviction callback heard: it must hear of exactly the victims
 * insert returns. */
typedef struct heard {
    int calls;
    xlat_tlb_entry last;
} heard;

static void on_evict(void *user, xlat_tlb *t, const xlat_tlb_entry *victim)
{
    heard *h = user;
    (void)t;
    h->calls++;
    h->last = *victim;
}

static void do_insert(xlat_tlb *t, model *m, fuzz_input *in, uint32_t pasid, uint64_t vaddr,
                      uint8_t sizes)
{
    uint8_t pick = fuzz_u8(in);
    uint64_t pfn = fuzz_u16(in);
    uint8_t perm = fuzz_u8(in) & 0xf;
    model_entry x = {.pasid = pasid, .pfn = pfn, .shift = page_shifts[pick % 4], .perm = perm};
    if (!(sizes & 1u << (pick % 4)))
        x.shift = 12;
    x.vpn = vaddr >> x.shift;
    xlat_tlb_entry e = {.pasid = pasid, .vpn = x.vpn, .pfn = x.pfn, .page_shift = x.shift,
                        .perm = x.perm};
    xlat_tlb_entry victim;
    if (pick >= 0xf0) { /* bad: a shift outside 12..63, or a vpn that does not fit */
        if (pick & 1)
            e.page_shift = pick & 2 ? 11 : 64;
        else
            e.vpn = UINT64_MAX >> 1;
        size_t before = xlat_tlb_count(t);
        int rc = xlat_tlb_insert(t, &e, &victim);
        FUZZ_CHECK(rc == XLAT_ERR_INVAL && xlat_tlb_count(t) == before,
                   "bad insert (shift %u vpn 0x%llx): %d", e.page_shift,
                   (unsigned long long)e.vpn, rc);
        return;
    }
    heard h = {0};
    xlat_tlb_set_evict_fn(t, on_evict, &h);
    if (m->own_victims) {
        int rc = xlat_tlb_insert(t, &e, &victim);
        FUZZ_CHECK(h.calls == rc, "%d eviction callbacks for insert's %d", h.calls, rc);
        follow_victim(m, &x, rc, &victim);
        xlat_tlb_set_evict_fn(t, NULL, NULL);
        return;
    }
    model_entry want;
    int evicted = insert(m, &x, &want);
    int rc = xlat_tlb_insert(t, &e, &victim);
    FUZZ_CHECK(rc == evicted, "insert (%u, 0x%llx, %u): %d, model %d", pasid,
               (unsigned long long)x.vpn, x.shift, rc, evicted);
    FUZZ_CHECK(h.calls == evicted, "%d eviction callbacks for %d victims", h.calls, evicted);
    if (evicted) {
        same_entry(&victim, &want, "victim");
        same_entry(&h.last, &want, "victim heard");
    }
    xlat_tlb_set_evict_fn(t, NULL, NULL);
}

static void run_ops(xlat_tlb *t, model *m, fuzz_input *in, uint8_t sizes)
{
    for (int ops = 0; fuzz_more(in) && ops < MAX_OPS; ops++) {
        uint8_t op = fuzz_u8(in);
        uint32_t pasid = fuzz_u8(in) % 3;
        uint64_t vaddr = read_vaddr(in);
        int rc, want;
        switch (op % 8) {
        case 0: case 1:
            do_lookup(t, m, pasid, vaddr, 1);
            break;
        case 2:
            do_lookup(t, m, pasid, vaddr, 0);
            break;
        case 3: case 4:
            do_insert(t, m, in, pasid, vaddr, sizes);
            break;
        case 5:
            want = invalidate(m, translates, pasid, vaddr);
            rc = xlat_tlb_invalidate(t, pasid, vaddr);
            FUZZ_CHECK(rc == want, "invalidate 0x%llx: %d, model %d", (unsigned long long)vaddr,
                       rc, want);
            break;
        case 6:
            want = invalidate(m, of_pasid, pasid, 0);
            rc = xlat_tlb_invalidate_pasid(t, pasid);
            FUZZ_CHECK(rc == want, "invalidate_pasid %u: %d, model %d", pasid, rc, want);
            break;
        default:
            if (op != 0xff) /* rare, or it would hide everything else */
                break;
            want = invalidate(m, any, 0, 0);
            rc = xlat_tlb_flush(t);
            FUZZ_CHECK(rc == want, "flush: %d, model %d", rc, want);
            break;
        }
        FUZZ_CHECK(xlat_tlb_count(t) == m->n, "count %zu, model %zu", xlat_tlb_count(t), m->n);
    }
}

/* A config from raw bytes; refused exactly when the header says so. */
static void check_config_refusal(xlat_ctx *ctx, fuzz_input *in)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.entries = fuzz_u8(in) % 20;
    cfg.ways = fuzz_u8(in) % 6;
    cfg.repl = (xlat_repl)(fuzz_u8(in) % 6);
    cfg.index = (xlat_tlb_index)(fuzz_u8(in) % 3);
    cfg.mshrs = fuzz_u8(in) % 2;
    cfg.ports = 1;
    int valid = cfg.repl <= XLAT_REPL_PLRU && cfg.index <= XLAT_TLB_INDEX_HASH && cfg.mshrs >= 1;
    if (cfg.entries)
        valid = valid && cfg.ways && cfg.entries % cfg.ways == 0 &&
                (cfg.repl != XLAT_REPL_PLRU || (cfg.ways & (cfg.ways - 1)) == 0);
    int rc = xlat_tlb_create(ctx, &cfg, &t);
    FUZZ_CHECK(rc == (valid ? XLAT_OK : XLAT_ERR_INVAL),
               "create(entries %u ways %u repl %d index %d mshrs %u): %d", cfg.entries, cfg.ways,
               (int)cfg.repl, (int)cfg.index, cfg.mshrs, rc);
    if (!valid)
        FUZZ_CHECK(xlat_ctx_errmsg(ctx)[0] != '\0', "refused without a message");
    else
        FUZZ_CHECK(xlat_tlb_capacity(t) == cfg.entries || cfg.entries == 0, "capacity %zu",
                   xlat_tlb_capacity(t));
    xlat_tlb_destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    xlat_ctx *ctx;
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return 0;
    check_config_refusal(ctx, &in);
    uint8_t shape = fuzz_u8(&in), sizes = fuzz_u8(&in) | 1;
    xlat_tlb_config cfg;
    xlat_tlb *t;
    xlat_tlb_config_init(&cfg);
    cfg.ways = 1 + shape % 8;
    cfg.entries = shape >= 0xf0 ? 0 : cfg.ways * (1 + (shape >> 3) % 8);
    cfg.repl = shape & 0x40 ? XLAT_REPL_FIFO : XLAT_REPL_LRU;
    /* Bits 4..6 of `sizes`: other policies and hashed sets, whose victims the
     * library chooses (PLRU takes the ways rounded down to a power of two). */
    if ((sizes >> 4 & 3) == 1)
        cfg.repl = XLAT_REPL_RANDOM;
    if ((sizes >> 4 & 3) == 2) {
        cfg.repl = XLAT_REPL_PLRU;
        cfg.ways = cfg.ways >= 4 ? (cfg.ways >= 8 ? 8 : 4) : cfg.ways >= 2 ? 2 : 1;
        cfg.entries = cfg.entries ? cfg.ways * (1 + (shape >> 3) % 8) : 0;
    }
    cfg.index = sizes & 0x40 ? XLAT_TLB_INDEX_HASH : XLAT_TLB_INDEX_MODULO;
    FUZZ_CHECK(xlat_tlb_create(ctx, &cfg, &t) == XLAT_OK, "create: %s", xlat_ctx_errmsg(ctx));
    model *m = calloc(1, sizeof(*m));
    if (m) {
        m->sets = cfg.entries / cfg.ways;
        m->ways = cfg.ways;
        m->lru = cfg.repl == XLAT_REPL_LRU;
        m->hashed = cfg.index == XLAT_TLB_INDEX_HASH;
        m->own_victims = m->hashed || cfg.repl == XLAT_REPL_RANDOM || cfg.repl == XLAT_REPL_PLRU;
        run_ops(t, m, &in, sizes);
    }
    free(m);
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
    /* The recency-list model, on the same geometry with a seed from the input. */
    if (cfg.entries && (cfg.repl == XLAT_REPL_LRU || cfg.repl == XLAT_REPL_FIFO)) {
        uint64_t seed = size ? data[size - 1] : 0;
        uint64_t bad = tlb_model_run(seed, cfg.entries, cfg.ways, cfg.repl, 64);
        FUZZ_CHECK(bad == 0, "tlb_model_run(%llu, %u, %u): %llu disagreements",
                   (unsigned long long)seed, cfg.entries, cfg.ways, (unsigned long long)bad);
    }
    return 0;
}

/* cfi.c: the unwind rule at a code address, from DWARF call-frame information. See cfi.h.
 * Reads the object's .eh_frame_hdr binary-search table (the only layout the GNU linker writes:
 * 4-byte entries relative to the header), then the FDE and its CIE, and runs the CIE's and
 * the FDE's call-frame instructions up to the address. Only RSP, RBP and the return address
 * are tracked; rules for other registers are parsed and ignored. Any opcode, encoding or
 * layout not understood gives CFI_COMPLEX, never a guess; an address no FDE covers gives
 * CFI_NO_INFO. */
#include "cfi.h"

#include "selfcost.h"

#include <dlfcn.h>
#include <string.h>

#define REG_RBP 6
#define REG_RSP 7
#define MAX_REMEMBER 8

/* Pointer encodings (DW_EH_PE_*): the low nibble is the format, bits 4-6 the base. */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_BASE 0x70
#define PE_PCREL 0x10
#define PE_INDIRECT 0x80
#define PE_HDR_TABLE 0x3b /* datarel | sdata4: the .eh_frame_hdr search table */

enum how { SAME = 0, OFFSET, UNDEF, OTHER };

struct reg {
    uint8_t how;
    int64_t off; /* OFFSET: saved at CFA + off */
};

struct state {
    uint8_t cfa_reg;
    uint8_t cfa_expr; /* the CFA is a DWARF expression */
    int64_t cfa_off;
    struct reg bp, ra;
};

struct cie {
    const unsigned char *insns, *end;
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_reg;
    uint8_t fde_enc;
    uint8_t has_aug_data; /* 'z' */
    uint8_t signal;       /* 'S' */
};

struct reader {
    const unsigned char *p, *end;
    int bad;
};

static uint8_t rd_u8(struct reader *r)
{
    if (r->p >= r->end) {
        r->bad = 1;
        return 0;
    }
    return *r->p++;
}

static uint64_t rd_fixed(struct reader *r, size_t n)
{
    uint64_t v = 0;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->p, n); /* x86_64: little-endian, as the tables */
    r->p += n;
    return v;
}

static uint64_t rd_uleb(struct reader *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t b = rd_u8(r);
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80) || r->bad) return v;
    }
}

static int64_t rd_sleb(struct reader *r)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
        b = rd_u8(r);
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while ((b & 0x80) && !r->bad);
    if (shift < 64 && (b & 0x40)) v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

/* An encoded pointer; only absolute and pc-relative bases occur in .eh_frame on x86_64. */
static uintptr_t rd_encoded(struct reader *r, uint8_t enc)
{
    uintptr_t field = (uintptr_t)r->p;
    uint64_t v;
    switch (enc & PE_FORMAT) {
    case 0x00:
        v = rd_fixed(r, 8);
        break; /* absptr */
    case 0x01:
        v = rd_uleb(r);
        break; /* uleb128 */
    case 0x02:
        v = rd_fixed(r, 2);
        break; /* udata2 */
    case 0x03:
        v = rd_fixed(r, 4);
        break; /* udata4 */
    case 0x04:
        v = rd_fixed(r, 8);
        break; /* udata8 */
    case 0x09:
        v = (uint64_t)rd_sleb(r);
        break; /* sleb128 */
    case 0x0a:
        v = (uint64_t)(int16_t)rd_fixed(r, 2);
        break; /* sdata2 */
    case 0x0b:
        v = (uint64_t)(int32_t)rd_fixed(r, 4);
        break; /* sdata4 */
    case 0x0c:
        v = rd_fixed(r, 8);
        break; /* sdata8 */
    default:
        r->bad = 1;
        return 0;
    }
    switch (enc & PE_BASE) {
    case 0x00:
        return (uintptr_t)v;
    case PE_PCREL:
        return field + (uintptr_t)v;
    default:
        r->bad = 1;
        return 0;
    }
}

/* The bounds of the entry (CIE or FDE) at p; r is left at its id field. 0 if malformed. */
static int entry_open(const unsigned char *p, struct reader *r, int *wide)
{
    struct reader h = {p, p + 12, 0};
    uint64_t len = rd_fixed(&h, 4);
    *wide = len == 0xffffffffu;
    if (*wide) len = rd_fixed(&h, 8);
    if (h.bad || len == 0) return 0;
    r->p = h.p;
    r->end = h.p + len;
    r->bad = 0;
    return 1;
}

static int cie_parse(const unsigned char *p, struct cie *c)
{
    struct reader r;
    int wide;
    if (!entry_open(p, &r, &wide) || rd_fixed(&r, wide ? 8 : 4) != 0) return 0;
    uint8_t version = rd_u8(&r);
    if (version != 1 && version != 3 && version != 4) return 0;
    const char *aug = (const char *)r.p;
    size_t aug_len = strnlen(aug, (size_t)(r.end - r.p));
    if (aug_len == (size_t)(r.end - r.p)) return 0;
    r.p += aug_len + 1;
    if (version == 4 && (rd_u8(&r) != 8 || rd_u8(&r) != 0)) return 0; /* address, segment size */
    memset(c, 0, sizeof *c);
    c->code_align = rd_uleb(&r);
    c->data_align = rd_sleb(&r);
    c->ra_reg = version == 1 ? rd_u8(&r) : rd_uleb(&r);
    if (aug[0] == 'z') {
        c->has_aug_data = 1;
        uint64_t n = rd_uleb(&r);
        if (r.bad || n > (uint64_t)(r.end - r.p)) return 0;
        struct reader a = {r.p, r.p + n, 0};
        for (const char *s = aug + 1; *s && !a.bad; s++) {
            if (*s == 'R')
                c->fde_enc = rd_u8(&a);
            else if (*s == 'L')
                (void)rd_u8(&a);
            else if (*s == 'P')
                (void)rd_encoded(&a, (uint8_t)(rd_u8(&a) & ~PE_INDIRECT));
            else if (*s == 'S')
                c->signal = 1;
            else if (*s != 'B' && *s != 'G')
                return 0;
        }
        if (a.bad) return 0;
        r.p += n;
    } else if (aug[0] != '\0') {
        return 0;
    }
    c->insns = r.p;
    c->end = r.end;
    return !r.bad;
}

static void set_reg(struct state *s, uint64_t reg, uint64_t ra_reg, uint8_t how, int64_t off)
{
    if (reg == REG_RBP)
        s->bp = (struct reg){how, off};
    else if (reg == ra_reg)
        s->ra = (struct reg){how, off};
}

static void restore(struct state *s, const struct state *initial, uint64_t reg, uint64_t ra_reg)
{
    if (reg == REG_RBP)
        s->bp = initial->bp;
    else if (reg == ra_reg)
        s->ra = initial->ra;
}

static void skip(struct reader *r, uint64_t n)
{
    if (n > (uint64_t)(r->end - r->p))
        r->bad = 1;
    else
        r->p += n;
}

/* Runs instructions [r) with the location at *loc until one would move past pc. 0 on an opcode
 * this unwinder does not model. */
static int run(struct reader *r, const struct cie *c, uintptr_t *loc, uintptr_t pc, struct state *s,
               const struct state *initial)
{
    struct state saved[MAX_REMEMBER];
    int nsaved = 0;
    while (r->p < r->end && !r->bad) {
        uint8_t op = rd_u8(r);
        uint64_t reg, delta = 0;
        int advance = 0;
        switch (op >> 6) {
        case 1: /* DW_CFA_advance_loc */
            delta = op & 0x3f;
            advance = 1;
            break;
        case 2: /* DW_CFA_offset */
            set_reg(s, op & 0x3f, c->ra_reg, OFFSET, (int64_t)rd_uleb(r) * c->data_align);
            continue;
        case 3: /* DW_CFA_restore */
            restore(s, initial, op & 0x3f, c->ra_reg);
            continue;
        default:
            break;
        }
        if (!advance) switch (op) {
            case 0x00:
                continue; /* nop */
            case 0x01: {  /* set_loc */
                uintptr_t to = rd_encoded(r, c->fde_enc);
                if (r->bad || to > pc) return !r->bad;
                *loc = to;
                continue;
            }
            case 0x02:
                delta = rd_fixed(r, 1), advance = 1;
                break;
            case 0x03:
                delta = rd_fixed(r, 2), advance = 1;
                break;
            case 0x04:
                delta = rd_fixed(r, 4), advance = 1;
                break;
            case 0x05: /* offset_extended */
                reg = rd_uleb(r);
                set_reg(s, reg, c->ra_reg, OFFSET, (int64_t)rd_uleb(r) * c->data_align);
                continue;
            case 0x11: /* offset_extended_sf */
                reg = rd_uleb(r);
                set_reg(s, reg, c->ra_reg, OFFSET, rd_sleb(r) * c->data_align);
                continue;
            case 0x06: /* restore_extended */
                restore(s, initial, rd_uleb(r), c->ra_reg);
                continue;
            case 0x07:
                set_reg(s, rd_uleb(r), c->ra_reg, UNDEF, 0);
                continue;
            case 0x08:
                set_reg(s, rd_uleb(r), c->ra_reg, SAME, 0);
                continue;
            case 0x09: /* register */
                reg = rd_uleb(r);
                (void)rd_uleb(r);
                set_reg(s, reg, c->ra_reg, OTHER, 0);
                continue;
            case 0x0a: /* remember_state */
                if (nsaved == MAX_REMEMBER) return 0;
                saved[nsaved++] = *s;
                continue;
            case 0x0b: /* restore_state */
                if (nsaved == 0) return 0;
                *s = saved[--nsaved];
                continue;
            case 0x0c: /* def_cfa */
                s->cfa_reg = (uint8_t)rd_uleb(r);
                s->cfa_off = (int64_t)rd_uleb(r);
                s->cfa_expr = 0;
                continue;
            case 0x12: /* def_cfa_sf */
                s->cfa_reg = (uint8_t)rd_uleb(r);
                s->cfa_off = rd_sleb(r) * c->data_align;
                s->cfa_expr = 0;
                continue;
            case 0x0d:
                s->cfa_reg = (uint8_t)rd_uleb(r), s->cfa_expr = 0;
                continue;
            case 0x0e:
                s->cfa_off = (int64_t)rd_uleb(r);
                continue;
            case 0x13:
                s->cfa_off = rd_sleb(r) * c->data_align;
                continue;
            case 0x0f: /* def_cfa_expression */
                skip(r, rd_uleb(r));
                s->cfa_expr = 1;
                continue;
            case 0x10: /* expression */
            case 0x16: /* val_expression */
                reg = rd_uleb(r);
                skip(r, rd_uleb(r));
                set_reg(s, reg, c->ra_reg, OTHER, 0);
                continue;
            case 0x14: /* val_offset */
            case 0x15: /* val_offset_sf */
                reg = rd_uleb(r);
                (void)rd_uleb(r);
                set_reg(s, reg, c->ra_reg, OTHER, 0);
                continue;
            case 0x2e:
                (void)rd_uleb(r);
                continue; /* GNU_args_size */
            case 0x2f:    /* GNU_negative_offset_extended */
                reg = rd_uleb(r);
                set_reg(s, reg, c->ra_reg, OFFSET, -(int64_t)rd_uleb(r) * c->data_align);
                continue;
            default:
                return 0;
            }
        if (r->bad) return 0;
        uintptr_t next = *loc + (uintptr_t)(delta * c->code_align);
        if (next > pc) return 1;
        *loc = next;
    }
    return !r->bad;
}

static struct cfi_rule rule_of(const struct state *s, const struct cie *c)
{
    const struct cfi_rule complex = {.kind = CFI_COMPLEX};
    if (c->signal) return (struct cfi_rule){.kind = CFI_SIGNAL};
    if (s->ra.how == UNDEF) return (struct cfi_rule){.kind = CFI_OUTERMOST};
    if (s->cfa_expr || (s->cfa_reg != REG_RSP && s->cfa_reg != REG_RBP)) return complex;
    if (s->cfa_off < 8 || s->cfa_off >= (int64_t)CFI_MAX_CFA_OFF) return complex;
    if (s->ra.how != OFFSET || s->ra.off != -8) return complex;
    struct cfi_rule rule = {
        .kind = s->cfa_reg == REG_RSP ? CFI_CFA_SP : CFI_CFA_BP,
        .cfa_off = (uint32_t)s->cfa_off,
    };
    if (s->bp.how == OFFSET) {
        if (s->bp.off >= 0 || s->bp.off % 8 || -s->bp.off / 8 > (int64_t)CFI_MAX_BP_SLOT)
            return complex;
        rule.bp_slot = (uint16_t)(-s->bp.off / 8);
    } else if (s->bp.how == OTHER) {
        return complex;
    }
    return rule;
}

struct cfi_rule cfi_rule_from_fde(const unsigned char *fde, uintptr_t pc)
{
    const struct cfi_rule complex = {.kind = CFI_COMPLEX};
    struct reader r;
    int wide;
    if (!entry_open(fde, &r, &wide)) return complex;
    const unsigned char *id_field = r.p;
    uint64_t cie_off = rd_fixed(&r, wide ? 8 : 4);
    if (r.bad || cie_off == 0 || cie_off > (uintptr_t)id_field) return complex;
    struct cie c;
    if (!cie_parse(id_field - cie_off, &c)) return complex;
    uintptr_t begin = rd_encoded(&r, c.fde_enc);
    uintptr_t range = rd_encoded(&r, c.fde_enc & PE_FORMAT);
    if (c.has_aug_data) skip(&r, rd_uleb(&r));
    if (r.bad) return complex;
    if (pc < begin || pc - begin >= range) return (struct cfi_rule){.kind = CFI_NO_INFO};

    struct state s = {.cfa_reg = REG_RSP};
    uintptr_t loc = begin;
    struct reader ci = {c.insns, c.end, 0};
    if (!run(&ci, &c, &loc, UINTPTR_MAX, &s, &s)) return complex;
    const struct state initial = s;
    loc = begin;
    if (!run(&r, &c, &loc, pc, &s, &initial)) return complex;
    return rule_of(&s, &c);
}

/* From the interpolation guess g, steps of 1, 2, 4, ... up or down (whichever side of rel t[g]
 * is on) until one passes rel: [*lo, *hi) then holds the answer, t[*lo] <= rel < t[*hi]
 * (t[count]: past every rel). */
static void bracket(const int32_t *t, uint64_t count, intptr_t rel, uint64_t g, uint64_t *lo,
                    uint64_t *hi)
{
    uint64_t step = 1;
    if (t[2 * g] <= rel) {
        for (*lo = g; g + step < count && t[2 * (g + step)] <= rel; step *= 2)
            *lo = g + step;
        *hi = g + step < count ? g + step : count;
    } else {
        for (*hi = g; step <= g && t[2 * (g - step)] > rel; step *= 2)
            *hi = g - step;
        *lo = step <= g ? g - step : 0;
    }
}

uint64_t cfi_fde_index(const int32_t *t, uint64_t count, intptr_t rel)
{
    int64_t first = t[0], last = t[2 * (count - 1)];
    if (rel >= last) return count - 1; /* (also when first == last) */
    uint64_t lo, hi,
        g = (uint64_t)((unsigned __int128)(uint64_t)(rel - first) * (count - 1) /
                       (uint64_t)(last - first)); /* < count - 1 */
    bracket(t, count, rel, g, &lo, &hi);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (t[2 * mid] <= rel)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static struct cfi_rule rule_for(uintptr_t pc)
{
    const struct cfi_rule complex = {.kind = CFI_COMPLEX}, none = {.kind = CFI_NO_INFO};
    struct dl_find_object fo;
    if (_dl_find_object((void *)pc, &fo) != 0 || !fo.dlfo_eh_frame) return none;
    const unsigned char *hdr = fo.dlfo_eh_frame;
    if (hdr[0] != 1 || hdr[3] != PE_HDR_TABLE || hdr[2] == PE_OMIT) return complex;
    struct reader r = {hdr + 4, hdr + 4 + 16, 0}; /* two encoded words, at most 8 bytes each */
    (void)rd_encoded(&r, hdr[1]);
    uint64_t count = rd_encoded(&r, hdr[2]);
    if (r.bad) return complex;
    if (count == 0) return none;
    const int32_t *table = (const int32_t *)(const void *)r.p; /* {initial loc, fde} pairs */
    intptr_t rel = (intptr_t)(pc - (uintptr_t)hdr);
    if (rel < table[0]) return none;
    return cfi_rule_from_fde(hdr + table[2 * cfi_fde_index(table, count, rel) + 1], pc);
}

struct cfi_rule cfi_rule_for(uintptr_t pc)
{
    uint64_t t0 = selfcost_begin();
    struct cfi_rule r = rule_for(pc);
    selfcost_end(SC_RULE, t0, 1);
    return r;
}

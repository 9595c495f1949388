/* pages.h: what the library's memory costs in pages. The first touch of each page costs a page
 * fault (2.3 us each on the VM of docs/cost.md, "Page faults"), and a short process touches
 * most of what the tracer sets up, so its start-up pays for every page its state spreads over.
 * - GT_BIG puts a large array in .lbss (x86-64's large-data section, after .bss), page-aligned:
 *   the small variables share a few pages of .bss instead of lying between multi-megabyte arrays
 *   (a traced /bin/true touched 17 pages of .bss before), and a big array touched only at its
 *   start costs one page.
 * - gt_touch_pages writes one byte of each page of a fresh anonymous mapping that will be
 *   touched anyway (a hash table's first level): a first touch that reads maps the zero page and
 *   the first write then faults again; writing first costs one fault.
 * - GT_FORK_WORDS puts a small variable that a fork writes, in its parent or in its child (the
 *   output lock, the fork's and the child's own state), with the others in one section, a cache
 *   line each: after a fork, the first write to each page of private memory is a copy-on-write
 *   fault (in the parent, with a TLB shootdown on each CPU that runs another of its threads), so
 *   they cost one or two faults a side, not one per module (a page each, 2-10 us each measured
 *   here while the parent's other threads ran).
 * Invariants: GT_BIG only on static-storage, zero-initialised arrays (or structs holding one) of
 * a page or more (.lbss is NOBITS); GT_FORK_WORDS only on static-storage variables of a few
 * cache lines at most; gt_touch_pages only on memory that is zero and that no other thread uses
 * yet. */
#ifndef GOTRACE_PAGES_H
#define GOTRACE_PAGES_H
#include <stddef.h>

#define GT_BIG __attribute__((section(".lbss.gotrace"), aligned(4096)))
#define GT_PAGE ((size_t)4096) /* the page size the tracer lays its memory out by */
#define GT_FORK_WORDS __attribute__((section("gotrace_fork"), aligned(64)))

static inline void gt_touch_pages(void *p, size_t len)
{
    for (size_t off = 0; off < len; off += GT_PAGE)
        ((volatile char *)p)[off] = 0;
}
#endif

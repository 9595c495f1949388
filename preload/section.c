/* section.c: the mode of the seqlock sections and the flusher's side of the asymmetric fence.
 * See section.h for the invariants. */
#include "section.h"

#include "log.h"
#include "real.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>

int gt_sect_asym;

static long membarrier(int cmd)
{
    return REAL(syscall)(SYS_membarrier, cmd, 0, 0);
}

void section_init(void)
{
    gt_sect_asym = 0;
    if (!GT_SECT_CAN_ASYM) return;
    /* Registered (and proved to work once) or the locked mode. */
    gt_sect_asym = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
                   membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
    gt_debug("seqlock sections: %s", gt_sect_asym ? "asymmetric (membarrier)" : "locked");
}

int section_sync(void)
{
    if (!gt_sect_asym) return 0;
    return membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ? 0 : -1;
}

/* fuzz_decoder.c: libFuzzer target for the whole decoding pipeline (reader, ordering,
 * validator, analysis): any input must decode to events and/or a clean error, without
 * crashing, hanging or unbounded allocation. Invariant: the input is fed through a memfd so
 * the real file-reading path (buffered reads, look-ahead) is what gets fuzzed. */
#include "analysis.h"
#include "decode.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("trace", MFD_CLOEXEC);
    if (fd < 0) return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    lseek(fd, 0, SEEK_SET);
    struct gd_dec d;
    if (gd_dec_fdopen(&d, fd, (size_t)64 << 20) == 0) {
        struct gd_ana a;
        gd_ana_init(&a, NULL, NULL);
        struct gd_tev ev;
        while (gd_dec_next(&d, &ev) > 0)
            if (gd_ana_event(&a, &ev, &d.gen)) break;
        gd_ana_finish(&a);
        gd_ana_free(&a);
    }
    d.rd.fd = -1; /* closed below */
    gd_dec_close(&d);
    close(fd);
    return 0;
}

/* gendata.c: writes N MiB of deterministic, text-like compressible data to stdout (words drawn
 * from a fixed vocabulary with a skewed distribution, in lines), the input of the xz workload.
 * Invariant: the same N gives the same bytes on every machine (own PRNG, no locale). */
#include "common.h"

#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

int main(int argc, char **argv)
{
    long mib = arg_count(argc, argv, 50);
    enum { VOCAB = 4096 };
    static char words[VOCAB][12];
    for (int i = 0; i < VOCAB; i++) {
        int len = 2 + (int)(next() % 9);
        for (int k = 0; k < len; k++)
            words[i][k] = (char)('a' + next() % 26);
        words[i][len] = 0;
    }
    static char buf[1 << 16];
    size_t fill = 0, total = 0, want = (size_t)mib << 20;
    int col = 0;
    while (total < want) {
        /* Skewed pick: the minimum of two draws favours the first words. */
        uint32_t a = next() % VOCAB, b = next() % VOCAB;
        const char *w = words[a < b ? a : b];
        size_t len = strlen(w);
        if (fill + len + 1 > sizeof buf) {
            if (fwrite(buf, 1, fill, stdout) != fill) die("fwrite");
            fill = 0;
        }
        memcpy(buf + fill, w, len);
        fill += len;
        col += (int)len + 1;
        buf[fill++] = col > 72 ? '\n' : ' ';
        if (col > 72) col = 0;
        total += len + 1;
    }
    if (fwrite(buf, 1, fill, stdout) != fill) die("fwrite");
    return 0;
}

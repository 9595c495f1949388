/* main.c: placeholder command line of the gotrace decoder. */
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        puts("usage: gotrace COMMAND [ARGS]  (commands arrive with the decoder)");
        return 0;
    }
    fputs("gotrace: no commands yet; see --help\n", stderr);
    return 2;
}

/*
 * replay.c - runs a fuzz target's LLVMFuzzerTestOneInput once on each file
 * named on the command line, without libFuzzer, so `make test` replays
 * every checked-in corpus file under the test build's ASan/UBSan.
 * Prints "replay: N files" and exits 0; a crash, sanitizer report or
 * broken property aborts with the file named on stderr first.
 */
#include "fuzz_common.h"

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 2;
        }
        size_t cap = 1 << 16, len = 0;
        uint8_t *buf = dnp_malloc(cap);
        while (buf != NULL) {
            len += fread(buf + len, 1, cap - len, f);
            if (len < cap)
                break;
            uint8_t *bigger = dnp_realloc(buf, cap * 2);
            if (bigger == NULL)
                dnp_free(buf);
            buf = bigger;
            cap *= 2;
        }
        fclose(f);
        if (buf == NULL) {
            fprintf(stderr, "replay: out of memory reading %s\n", argv[i]);
            return 2;
        }
        fprintf(stderr, "replay: %s\n", argv[i]);
        LLVMFuzzerTestOneInput(buf, len);
        dnp_free(buf);
        n++;
    }
    printf("replay: %d files\n", n);
    return 0;
}

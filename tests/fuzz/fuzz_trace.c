/* Fuzz target: the OTF2 trace reading of `mpiscope report` (the wait-state
 * analysis, tools/analysis/waitstate.c, through ws_analyze). A real archive of
 * a 2-rank run (tests/fuzz/trace-seed/: anchor, global definitions, and each
 * location's definitions and events) is copied into a scratch directory for
 * every input; byte 0 of the input picks one of its six files and the rest
 * replaces that file's bytes. The corpus holds each file unchanged, so the
 * fuzzer starts from valid records and mutates them. A corrupted archive
 * must give a result or an error message, never a crash, a hang or a leak.
 * The seed's path is compiled in (MSC_FUZZ_TRACE_SEED).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "waitstate.h"

static const char *const files[] = {"traces.otf2",  "traces.def",   "traces/0.def",
                                    "traces/0.evt", "traces/1.def", "traces/1.evt"};
enum { NFILES = sizeof files / sizeof *files };
static struct {
    uint8_t *data;
    size_t size;
} seed[NFILES];
static char dir[64];

static void check(int ok)
{
    if (!ok) abort();
}

static void put(const char *name, const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    check(f != NULL);
    check(size == 0 || fwrite(data, 1, size, f) == size);
    check(fclose(f) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    for (int i = 0; i < NFILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", MSC_FUZZ_TRACE_SEED, files[i]);
        FILE *f = fopen(path, "rb");
        check(f != NULL);
        check(fseek(f, 0, SEEK_END) == 0);
        long n = ftell(f);
        check(n >= 0 && fseek(f, 0, SEEK_SET) == 0);
        seed[i].size = (size_t)n;
        seed[i].data = malloc(seed[i].size + 1);
        check(seed[i].data && fread(seed[i].data, 1, seed[i].size, f) == seed[i].size);
        fclose(f);
    }
    snprintf(dir, sizeof dir, "/tmp/mpiscope-fuzz-trace-%ld", (long)getpid());
    char sub[128];
    snprintf(sub, sizeof sub, "%s/traces", dir);
    check((mkdir(dir, 0700) == 0 || access(dir, W_OK) == 0) &&
          (mkdir(sub, 0700) == 0 || access(sub, W_OK) == 0));
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    int pick = data[0] % NFILES;
    for (int i = 0; i < NFILES; i++)
        if (i == pick)
            put(files[i], data + 1, size - 1);
        else
            put(files[i], seed[i].data, seed[i].size);
    char anchor[128], err[512] = "";
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    ws_result_t *r = ws_analyze(anchor, false, err, sizeof err);
    if (!r) {
        check(err[0] != 0); /* a refusal says why */
        return 0;
    }
    check(r->ranks >= 0 && r->nsites >= 0);
    FILE *devnull = fopen("/dev/null", "w");
    check(devnull != NULL);
    ws_write_json(devnull, r, "trace/traces.otf2");
    fclose(devnull);
    ws_free(r);
    return 0;
}

/* The parts of the analysis under MPI, without MPI: reading a trace in 2
 * and 3 parts (ws_read), exporting each part (ws_part_export) and merging
 * them in process order (ws_merge_begin, a copy of the segments, then
 * ws_merge_end) gives waitstates.json identical to the serial analysis but
 * for the "analysis" line. Then malformed parts, as a bug or a corrupted
 * transfer would give them: each is refused with a message (-1), nothing
 * crashes, and the context can still be finished and freed.
 *   merge_test <traces.otf2>        exit code 0 when every check passes */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitstate.h"

static int fails;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "merge_test: FAIL line %d: ", __LINE__);                       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            fails++;                                                                       \
        }                                                                                  \
    } while (0)

/* waitstates.json without its "analysis" line. */
static char *json_of(ws_result_t *r)
{
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    ws_write_json(f, r, "trace/traces.otf2");
    fclose(f);
    char *a = strstr(mem, "  \"analysis\":");
    if (a) {
        char *e = strchr(a, '\n');
        memmove(a, e + 1, strlen(e + 1) + 1);
    }
    ws_free(r);
    return mem;
}

typedef struct {
    void *hdr;
    size_t hlen, nseg;
    ws_seg_t *seg;
    ws_ctx_t *c;
} part_t;

static part_t export_part(const char *anchor, int p, int np)
{
    char err[256];
    part_t x = {0};
    x.c = ws_read(anchor, p, np, false, err, sizeof err);
    CHECK(x.c, "ws_read part %d of %d: %s", p, np, err);
    if (!x.c) exit(1);
    size_t n = ws_ctx_locations(x.c);
    bool *mine = calloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) mine[i] = ws_part_owns(x.c, i, p, np);
    CHECK(ws_part_export(x.c, mine, &x.hdr, &x.hlen, &x.seg, &x.nseg) == 0, "export");
    free(mine);
    return x;
}

static void free_part(part_t *x)
{
    free(x->hdr), free(x->seg);
    ws_ctx_free(x->c);
}

/* Merges x into c as process 0 would. Returns what ws_merge_begin/_end did. */
static int merge(ws_ctx_t *c, const part_t *x, const void *hdr, size_t hlen, char *err,
                 size_t errlen)
{
    ws_seg_t *seg = NULL;
    size_t nseg = 0;
    if (ws_merge_begin(c, hdr, hlen, &seg, &nseg, err, errlen) != 0) return -1;
    CHECK(nseg == x->nseg, "%zu segments to receive, %zu sent", nseg, x->nseg);
    for (size_t i = 0; i < nseg && i < x->nseg; i++) {
        CHECK(seg[i].len == x->seg[i].len, "segment %zu: %zu bytes, %zu sent", i, seg[i].len,
              x->seg[i].len);
        if (seg[i].len == x->seg[i].len && seg[i].len) memcpy(seg[i].p, x->seg[i].p, seg[i].len);
    }
    free(seg);
    return ws_merge_end(c, err, errlen);
}

static void split(const char *anchor, int np, const char *serial)
{
    char err[256];
    part_t p0 = export_part(anchor, 0, np);
    for (int p = 1; p < np; p++) {
        part_t x = export_part(anchor, p, np);
        CHECK(merge(p0.c, &x, x.hdr, x.hlen, err, sizeof err) == 0, "merge part %d: %s", p, err);
        free_part(&x);
    }
    free(p0.hdr), free(p0.seg);
    char *js = json_of(ws_finish(p0.c, np));
    CHECK(!strcmp(js, serial), "%d parts: waitstates.json differs from the serial one", np);
    if (!fails) printf("merge_test: %d parts: identical to the serial analysis (%zu bytes)\n", np,
                       strlen(js));
    free(js);
}

/* A copy of part 1's header with `edit` applied must be refused. */
static void refused(const char *anchor, const char *what, void (*edit)(char *h, size_t *len),
                    bool in_segments)
{
    char err[256] = "";
    part_t p0 = export_part(anchor, 0, 2), x = export_part(anchor, 1, 2);
    char *h = malloc(x.hlen + 64);
    memcpy(h, x.hdr, x.hlen);
    size_t len = x.hlen;
    if (!in_segments) edit(h, &len);
    int rc;
    if (in_segments) {
        /* The header is right; what arrives in the segments is not. */
        ws_seg_t *seg = NULL;
        size_t nseg = 0;
        rc = ws_merge_begin(p0.c, h, len, &seg, &nseg, err, sizeof err);
        CHECK(rc == 0, "%s: header refused: %s", what, err);
        for (size_t i = 0; rc == 0 && i < nseg; i++)
            if (seg[i].len) memcpy(seg[i].p, x.seg[i].p, seg[i].len);
        if (rc == 0 && nseg) edit(seg[0].p, &seg[0].len); /* the first location's calls */
        free(seg);
        if (rc == 0) rc = ws_merge_end(p0.c, err, sizeof err);
    } else {
        rc = merge(p0.c, &x, h, len, err, sizeof err);
    }
    CHECK(rc == -1 && strstr(err, "malformed"), "%s: not refused (rc %d, '%s')", what, rc, err);
    if (rc == -1) printf("merge_test: %s: refused (%s)\n", what, err);
    free(h);
    free(p0.hdr), free(p0.seg);
    ws_result_t *r = ws_finish(p0.c, 2); /* still usable */
    CHECK(r != NULL, "%s: no result after the refusal", what);
    ws_free(r);
    free_part(&x);
}

static void bad_magic(char *h, size_t *len) { (void)len, h[0] ^= 0x55; }
static void truncated(char *h, size_t *len) { (void)h, *len -= 9; }
static void too_long(char *h, size_t *len) { memset(h + *len, 0, 8), *len += 8; }
static void forward_parent(char *h, size_t *len)
{
    (void)len;
    uint32_t parent = 5; /* node 0's parent: a node not defined before it */
    memcpy(h + 32, &parent, sizeof parent);
}
static void location_index(char *h, size_t *len)
{
    uint64_t idx = 1u << 20; /* the first location record's index, out of range */
    memcpy(h + *len - 48, &idx, sizeof idx);
}
static void huge_count(char *h, size_t *len)
{
    uint64_t n = UINT64_MAX / 2; /* the first location's number of calls */
    memcpy(h + *len - 40, &n, sizeof n);
}
static void call_site(char *calls, size_t *len)
{
    if (*len < 24) return;
    uint32_t site = 0xfffffff0u; /* the first call's call-path node: unknown */
    memcpy(calls + 20, &site, sizeof site);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: merge_test <traces.otf2>\n");
        return 2;
    }
    char err[256];
    ws_result_t *r = ws_analyze(argv[1], false, err, sizeof err);
    if (!r) {
        fprintf(stderr, "merge_test: %s\n", err);
        return 1;
    }
    char *serial = json_of(r);
    split(argv[1], 2, serial);
    split(argv[1], 3, serial);
    refused(argv[1], "bad magic", bad_magic, false);
    refused(argv[1], "truncated header", truncated, false);
    refused(argv[1], "header too long", too_long, false);
    refused(argv[1], "node before its parent", forward_parent, false);
    refused(argv[1], "location out of range", location_index, false);
    refused(argv[1], "absurd array length", huge_count, false);
    refused(argv[1], "call with an unknown call path", call_site, true);
    free(serial);
    if (fails) fprintf(stderr, "merge_test: %d checks failed\n", fails);
    return fails ? 1 : 0;
}

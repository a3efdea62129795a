/* A plausibility check of an OTF2 archive's anchor file, made before OTF2
 * reads it.
 *
 * Design. OTF2_Reader_Open trusts the counts of the anchor file: it
 * allocates an array for the number of properties the file declares before
 * reading any of them (OTF2 3.0's OTF2_AnchorFile_Load), so a damaged
 * anchor of a few hundred bytes made `mpiscope report` allocate 4 to 22 GB
 * and spend half a minute before saying the archive could not be opened
 * (found by tests/fuzz's trace target). The anchor's layout is small and
 * fixed (OTF2's anchor format 1-3): a non-chunked buffer (file type byte,
 * endianness byte 0x42 little / 0x23 big), the magic string "OTF2", the
 * anchor format, 38 bytes of versions, chunk sizes, substrate, compression
 * and the numbers of locations and of global definitions, three strings
 * (machine, creator, description), then from format 2 on the number of
 * properties (a 4-byte integer) and that many pairs of strings. Each
 * string ends in a NUL byte, so a file can hold at most as many properties
 * as half the NUL bytes that follow the count; each location and each
 * global definition is a record of at least two bytes of the global
 * definitions file beside the anchor. A count above what the files can
 * hold is damage, reported as such. So is a property OTF2 would refuse
 * (OTF2 3.0's otf2_archive_set_property): a name that is not components of
 * [A-Za-z0-9_] joined by "::" (at least two, none empty), or an empty value
 * (which OTF2 takes for "remove"); OTF2_Reader_Open fails on those without
 * freeing the archive it allocated, a leak found by tests/fuzz's trace
 * target. Everything else is left to OTF2.
 */
#include "trace_anchor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { ANCHOR_MAX = 16 << 20, ENDIAN_LITTLE = 0x42, ENDIAN_BIG = 0x23 };

static uint64_t get_uint(const unsigned char *p, int n, bool little)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[little ? i : n - 1 - i] << (8 * i);
    return v;
}

/* The offset just past the NUL-terminated string at `at`, or 0 when none. */
static size_t skip_string(const unsigned char *b, size_t n, size_t at)
{
    const unsigned char *z = at < n ? memchr(b + at, 0, n - at) : NULL;
    return z ? (size_t)(z - b) + 1 : 0;
}

/* Whether `name` is a property name OTF2 accepts: NAMESPACE::...::KEY. */
static bool property_name_ok(const char *name)
{
    int components = 0;
    for (const char *p = name;; p += 2) {
        size_t len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
        if (len == 0) return false;
        components++;
        p += len;
        if (*p == 0) return components >= 2;
        if (p[0] != ':' || p[1] != ':') return false;
    }
}

static bool damaged(char *err, size_t errlen, const char *anchor, const char *what)
{
    snprintf(err, errlen, "the OTF2 archive %s is damaged: %s", anchor, what);
    return false;
}

bool msc_anchor_plausible(const char *anchor, char *err, size_t errlen)
{
    FILE *f = fopen(anchor, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open the OTF2 archive %s", anchor);
        return false;
    }
    unsigned char *b = malloc(ANCHOR_MAX);
    size_t n = b ? fread(b, 1, ANCHOR_MAX, f) : 0;
    bool too_big = b && n == ANCHOR_MAX && fgetc(f) != EOF;
    fclose(f);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    bool ok = false;
    if (too_big) {
        damaged(err, errlen, anchor, "its anchor file is larger than 16 MiB");
        goto out;
    }
    if (n < 2 + 5 + 1 + 38 || (b[1] != ENDIAN_LITTLE && b[1] != ENDIAN_BIG) ||
        memcmp(b + 2, "OTF2", 5) != 0) {
        damaged(err, errlen, anchor, "its anchor file has no OTF2 header");
        goto out;
    }
    bool little = b[1] == ENDIAN_LITTLE;
    unsigned format = b[7];
    size_t at = 8 + 1 + 3 + 8 + 8 + 1 + 1; /* trace format .. compression */
    uint64_t locations = get_uint(b + at, 8, little);
    uint64_t defs = get_uint(b + at + 8, 8, little);
    at += 16;

    /* The global definitions beside the anchor: <name>.def for <name>.otf2. */
    size_t len = strlen(anchor);
    if (len > 5 && strcmp(anchor + len - 5, ".otf2") == 0) {
        char *def = malloc(len + 1);
        struct stat st;
        if (def) {
            memcpy(def, anchor, len - 5);
            strcpy(def + len - 5, ".def");
        }
        bool have = def && stat(def, &st) == 0 && S_ISREG(st.st_mode);
        free(def);
        if (have && (defs > (uint64_t)st.st_size / 2 || locations > (uint64_t)st.st_size / 2)) {
            damaged(err, errlen, anchor,
                    "its anchor file declares more locations or global definitions than its "
                    "definitions file can hold");
            goto out;
        }
    }
    for (int s = 0; s < 3; s++)
        if (!(at = skip_string(b, n, at))) {
            damaged(err, errlen, anchor, "its anchor file ends inside its strings");
            goto out;
        }
    if (format > 1) {
        if (at + 4 > n) {
            damaged(err, errlen, anchor, "its anchor file ends before its properties");
            goto out;
        }
        uint64_t props = get_uint(b + at, 4, little);
        size_t nuls = 0;
        for (size_t i = at + 4; i < n; i++) nuls += b[i] == 0;
        if (props > nuls / 2) {
            damaged(err, errlen, anchor,
                    "its anchor file declares more properties than it holds");
            goto out;
        }
        at += 4;
        for (uint64_t i = 0; i < props; i++) {
            size_t value = skip_string(b, n, at);
            size_t next = value ? skip_string(b, n, value) : 0;
            if (!next) {
                damaged(err, errlen, anchor, "its anchor file ends inside its properties");
                goto out;
            }
            if (!property_name_ok((const char *)b + at) || next - value < 2) {
                damaged(err, errlen, anchor,
                        "its anchor file holds a property OTF2 does not accept (a name "
                        "other than NAMESPACE::KEY of letters, digits and '_', or no value)");
                goto out;
            }
            at = next;
        }
    }
    ok = true;
out:
    free(b);
    return ok;
}

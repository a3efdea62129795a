/* The VT_ API's tables at their bounds (src/vt/vt.c: 1024 classes, 16384
 * functions, 16384 source locations, 1024 counters, 256 nesting levels).
 * Every definition past a bound, and every VT_enter past the nesting bound,
 * must return VT_ERR_NOMEMORY (never crash); the VT_leave of a refused
 * VT_enter returns VT_OK and records nothing, so the regions that were
 * recorded stay nested (check_vt_bounds.py reads the trace). Exits nonzero
 * on an unexpected return code.
 */
#include <mpi.h>
#include <stdio.h>

#include "VT.h"

static int bad;

static void expect(int rc, int want, const char *what, int i)
{
    if (rc != want) {
        fprintf(stderr, "%s %d: returned %d, expected %d\n", what, i, rc, want);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char name[64];
    int h;
    for (int i = 0; i < 1030; i++) {
        snprintf(name, sizeof name, "class%d", i);
        expect(VT_classdef(name, &h), i < 1024 ? VT_OK : VT_ERR_NOMEMORY, "VT_classdef", i);
    }
    int deep = 0;
    expect(VT_funcdef("deep", VT_NOCLASS, &deep), VT_OK, "VT_funcdef", 0);
    for (int i = 1; i < 16390; i++) {
        snprintf(name, sizeof name, "f%d", i);
        expect(VT_funcdef(name, VT_NOCLASS, &h), i < 16384 ? VT_OK : VT_ERR_NOMEMORY,
               "VT_funcdef", i);
    }
    for (int i = 0; i < 16390; i++)
        expect(VT_scldef("bounds.c", i + 1, &h), i < 16384 ? VT_OK : VT_ERR_NOMEMORY,
               "VT_scldef", i);
    for (int i = 0; i < 1030; i++) {
        snprintf(name, sizeof name, "counter%d", i);
        expect(VT_countdef(name, VT_NOCLASS, VT_COUNT_INTEGER | VT_COUNT_ABSVAL, VT_ME,
                           NULL, "#", &h),
               i < 1024 ? VT_OK : VT_ERR_NOMEMORY, "VT_countdef", i);
    }
    /* 300 levels: 256 recorded, 44 refused; every leave is accepted. */
    for (int i = 0; i < 300; i++)
        expect(VT_enter(deep, VT_NOSCL), i < 256 ? VT_OK : VT_ERR_NOMEMORY, "VT_enter", i);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 300; i++) expect(VT_leave(VT_NOSCL), VT_OK, "VT_leave", i);
    expect(VT_leave(VT_NOSCL), VT_ERR_BADREQUEST, "VT_leave (one too many)", 0);
    /* The same through VT_begin/VT_end. */
    for (int i = 0; i < 260; i++)
        expect(VT_begin(deep), i < 256 ? VT_OK : VT_ERR_NOMEMORY, "VT_begin", i);
    for (int i = 0; i < 260; i++) expect(VT_end(deep), VT_OK, "VT_end", i);
    MPI_Finalize();
    return bad;
}

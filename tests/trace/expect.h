/* Test helper: counts the MPI calls a test program makes, by name, and
 * writes them to $MPISCOPE_OUTPUT/expect.<rank> for check_trace.py, which
 * compares them with the Enter events of the rank's locations. Wrap every
 * call that should appear in the trace: C(MPI_Send, buf, ...). */
#ifndef TRACE_EXPECT_H
#define TRACE_EXPECT_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    const char *name;
    long n;
} expect_tab[128];

static inline void expect_count(const char *name)
{
    for (int i = 0; i < 128; i++) {
        if (!expect_tab[i].name) expect_tab[i].name = name;
        if (strcmp(expect_tab[i].name, name) == 0) {
            expect_tab[i].n++;
            return;
        }
    }
    abort();
}

#define C(fn, ...) (expect_count(#fn), fn(__VA_ARGS__))

static inline void expect_write(int rank)
{
    const char *dir = getenv("MPISCOPE_OUTPUT");
    char path[4096];
    snprintf(path, sizeof path, "%s/expect.%d", dir ? dir : ".", rank);
    FILE *f = fopen(path, "w");
    if (!f) abort();
    for (int i = 0; i < 128 && expect_tab[i].name; i++)
        fprintf(f, "%s %ld\n", expect_tab[i].name, expect_tab[i].n);
    fclose(f);
}

#define CHECK(x)                                                           \
    do {                                                                   \
        if (!(x)) {                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #x); \
            abort();                                                       \
        }                                                                  \
    } while (0)

#endif

/* Private to the interception tests. Every test program is a table of cases
 * (each a name and a function that asserts one behaviour, libuv-style);
 * `program CASE [args]` runs one case, and tests.cmake registers each case
 * with msc_mpi_test. A case makes its own MPI_Init and MPI_Finalize.
 *
 * The helpers themselves use PMPI only (rank, size, abort), so the counts a
 * case checks are exactly the calls its own body makes. A failed check prints
 * the rank, the place and both values on stderr and aborts the job. Counts
 * come from mpiscope_calls(), looked up with dlsym so the same program works
 * with the tool preloaded or linked (-lmpiscope); a case that runs without
 * the tool never asks.
 */
#ifndef MSC_TESTS_INTERCEPT_HARNESS_H
#define MSC_TESTS_INTERCEPT_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    void (*fn)(int argc, char **argv); /* argv[0] is the case name */
} msc_case_t;

static int msc_rank = -1, msc_size = 0;

static inline void msc_die(void)
{
    int init = 0, fini = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fini);
    fflush(stdout);
    if (init && !fini) PMPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define FAIL(...)                                                             \
    do {                                                                      \
        fprintf(stderr, "rank %d: %s:%d: ", msc_rank, __FILE__, __LINE__);    \
        fprintf(stderr, __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                  \
        msc_die();                                                            \
    } while (0)

#define CHECK(cond)                                               \
    do {                                                          \
        if (!(cond)) FAIL("check failed: %s", #cond);             \
    } while (0)

#define CHECK_EQ(a, b)                                                                    \
    do {                                                                                  \
        long long msc_a_ = (long long)(a), msc_b_ = (long long)(b);                       \
        if (msc_a_ != msc_b_) FAIL("%s == %s: %lld != %lld", #a, #b, msc_a_, msc_b_);    \
    } while (0)

/* Calls of `name` the tool has recorded in this process so far. */
static inline long long calls(const char *name)
{
    static long long (*fn)(const char *);
    if (!fn) {
        void *sym = dlsym(RTLD_DEFAULT, "mpiscope_calls");
        if (!sym) FAIL("mpiscope_calls not found: the tool is not loaded");
        memcpy(&fn, &sym, sizeof fn);
    }
    long long n = fn(name);
    if (n < 0) FAIL("the tool has no wrapper named %s", name);
    return n;
}

/* The tool recorded exactly `n` calls of `name`. */
#define CHECK_CALLS(name, n)                                                              \
    do {                                                                                  \
        long long msc_got_ = calls(name), msc_want_ = (long long)(n);                     \
        if (msc_got_ != msc_want_)                                                        \
            FAIL("%s recorded %lld times, expected %lld", name, msc_got_, msc_want_);    \
    } while (0)

/* MPI_Init and the world's rank and size, through PMPI (not counted). */
static inline void msc_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) FAIL("MPI_Init failed");
    PMPI_Comm_rank(MPI_COMM_WORLD, &msc_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &msc_size);
}

static inline int msc_run_case(int argc, char **argv, const msc_case_t *cases, size_t n)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE [args]; cases:", argv[0]);
        for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", cases[i].name);
        fputc('\n', stderr);
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(cases[i].name, argv[1]) == 0) {
            cases[i].fn(argc - 1, argv + 1);
            return 0;
        }
    }
    fprintf(stderr, "%s: no case named '%s'\n", argv[0], argv[1]);
    return 2;
}

#define MSC_CASES_MAIN(...)                                                       \
    int main(int argc, char **argv)                                               \
    {                                                                             \
        static const msc_case_t cases[] = {__VA_ARGS__};                          \
        return msc_run_case(argc, argv, cases, sizeof cases / sizeof cases[0]);   \
    }

#define CASE(name) {#name, case_##name}

#endif

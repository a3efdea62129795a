/* The test programs that run one of several cases, named by their first
 * argument (zerobuf.c, race.c): MPI_Init, the case, MPI_Finalize; exit 2
 * for a name no case has. rank and size are the world's, for the cases. */
#ifndef MSC_TESTS_CHECK_CASES_H
#define MSC_TESTS_CHECK_CASES_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    void (*run)(void);
} chk_case_t;

static int rank, size;

static int case_main(int argc, char **argv, const chk_case_t *cases, size_t n)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (argc > 1 && !strcmp(argv[1], cases[i].name)) cases[i].run(), found = 1;
    if (!found && rank == 0) fprintf(stderr, "%s: unknown case %s\n", argv[0], argc > 1 ? argv[1] : "");
    MPI_Finalize();
    return found ? 0 : 2;
}

#endif

/* Both MPIs complete a small MPI_Isend as it is posted and hand every such
 * send one shared pre-completed handle (MPICH 4.0.2 and Open MPI 4.1.4 on
 * shared memory: three sends in a row get the same handle value). Check
 * mode keys its records by handle (src/check/objects.c).
 *   out_of_order  a window of two small sends, each with its own malloc'd
 *                 buffer left untouched until its wait, completed in the
 *                 other order than posted, buffers freed and allocated
 *                 again: correct, no finding (a false SEND_MODIFIED on
 *                 almost every send before, as in MPICH's coll/nonblocking3)
 *   modified      one small send whose buffer is changed before its wait:
 *                 found
 *   reuse         two small sends from the two halves of one array,
 *                 the newer completed first and its half then written by an
 *                 MPI_Allreduce in place while the older one is pending:
 *                 correct, no finding (a false PENDING_OVERLAP before: the
 *                 completion ended the older record, and the newer send's
 *                 span stayed)
 */
#include <stdlib.h>

#include "cases.h"

enum { N = 10, ROUNDS = 200 };

static int *fresh(int v)
{
    int *b = malloc(2 * N * sizeof *b);
    for (int j = 0; j < N; j++) b[j] = v + j;
    return b;
}

static void out_of_order(void)
{
    int got[N];
    if (rank == 0) {
        int *a = fresh(0), *b;
        MPI_Request ra, rb;
        MPI_Isend(a, N, MPI_INT, 1, 5, MPI_COMM_WORLD, &ra);
        for (int i = 0; i < ROUNDS; i++) {
            b = fresh(i);
            MPI_Isend(b, N, MPI_INT, 1, 5, MPI_COMM_WORLD, &rb);
            MPI_Wait(&rb, MPI_STATUS_IGNORE); /* the newer first */
            free(b);
            MPI_Wait(&ra, MPI_STATUS_IGNORE);
            free(a);
            a = fresh(i + 1);
            MPI_Isend(a, N, MPI_INT, 1, 5, MPI_COMM_WORLD, &ra);
        }
        MPI_Wait(&ra, MPI_STATUS_IGNORE);
        free(a);
    } else if (rank == 1) {
        for (int i = 0; i < 2 * ROUNDS + 1; i++)
            MPI_Recv(got, N, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void modified(void)
{
    int got[N];
    if (rank == 0) {
        int *a = fresh(0);
        MPI_Request r;
        MPI_Isend(a, N, MPI_INT, 1, 5, MPI_COMM_WORLD, &r); /* expect(modified): LOCAL:BUFFER:SEND_MODIFIED rank=0 */
        a[3] = -1;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        free(a);
    } else if (rank == 1) {
        MPI_Recv(got, N, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void reuse(void)
{
    int arr[2 * N], got[N];
    for (int j = 0; j < 2 * N; j++) arr[j] = j;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        if (rank == 0) {
            MPI_Isend(arr, N, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(arr + N, N, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[1]);
            MPI_Wait(&r[1], MPI_STATUS_IGNORE); /* the newer first: arr + N is free */
        } else if (rank == 1) {
            MPI_Recv(got, N, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(got, N, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Allreduce(MPI_IN_PLACE, arr + N, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"out_of_order", out_of_order}, {"modified", modified},
                                       {"reuse", reuse}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

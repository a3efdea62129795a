/* A request handle that MPI hands out again. MPI-3.1 section 3.7.3: a
 * completed request is deallocated and its handle set to MPI_REQUEST_NULL;
 * MPI may then give the same handle value to a new request, which is a
 * request like any other. Here the new requests come from calls that make a
 * request without posting a message: MPI_Grequest_start (section 12.2) and,
 * on MPI-4 libraries, MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0
 * section 3.10). Correct twin: each request is waited on once, through the
 * handle its call returned, so no finding (seen on MPICH's test suite,
 * pt2pt/greq1: a false LOCAL:REQUEST:FREED). Erroneous: MPI_Wait on a copy
 * of a generalized request's handle after MPI_Wait deallocated it.
 * Written by hand. */
/* TIMEOUT: 10 */
#include <mpi.h>
#include <stddef.h>

static int query_fn(void *extra, MPI_Status *status)
{
    (void)extra;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request r, copy = MPI_REQUEST_NULL;
    for (int i = 0; i < 4; i++) {
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &r);
        copy = r;
        MPI_Grequest_complete(r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
#ifdef BUG
    MPI_Wait(&copy, MPI_STATUS_IGNORE); /* EXPECT: LOCAL:REQUEST:FREED */
#endif
    (void)copy;
#if MPI_VERSION >= 4
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    int out = rank, in = -1;
    for (int i = 0; i < 4; i++) {
        MPI_Isendrecv(&out, 1, MPI_INT, peer, i, &in, 1, MPI_INT, from, i, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Isendrecv_replace(&out, 1, MPI_INT, peer, i, from, i, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
#endif
    MPI_Finalize();
    return 0;
}

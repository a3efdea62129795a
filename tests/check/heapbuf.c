/* Buffers that run past the end of the heap block they point into (issue
 * 26: the object behind a buffer, from check mode's allocator interposer,
 * no recompilation): LOCAL:BUFFER:OVERFLOW at the call, on the rank that
 * passes the buffer.
 *   send:     rank 0 sends 101 ints from a malloc'd block of 100;
 *   recv:     rank 1 receives up to 51 doubles into a calloc'd block of 50;
 *   bcast:    every rank broadcasts 10 ints of a block of 9 (the issue's
 *             case: the root reads past it, the others would write);
 *   interior: 11 ints sent from element 90 of a block of 100;
 *   early:    a block made by a constructor, before MPI_Init, sent one
 *             element too far;
 *   realloc:  a block shrunk by realloc to 50 ints, sent with the old 100;
 *   aligned:  a posix_memalign block of 16 ints sent with count 17;
 *   isend, irecv: the nonblocking forms, one element too far (30 ints
 *             from 30, into 29);
 *   vector:   a derived type whose second block ends past the block;
 *   gather:   the root's receive block one int short of size x 1;
 * each with a twin (<case>_ok) whose counts fit: no finding; "all" runs
 * every case and "all_ok" every twin. The other side of each message fits
 * its own block. Where MPI writes past the block (recv, bcast, irecv,
 * gather), the block's size leaves room in glibc's chunk (a request of
 * 16k + 4 or 16k + 8 bytes gets 16k + 8 usable), so the erroneous program
 * still ends and the allocator's own data is not overwritten. Each case
 * ends with a barrier (no tail calls at -O2). Two ranks.
 */
#include <stdlib.h>

#include "cases.h"

static int *early;
__attribute__((constructor)) static void make_early(void) { early = malloc(20 * sizeof *early); }

/* The other side of a message: a block large enough for anything here. */
static void *roomy(void) { return calloc(256, sizeof(double)); }

static void send_case(int fit)
{
    int *a = calloc(100, sizeof *a);
    int *b = roomy();
    if (rank == 0)
        MPI_Send(a, fit ? 100 : 101, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(b, 101, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(b);
}

static void recv_case(int fit)
{
    double *d = calloc(50, sizeof *d);
    double *o = roomy();
    if (rank == 0)
        MPI_Send(o, fit ? 50 : 51, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(d, fit ? 50 : 51, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(d);
    free(o);
}

static void bcast_case(int fit)
{
    int *b = calloc(9, sizeof *b);
    if (fit)
        MPI_Bcast(b, 9, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(b, 10, MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(b);
}

static void interior_case(int fit)
{
    int *a = calloc(100, sizeof *a);
    int *o = roomy();
    if (rank == 0)
        MPI_Send(a + 90, fit ? 10 : 11, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 11, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(o);
}

static void early_case(int fit)
{
    int *o = roomy();
    for (int i = 0; i < 20; i++) early[i] = i;
    if (rank == 0)
        MPI_Send(early, fit ? 20 : 21, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 21, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(o);
}

static void realloc_case(int fit)
{
    int *a = calloc(100, sizeof *a);
    int *o = roomy();
    a = realloc(a, 50 * sizeof *a);
    if (rank == 0)
        MPI_Send(a, fit ? 50 : 100, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 100, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(o);
}

static void aligned_case(int fit)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, 16 * sizeof(int))) MPI_Abort(MPI_COMM_WORLD, 1);
    int *a = p, *o = roomy();
    for (int i = 0; i < 16; i++) a[i] = i;
    if (rank == 0)
        MPI_Send(a, fit ? 16 : 17, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 17, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(o);
}

static void isend_case(int fit)
{
    int *a = calloc(30, sizeof *a), *o = roomy();
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank == 0)
        MPI_Isend(a, fit ? 30 : 31, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 31, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(o);
}

static void irecv_case(int fit)
{
    int *a = calloc(29, sizeof *a), *o = roomy();
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank == 1)
        MPI_Irecv(a, fit ? 29 : 30, MPI_INT, 0, 0, MPI_COMM_WORLD, &r); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=1 */
    else if (rank == 0)
        MPI_Send(o, fit ? 29 : 30, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(o);
}

static void vector_case(int fit)
{
    MPI_Datatype v;
    int *a = calloc(10, sizeof *a), *o = roomy();
    /* fit: blocks of 4 at 0 and 6 (ints 0-9); else at 0 and 8 (ints 0-11). */
    MPI_Type_vector(2, 4, fit ? 6 : 8, MPI_INT, &v);
    MPI_Type_commit(&v);
    if (rank == 0)
        MPI_Send(a, 1, v, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&v);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(o);
}

static void gather_case(int fit)
{
    int mine = rank;
    int *all = calloc((size_t)(fit ? size : size - 1), sizeof *all);
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
}

#define CASE(name)                                   \
    static void name##_bad(void) { name##_case(0); } \
    static void name##_ok(void) { name##_case(1); }
CASE(send)
CASE(recv)
CASE(bcast)
CASE(interior)
CASE(early)
CASE(realloc)
CASE(aligned)
CASE(isend)
CASE(irecv)
CASE(vector)
CASE(gather)
static void all_bad(void)
{
    send_bad(), recv_bad(), bcast_bad(), interior_bad(), early_bad(), realloc_bad();
    aligned_bad(), isend_bad(), irecv_bad(), vector_bad(), gather_bad();
}
static void all_ok(void)
{
    send_ok(), recv_ok(), bcast_ok(), interior_ok(), early_ok(), realloc_ok();
    aligned_ok(), isend_ok(), irecv_ok(), vector_ok(), gather_ok();
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

/* Buffers in local variables (issue 26: a stack buffer's variable from the
 * running process's DWARF, no recompilation): LOCAL:BUFFER:OVERFLOW and
 * LOCAL:BUFFER:TYPE_MISMATCH at the call, on the rank that passes it.
 *   send:    rank 0 sends 101 ints from `int a[100]` of the calling
 *            function;
 *   recv:    rank 1 posts a receive of 51 doubles into `double d[50]`
 *            (the sender sends 50: the posted count is the buffer, MPI-3.1
 *            section 3.2.4, and nothing is written past it here);
 *   deeper:  `int outer[40]` of the caller, sent with count 41 by the
 *            function it is passed to (the frame two up);
 *   block:   `int blk[10]` of an inner block, sent with count 11;
 *   isend:   `float f[16]` sent with MPI_Isend, count 17;
 *   type:    `int t[4]` sent as 2 MPI_DOUBLE (the same 16 bytes):
 *            TYPE_MISMATCH only;
 * each with a twin (<case>_ok) that fits (type: 4 MPI_INT): no finding;
 * "all" runs every case and "all_ok" every twin. The other side of each
 * message uses a heap block with room. Each case ends with a barrier (no
 * tail calls at -O2). Two ranks.
 */
#include <stdlib.h>

#include "cases.h"

static void *roomy(void) { return calloc(256, sizeof(double)); }

static void send_case(int fit)
{
    int a[100] = {0};
    int *o = roomy();
    if (rank == 0)
        MPI_Send(a, fit ? 100 : 101, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 101, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(o);
}

static void recv_case(int fit)
{
    double d[50];
    double *o = roomy();
    if (rank == 0)
        MPI_Send(o, 50, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(d, fit ? 50 : 51, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(o);
}

__attribute__((noinline)) static void send_it(int *buf, int n)
{
    int *o = roomy();
    if (rank == 0)
        MPI_Send(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(o);
}

static void deeper_case(int fit)
{
    int outer[40] = {0};
    send_it(outer, fit ? 40 : 41);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void block_case(int fit)
{
    int *o = roomy();
    for (int round = 0; round < 1; round++) {
        int blk[10] = {0};
        if (rank == 0)
            MPI_Send(blk, fit ? 10 : 11, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
        else if (rank == 1)
            MPI_Recv(o, 11, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(o);
}

static void isend_case(int fit)
{
    float f[16] = {0};
    float *o = roomy();
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank == 0)
        MPI_Isend(f, fit ? 16 : 17, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &r); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(o, 17, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(o);
}

static void type_case(int fit)
{
    int t[4] = {1, 2, 3, 4};
    char *o = roomy();
    if (rank == 0) {
        if (fit)
            MPI_Send(t, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        else
            MPI_Send(t, 2, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    } else if (rank == 1) {
        MPI_Recv(o, fit ? 4 : 2, fit ? MPI_INT : MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(o);
}

#define CASE(name)                                   \
    static void name##_bad(void) { name##_case(0); } \
    static void name##_ok(void) { name##_case(1); }
CASE(send)
CASE(recv)
CASE(deeper)
CASE(block)
CASE(isend)
CASE(type)
static void all_bad(void)
{
    send_bad(), recv_bad(), deeper_bad(), block_bad(), isend_bad(), type_bad();
}
static void all_ok(void) { send_ok(), recv_ok(), deeper_ok(), block_ok(), isend_ok(), type_ok(); }

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

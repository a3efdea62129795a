/* Buffers that run past the end of a global or static array (issue 26: the
 * object behind a buffer, from the ELF symbol table, no recompilation):
 * LOCAL:BUFFER:OVERFLOW at the call, on the rank that passes the buffer.
 *   send:    rank 0 sends 101 ints from `int gsend[100]`;
 *   recv:    rank 1 receives up to 51 doubles into `double grecv[50]`;
 *   bcast:   every rank broadcasts 11 ints in `int gbcast[10]` (the root
 *            reads past it, the others would write);
 *   static:  a function's `static float local[8]` sent with count 9;
 *   vector:  a derived type (2 blocks of 4 ints, stride 8) whose second
 *            block ends past `int gvec[10]` (its gap counts too);
 * each with a twin (<case>_ok) whose counts fit: no finding; "all" runs
 * every case and "all_ok" every twin, one after the other (the markers are
 * all's: the findings are local, so one run finds each). The message's
 * other side uses memory of the heap, which is not judged here. Built at
 * -O0 and -O2 (tests.cmake); each case ends with a barrier, so that at
 * -O2 no call under test is a tail call (whose return address, the site,
 * would be the caller's). Two ranks.
 */
#include <stdlib.h>

#include "cases.h"

int gsend[100];
double grecv[50];
int gbcast[10];
int gvec[10];

static void send_case(int fit)
{
    int *other = calloc(101, sizeof *other);
    if (rank == 0)
        MPI_Send(gsend, fit ? 100 : 101, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(other, 101, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(other);
}

static void recv_case(int fit)
{
    double *other = calloc(51, sizeof *other);
    if (rank == 0)
        MPI_Send(other, fit ? 50 : 51, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(grecv, fit ? 50 : 51, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=1 */
    free(other);
}

static void bcast_case(int fit)
{
    if (fit)
        MPI_Bcast(gbcast, 10, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(gbcast, 11, MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
}

static void static_case(int fit)
{
    static float local[8];
    float other[9];
    if (rank == 0)
        MPI_Send(local, fit ? 8 : 9, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(other, 9, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void vector_case(int fit)
{
    MPI_Datatype v;
    int other[16];
    /* fit: blocks of 4 at 0 and 6 (ints 0-9); else at 0 and 8 (ints 0-11). */
    MPI_Type_vector(2, 4, fit ? 6 : 8, MPI_INT, &v);
    MPI_Type_commit(&v);
    if (rank == 0)
        MPI_Send(gvec, 1, v, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    else if (rank == 1)
        MPI_Recv(other, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&v);
}

static void send_bad(void) { send_case(0); }
static void send_ok(void) { send_case(1); }
static void recv_bad(void) { recv_case(0); }
static void recv_ok(void) { recv_case(1); }
static void bcast_bad(void) { bcast_case(0); }
static void bcast_ok(void) { bcast_case(1); }
static void static_bad(void) { static_case(0); }
static void static_ok(void) { static_case(1); }
static void vector_bad(void) { vector_case(0); }
static void vector_ok(void) { vector_case(1); }
static void all_bad(void) { send_bad(), recv_bad(), bcast_bad(), static_bad(), vector_bad(); }
static void all_ok(void) { send_ok(), recv_ok(), bcast_ok(), static_ok(), vector_ok(); }

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {
        {"send", send_bad},     {"send_ok", send_ok},     {"recv", recv_bad},
        {"recv_ok", recv_ok},   {"bcast", bcast_bad},     {"bcast_ok", bcast_ok},
        {"static", static_bad}, {"static_ok", static_ok}, {"vector", vector_bad},
        {"vector_ok", vector_ok}, {"all", all_bad},         {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

/* A heap block's declared element type from the pointer the caller reaches
 * it by (issue 26: TypeART's finding for heap buffers, without its
 * compiler pass): LOCAL:BUFFER:TYPE_MISMATCH when a pointer variable of the
 * calling frame points into the block as elements of another kind or size
 * of number than the datatype. Built -O0 -g (the pointers live in the
 * frame; at -O2 they are in registers and nothing is judged). Two ranks;
 * rank 1 receives every message with the sender's datatype.
 *   send:   an `int *` block sent as 4 MPI_DOUBLE;
 *   recv:   rank 1 receives 4 MPI_INT into a `float *` block;
 *   param:  a function whose `double *` parameter it sends as MPI_LONG;
 *   inner:  `p + 2` of a `long *` block sent as MPI_FLOAT (an interior
 *           address on an element boundary);
 *   bcast:  a `short *` block broadcast as MPI_INT;
 * each with a twin (<case>_ok) that passes the elements' own datatype; the
 * twins also pass a `char *` block as MPI_INT and a block reached through
 * both an `int *` and a `float *` (the frame disagrees: not judged), and a
 * `void *` block as MPI_DOUBLE: no finding.
 */
#include <stdlib.h>
#include <string.h>

#include "cases.h"

static void take(MPI_Datatype t, int n)
{
    char got[64];
    MPI_Recv(got, n, t, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void send_case(int ok)
{
    if (rank == 0) {
        int *p = calloc(8, sizeof *p);
        MPI_Send(p, ok ? 8 : 4, ok ? MPI_INT : MPI_DOUBLE, 1, 9, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
        free(p);
    } else if (rank == 1) {
        take(ok ? MPI_INT : MPI_DOUBLE, ok ? 8 : 4);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void recv_case(int ok)
{
    int four[4] = {1, 2, 3, 4};
    float three[4] = {1, 2, 3, 4};
    if (rank == 0) {
        MPI_Send(ok ? (void *)three : (void *)four, 4, ok ? MPI_FLOAT : MPI_INT, 1, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        float *f = calloc(4, sizeof *f);
        MPI_Recv(f, 4, ok ? MPI_FLOAT : MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=1 */
        free(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void send_doubles(double *d, int ok)
{
    MPI_Send(d, 4, ok ? MPI_DOUBLE : MPI_LONG, 1, 9, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
}

static void param_case(int ok)
{
    if (rank == 0) {
        double *d = calloc(4, sizeof *d);
        send_doubles(d, ok);
        free(d);
    } else if (rank == 1) {
        take(ok ? MPI_DOUBLE : MPI_LONG, 4);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void inner_case(int ok)
{
    if (rank == 0) {
        long *p = calloc(8, sizeof *p);
        MPI_Send(p + 2, ok ? 2 : 4, ok ? MPI_LONG : MPI_FLOAT, 1, 9, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
        free(p);
    } else if (rank == 1) {
        take(ok ? MPI_LONG : MPI_FLOAT, ok ? 2 : 4);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void bcast_case(int ok)
{
    short *s = calloc(8, sizeof *s);
    MPI_Bcast(s, ok ? 8 : 4, ok ? MPI_SHORT : MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0, LOCAL:BUFFER:TYPE_MISMATCH rank=1 */
    free(s);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Passes that are never judged. */
static void unjudged(void)
{
    if (rank == 0) {
        char *c = calloc(16, 1);
        MPI_Send(c, 4, MPI_INT, 1, 9, MPI_COMM_WORLD);
        int *i = calloc(4, sizeof *i);
        float *f = (float *)i;
        MPI_Send(f, 4, MPI_FLOAT, 1, 9, MPI_COMM_WORLD);
        void *v = calloc(4, sizeof(double));
        MPI_Send(v, 4, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
        free(c), free(i), free(v);
    } else if (rank == 1) {
        take(MPI_INT, 4), take(MPI_FLOAT, 4), take(MPI_DOUBLE, 4);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void all_bad(void) { send_case(0), recv_case(0), param_case(0), inner_case(0), bcast_case(0); }
static void all_ok(void)
{
    send_case(1), recv_case(1), param_case(1), inner_case(1), bcast_case(1);
    unjudged();
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

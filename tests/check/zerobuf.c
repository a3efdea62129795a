/* Potential deadlocks that only MPI's buffering hides (issue 24), one case
 * per argument: each completes natively (small messages are buffered, a
 * root's MPI_Bcast returns early) and deadlocks with zero buffering and
 * synchronizing collectives (MPI-3.1 section 3.5), so check mode's replay
 * must report GLOBAL:DEADLOCK:POTENTIAL on every rank of the cycle, at the
 * call where that rank waits, and leave the exit code at 0. The "_ok" cases
 * are their safe twins (reordered calls, MPI_Sendrecv, nonblocking calls,
 * MPI_Bsend into an attached buffer) and must give no finding. A marker
 * `expect(case):` applies to that case only (expect.py's third argument).
 */
#include <mpi.h>
#include <stdlib.h>

#include "cases.h"

static int x = 1, y = 0;

static int next(void) { return (rank + 1) % size; }
static int prev(void) { return (rank + size - 1) % size; }

/* Every rank sends to the next one and then receives from the previous
 * one: a ring (two ranks: head to head). */
static void ring(void)
{
    MPI_Send(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD); /* expect(ring): GLOBAL:DEADLOCK:POTENTIAL */
    MPI_Recv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void ring_ok(void)
{
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD);
    }
}

/* The send waited for at once: the same cycle, at MPI_Wait. */
static void isend_wait(void)
{
    MPI_Request r;
    MPI_Isend(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE); /* expect(isend_wait): GLOBAL:DEADLOCK:POTENTIAL */
    MPI_Recv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* A persistent send, started and waited for before the receive. */
static void persistent(void)
{
    MPI_Request r;
    MPI_Send_init(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD, &r);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE); /* expect(persistent): GLOBAL:DEADLOCK:POTENTIAL */
    MPI_Recv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
}

/* The receive names any source: it matched the previous rank's message. */
static void anysource(void)
{
    MPI_Send(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD); /* expect(anysource): GLOBAL:DEADLOCK:POTENTIAL */
    MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Every rank sends to itself before it receives: a cycle of one each. */
static void self(void)
{
    MPI_Send(&x, 1, MPI_INT, rank, 0, MPI_COMM_WORLD); /* expect(self): GLOBAL:DEADLOCK:POTENTIAL */
    MPI_Recv(&y, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void self_ok(void)
{
    MPI_Request r;
    MPI_Irecv(&y, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &r);
    MPI_Send(&x, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* Rank 0 broadcasts and then receives from rank 1, which sends first and
 * then joins the broadcast: the collective against point to point. */
static void coll_p2p(void)
{
    if (rank == 0) {
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect(coll_p2p): GLOBAL:DEADLOCK:POTENTIAL rank=0 */
        MPI_Recv(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(coll_p2p): GLOBAL:DEADLOCK:POTENTIAL rank=1 */
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
}

static void coll_p2p_ok(void)
{
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) MPI_Recv(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1) MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
}

static void sendrecv_ok(void)
{
    MPI_Sendrecv(&x, 1, MPI_INT, next(), 0, &y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static void nonblocking_ok(void)
{
    MPI_Request r[2];
    MPI_Irecv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD, &r[1]);
    MPI_Status st[2];
    MPI_Waitall(2, r, st);
}

/* A send that waits for nothing: the user's buffer holds the message. */
static void bsend_ok(void)
{
    int bytes = 0;
    MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &bytes);
    bytes += MPI_BSEND_OVERHEAD;
    void *buf = malloc((size_t)bytes);
    MPI_Buffer_attach(buf, bytes);
    MPI_Bsend(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&buf, &bytes);
    free(buf);
}

/* Waitany over a receive and a send: either completes it. */
static void waitany_ok(void)
{
    MPI_Request r[2];
    int i;
    MPI_Irecv(&y, 1, MPI_INT, prev(), 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&x, 1, MPI_INT, next(), 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
    MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {
        {"ring", ring},           {"ring_ok", ring_ok},         {"isend_wait", isend_wait},
        {"persistent", persistent}, {"anysource", anysource},   {"self", self},
        {"self_ok", self_ok},     {"coll_p2p", coll_p2p},       {"coll_p2p_ok", coll_p2p_ok},
        {"sendrecv_ok", sendrecv_ok}, {"nonblocking_ok", nonblocking_ok},
        {"bsend_ok", bsend_ok},   {"waitany_ok", waitany_ok},
    };
    return case_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}

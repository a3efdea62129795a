/* Message races (issue 25): a receive from MPI_ANY_SOURCE that took one
 * message while another rank's message, not ordered after that receive by
 * anything in the program, could have been taken instead. One case per
 * argument; each must give GLOBAL:P2P:MESSAGE_RACE with the receive's line
 * on the receiving rank and both sends' lines on their ranks (whichever of
 * the two arrived first), exit code 0. The "_ok" cases are the twins the
 * standard orders (named sources, distinct tags, messages of one source,
 * a send that follows the receive through a token or a barrier) and must
 * give no finding. A marker `expect(case):` applies to that case only.
 */
#include <mpi.h>

#include "cases.h"

static int x = 1, y = 0;

/* Ranks 1 and 2 both send to rank 0, which takes two messages from any source. */
static void any2(void)
{
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(any2): GLOBAL:P2P:MESSAGE_RACE rank=0 */
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(any2): GLOBAL:P2P:MESSAGE_RACE rank=1 */
    } else if (rank == 2) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(any2): GLOBAL:P2P:MESSAGE_RACE rank=2 */
    }
}

/* Two ranks: rank 0's message to itself against rank 1's. */
static void self(void)
{
    if (rank == 0) {
        MPI_Request r;
        MPI_Isend(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r); /* expect(self): GLOBAL:P2P:MESSAGE_RACE rank=0 */
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(self): GLOBAL:P2P:MESSAGE_RACE rank=0 */
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(self): GLOBAL:P2P:MESSAGE_RACE rank=1 */
    }
}

/* Nonblocking receives from any source, completed together. */
static void irecv(void)
{
    if (rank == 0) {
        MPI_Request r[2];
        MPI_Status st[2];
        int z = 0;
        MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r[0]); /* expect(irecv): GLOBAL:P2P:MESSAGE_RACE rank=0 */
        MPI_Irecv(&z, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, st);
    } else if (rank <= 2) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(irecv): GLOBAL:P2P:MESSAGE_RACE rank=1, GLOBAL:P2P:MESSAGE_RACE rank=2 */
    }
}

/* A persistent receive from any source, started twice. */
static void persistent(void)
{
    if (rank == 0) {
        MPI_Request r;
        MPI_Recv_init(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
        for (int i = 0; i < 2; i++) {
            MPI_Start(&r); /* expect(persistent): GLOBAL:P2P:MESSAGE_RACE rank=0 */
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&r);
    } else if (rank <= 2) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(persistent): GLOBAL:P2P:MESSAGE_RACE rank=1, GLOBAL:P2P:MESSAGE_RACE rank=2 */
    }
}

/* A barrier between the two sends orders the calls, not the messages:
 * rank 1's may still be on its way when rank 2's arrives. Rank 1's send,
 * received only after the barrier, is also a potential deadlock: two
 * findings at one call. */
static void barrier(void)
{
    if (rank == 1) MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(barrier): GLOBAL:P2P:MESSAGE_RACE rank=1, GLOBAL:DEADLOCK:POTENTIAL rank=1 */
    MPI_Barrier(MPI_COMM_WORLD); /* expect(barrier): GLOBAL:DEADLOCK:POTENTIAL rank=0 */
    if (rank == 2) MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(barrier): GLOBAL:P2P:MESSAGE_RACE rank=2 */
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(barrier): GLOBAL:P2P:MESSAGE_RACE rank=0 */
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* One source, any tag: messages of one source do not overtake. */
static void anytag_ok(void)
{
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
}

/* The second sender waits for a token rank 0 sends after its first receive. */
static void ordered_ok(void)
{
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

static void named_ok(void)
{
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank <= 2) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

/* Any source, but each message has its own tag. */
static void tags_ok(void)
{
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank <= 2) {
        MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
    }
}

/* Rank 0 takes rank 1's message before the barrier; rank 2 sends after it,
 * so its message cannot be the one the first receive takes. */
static void barrier_ok(void)
{
    if (rank == 1) MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    if (rank == 0) MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    if (rank == 0) MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* MPI_Probe from any source, then a receive from the source it found
 * (MPI-3.1 section 3.8.1): the probe chose the message, and another rank's
 * could have been found first. */
static void probe(void)
{
    if (rank == 0) {
        for (int i = 0; i < 2; i++) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect(probe): GLOBAL:P2P:MESSAGE_RACE rank=0 */
            MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (rank <= 2) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(probe): GLOBAL:P2P:MESSAGE_RACE rank=1, GLOBAL:P2P:MESSAGE_RACE rank=2 */
    }
}

/* The same with MPI_Iprobe polled until it finds a message, then a
 * nonblocking receive from its source. */
static void iprobe(void)
{
    if (rank == 0) {
        for (int i = 0; i < 2; i++) {
            MPI_Status st;
            MPI_Request r;
            int flag = 0;
            while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, &st); /* expect(iprobe): GLOBAL:P2P:MESSAGE_RACE rank=0 */
            MPI_Irecv(&y, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    } else if (rank <= 2) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect(iprobe): GLOBAL:P2P:MESSAGE_RACE rank=1, GLOBAL:P2P:MESSAGE_RACE rank=2 */
    }
}

/* Twin: the probe from any source, but the second sender waits for a token
 * rank 0 sends after its first receive. */
static void probe_ordered_ok(void)
{
    MPI_Status st;
    if (rank == 0) {
        MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

/* Twin: probes of named sources. */
static void probe_named_ok(void)
{
    MPI_Status st;
    if (rank == 0) {
        for (int src = 1; src <= 2; src++) {
            MPI_Probe(src, 0, MPI_COMM_WORLD, &st);
            MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (rank <= 2) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {
        {"any2", any2},           {"self", self},           {"irecv", irecv},
        {"persistent", persistent}, {"barrier", barrier},   {"anytag_ok", anytag_ok},
        {"ordered_ok", ordered_ok}, {"named_ok", named_ok}, {"tags_ok", tags_ok},
        {"barrier_ok", barrier_ok}, {"probe", probe},         {"iprobe", iprobe},
        {"probe_ordered_ok", probe_ordered_ok}, {"probe_named_ok", probe_named_ok},
    };
    return case_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}

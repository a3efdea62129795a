/* MPI_Comm_free is collective (MPI-3.1 section 6.4.3) but neither MPI makes
 * it wait for the other members, and programs rely on that: one rank frees
 * a communicator and sends, the other receives and only then frees it.
 * Natively every case below ends. Check mode compares each communicator's
 * logged collectives when it is freed; that comparison must not make a
 * member wait for another (issue 24: the tool never causes a hang), and a
 * mismatch it finds is still reported, later.
 *   free_then_send  70 barriers and an MPI_Ibcast (logged, past the first
 *                   64 checked at once), then rank 0 frees and sends
 *   rooted_pending  an MPI_Bcast whose agreement is still pending when
 *                   its root frees the communicator and sends (unsafe:
 *                   the zero-buffer replay reports the cycle a
 *                   synchronizing MPI_Bcast would make)
 *   mismatch        free_then_send with the MPI_Ibcast's type signature
 *                   differing between the ranks (the same bytes: MPI
 *                   cannot tell), found after the communicator is gone
 */
#include <stdlib.h>

#include "cases.h"

enum { BIG = 1 << 18 }; /* ints: 1 MiB, sent by rendezvous on both MPIs */

/* Rank 0 frees `c` and then sends; rank 1 receives and then frees. */
static void free_and_send(MPI_Comm *c)
{
    int *big = calloc(BIG, sizeof *big);
    if (rank == 0) {
        MPI_Comm_free(c);
        MPI_Send(big, BIG, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(big, BIG, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_free(c);
    } else {
        MPI_Comm_free(c);
    }
    free(big);
}

static void logged(int mismatch)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    for (int i = 0; i < 70; i++) MPI_Barrier(c);
    /* Bytes: the local check of a buffer's declared type stays out of it
     * (an int array received as MPI_FLOAT is a finding of its own, which
     * an ASan build, whose locals have no DWARF location, would not give). */
    unsigned char x[8] = {0};
    MPI_Request q;
    MPI_Datatype t = mismatch && rank == 1 ? MPI_FLOAT : MPI_INT;
    MPI_Ibcast(x, 2, t, 0, c, &q); /* expect(mismatch): GLOBAL:COLLECTIVE:TYPE_MISMATCH */
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    free_and_send(&c);
}

static void free_then_send(void)
{
    logged(0);
}

static void mismatch(void)
{
    logged(1);
}

static void rooted_pending(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int x = 7;
    if (rank == 0) MPI_Bcast(&x, 1, MPI_INT, 0, c); /* expect(rooted_pending): GLOBAL:DEADLOCK:POTENTIAL rank=0 */
    if (rank == 0) {
        MPI_Comm_free(&c);
        int *big = calloc(BIG, sizeof *big);
        MPI_Send(big, BIG, MPI_INT, 1, 0, MPI_COMM_WORLD);
        free(big);
    } else {
        int *big = calloc(BIG, sizeof *big);
        if (rank == 1) MPI_Recv(big, BIG, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(rooted_pending): GLOBAL:DEADLOCK:POTENTIAL rank=1 */
        free(big);
        MPI_Bcast(&x, 1, MPI_INT, 0, c);
        MPI_Comm_free(&c);
    }
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {
        {"free_then_send", free_then_send},
        {"rooted_pending", rooted_pending},
        {"mismatch", mismatch},
    };
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

/* A deadlock in each place a rank can block (issue 24 item 2), one case per
 * argument, 2 ranks: rank 0 blocks in the call named by the case, waiting
 * for rank 1, which waits for rank 0 in MPI_Recv (or, for "finalize", has
 * gone on to MPI_Finalize); "inter" waits on an intercommunicator whose
 * groups are rank 0 and rank 1. Check mode must report GLOBAL:DEADLOCK:HARD
 * with both calls and end the run (exit 3). With "_ok" appended, rank 1
 * first does what rank 0 waits for, and the run ends normally with no
 * finding. A marker `expect(case):` applies to that case only. In
 * "bigsend" rank 0 is blocked sending with tag 0 to rank 1, which waits for
 * tag 2 from it: that is also GLOBAL:P2P:TAG_MISMATCH, the message rank 1's
 * receive cannot take.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BIG = 1 << 22 }; /* ints: 16 MiB, beyond any MPI's eager limit */
static int rank, ok, x, y;
static const char *c;
static MPI_Comm inter = MPI_COMM_NULL, half = MPI_COMM_NULL; /* "inter" */

static int is(const char *name)
{
    return !strncmp(c, name, strlen(name)) && (c[strlen(name)] == 0 || c[strlen(name)] == '_');
}

/* Rank 1's part: receive what rank 0 sends after its blocking call. */
static void rank1(void)
{
    if (ok) {
        if (is("coll")) MPI_Barrier(MPI_COMM_WORLD);
        else if (is("icoll")) {
            MPI_Request r;
            MPI_Ibarrier(MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        else if (is("bigsend")) {
            int *b = malloc(sizeof(int) * BIG);
            MPI_Recv(b, BIG, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            free(b);
        } else if (is("inter"))
            MPI_Send(&x, 1, MPI_INT, 0, 1, inter);
        else if (is("probe") || is("waitany") || is("waitall") || is("finalize"))
            MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        else if (is("waitsome"))
            MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    if (!is("finalize"))
        MPI_Recv(&y, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(coll): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(icoll): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(bigsend): GLOBAL:DEADLOCK:HARD rank=1, GLOBAL:P2P:TAG_MISMATCH rank=1 */ /* expect(probe): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(waitany): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(waitall): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(waitsome): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(threads): GLOBAL:DEADLOCK:HARD rank=1 */ /* expect(inter): GLOBAL:DEADLOCK:HARD rank=1 */
}

static void *thread_recv(void *arg)
{
    (void)arg;
    int z;
    MPI_Recv(&z, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(threads): GLOBAL:DEADLOCK:HARD rank=0 */
    return NULL;
}

static void rank0(void)
{
    MPI_Request r[2];
    MPI_Status st[2];
    int i, n, idx[2];
    if (is("coll")) {
        MPI_Barrier(MPI_COMM_WORLD); /* expect(coll): GLOBAL:DEADLOCK:HARD rank=0 */
    } else if (is("icoll")) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE); /* expect(icoll): GLOBAL:DEADLOCK:HARD rank=0 */
    } else if (is("bigsend")) {
        int *b = calloc(BIG, sizeof(int));
        MPI_Send(b, BIG, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(bigsend): GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:P2P:TAG_MISMATCH rank=0 */
        free(b);
    } else if (is("probe")) {
        MPI_Probe(1, 1, MPI_COMM_WORLD, &st[0]); /* expect(probe): GLOBAL:DEADLOCK:HARD rank=0 */
        MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (is("waitany") || is("waitall") || is("waitsome")) {
        int z = 0;
        MPI_Irecv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&z, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &r[1]); /* never sent: cancelled below */
        if (is("waitany"))
            MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE); /* expect(waitany): GLOBAL:DEADLOCK:HARD rank=0 */
        else if (is("waitsome"))
            MPI_Waitsome(2, r, &n, idx, st); /* expect(waitsome): GLOBAL:DEADLOCK:HARD rank=0 */
        else
            MPI_Waitall(1, r, st); /* expect(waitall): GLOBAL:DEADLOCK:HARD rank=0 */
        if (r[0] != MPI_REQUEST_NULL) MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Cancel(&r[1]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    } else if (is("inter")) {
        MPI_Recv(&y, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE); /* expect(inter): GLOBAL:DEADLOCK:HARD rank=0 */
    } else if (is("finalize")) {
        MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(finalize): GLOBAL:DEADLOCK:HARD rank=0 */
        return;
    } else if (is("threads")) {
        pthread_t t[2];
        for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, thread_recv, NULL);
        for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    }
    MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    c = argc > 1 ? argv[1] : "";
    ok = strstr(c, "_ok") != NULL;
    if (is("inter")) { /* rank 0 and rank 1 each a group of one */
        MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank, 7, &inter);
    }
    if (rank == 0) rank0();
    else if (rank == 1) {
        if (is("threads") && ok) {
            MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
            MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        }
        rank1();
    }
    if (inter != MPI_COMM_NULL) MPI_Comm_free(&inter), MPI_Comm_free(&half);
    MPI_Finalize(); /* expect(finalize): GLOBAL:DEADLOCK:HARD rank=1 */
    return 0;
}

/* Point-to-point type matching with batched sidecar records (src/check/p2p.c):
 * the records of one sender travel together, and the receiver pairs the k-th
 * message of each (communicator, source, tag) with the k-th record. Every
 * part alternates datatypes between consecutive messages of one flow, so a
 * record paired with the wrong message gives a finding on the correct run.
 * With "bug", one message of each part has the wrong type, found at its lines.
 * 2 ranks; the threaded part needs MPI_THREAD_MULTIPLE (skipped without).
 *   many tags: 300 messages, one tag each, received in reverse order;
 *   wildcards: MPI_ANY_SOURCE/MPI_ANY_TAG receives of two interleaved tags;
 *   matched probes: MPI_Mprobe/MPI_Mrecv consume their records unjudged;
 *   persistent: MPI_Send_init/MPI_Start between plain sends on one tag;
 *   cancelled: a cancelled receive pairs with no record;
 *   freed: a communicator freed right after its last receive, records not
 *     all paired yet (the shadow stays until they are);
 *   threads: 4 threads per rank, a tag and a datatype each, one communicator.
 * Usage: check_sidecars [bug] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int rank, bug;

static void many_tags(void)
{
    enum { N = 300 };
    static int ibuf[N][2];
    static float fbuf[2];
    static double dbuf[N][2];
    if (rank == 0) {
        for (int t = 0; t < N; t++) {
            if (bug && t == 150)
                MPI_Send(fbuf, 2, MPI_FLOAT, 1, t, MPI_COMM_WORLD); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
            else if (t % 2)
                MPI_Send(dbuf[t], 2, MPI_DOUBLE, 1, t, MPI_COMM_WORLD);
            else
                MPI_Send(ibuf[t], 2, MPI_INT, 1, t, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* all sent (small: buffered), received last first */
    if (rank == 1) {
        for (int t = N - 1; t >= 0; t--) {
            if (t % 2)
                MPI_Recv(dbuf[t], 2, MPI_DOUBLE, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Recv(ibuf[t], 2, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
        }
    }
}

static void wildcards(void)
{
    enum { N = 200 };
    int ib[4] = {0};
    float fb[4] = {0};
    if (rank == 0) {
        for (int i = 0; i < N; i++) {
            if (bug && i == 101)
                MPI_Send(ib, 4, MPI_INT, 1, 2, MPI_COMM_WORLD); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
            else if (i % 2)
                MPI_Send(fb, 4, MPI_FLOAT, 1, 2, MPI_COMM_WORLD);
            else
                MPI_Send(ib, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
        }
    } else {
        /* Tag 1 carries ints and tag 2 floats; the receive type follows the
         * message's tag, which a probe with wildcards tells first. */
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == 1)
                MPI_Recv(ib, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            else
                MPI_Recv(fb, 4, MPI_FLOAT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
        }
    }
}

static void matched_probes(void)
{
    enum { N = 60 };
    int ib[3] = {0};
    double db[3] = {0};
    if (rank == 0) {
        for (int i = 0; i < N; i++) {
            if (bug && i == 41)
                MPI_Send(ib, 3, MPI_INT, 1, 3, MPI_COMM_WORLD); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
            else if (i % 2)
                MPI_Send(db, 3, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
            else
                MPI_Send(ib, 3, MPI_INT, 1, 3, MPI_COMM_WORLD);
        }
    } else {
        for (int i = 0; i < N; i++) {
            if (i % 2 == 0) { /* the ints: taken by a matched probe, never judged */
                MPI_Message m;
                MPI_Status st;
                /* What an uninitialized status may hold: a probe sets the
                 * source, tag and count, not the cancelled bit (MPICH). */
                memset(&st, 0xff, sizeof st);
                if (i % 4 == 0) {
                    MPI_Mprobe(0, 3, MPI_COMM_WORLD, &m, &st);
                } else {
                    int flag = 0;
                    while (!flag) MPI_Improbe(0, 3, MPI_COMM_WORLD, &flag, &m, &st);
                }
                MPI_Mrecv(ib, 3, MPI_INT, &m, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(db, 3, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
            }
        }
    }
}

static void persistent(void)
{
    enum { N = 40 };
    int ib[5] = {0};
    short sb[5] = {0};
    MPI_Request p;
    if (rank == 0) {
        MPI_Send_init(ib, 5, MPI_INT, 1, 4, MPI_COMM_WORLD, &p);
        for (int i = 0; i < N; i++) {
            MPI_Start(&p);
            MPI_Wait(&p, MPI_STATUS_IGNORE);
            if (bug && i == 30)
                MPI_Send(ib, 2, MPI_INT, 1, 4, MPI_COMM_WORLD); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
            else
                MPI_Send(sb, 5, MPI_SHORT, 1, 4, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv_init(ib, 5, MPI_INT, 0, 4, MPI_COMM_WORLD, &p);
        for (int i = 0; i < N; i++) {
            MPI_Start(&p);
            MPI_Wait(&p, MPI_STATUS_IGNORE);
            MPI_Recv(sb, 5, MPI_SHORT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
        }
    }
    MPI_Request_free(&p);
}

static void cancelled(void)
{
    int ib[2] = {0};
    double db[2] = {0};
    if (rank == 1) { /* a receive cancelled before any message of its tag exists */
        MPI_Request r;
        MPI_Status st;
        int c = 0;
        MPI_Irecv(ib, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &c);
        if (!c) fprintf(stderr, "sidecars: the receive was not cancelled\n");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Send(db, 2, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
        MPI_Send(ib, 2, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else {
        MPI_Recv(db, 2, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(ib, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void freed(void)
{
    enum { N = 10 };
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int ib[2] = {0};
    float fb[2] = {0};
    if (rank == 0) {
        for (int i = 0; i < N; i++) {
            if (bug && i == N - 1)
                MPI_Send(fb, 2, MPI_FLOAT, 1, 6, c); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
            else
                MPI_Send(ib, 2, MPI_INT, 1, 6, c);
        }
    } else {
        for (int i = 0; i < N; i++) MPI_Recv(ib, 2, MPI_INT, 0, 6, c, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
    }
    MPI_Comm_free(&c);
}

enum { THREADS = 4, TN = 200 };
static MPI_Comm tcomm;

static void *thread_main(void *arg)
{
    int t = (int)(long)arg, tag = 100 + t;
    MPI_Datatype type = t == 0 ? MPI_INT : t == 1 ? MPI_FLOAT : t == 2 ? MPI_DOUBLE : MPI_SHORT;
    unsigned char buf[32] = {0}; /* storage for every type below (bytes view any memory) */
    for (int i = 0; i < TN; i++) {
        if (rank == 0) {
            if (bug && t == 2 && i == TN / 2)
                MPI_Send(buf, 2, MPI_FLOAT, 1, tag, tcomm); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
            else
                MPI_Send(buf, 2, type, 1, tag, tcomm);
        } else {
            MPI_Recv(buf, 2, type, 0, tag, tcomm, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
        }
    }
    return NULL;
}

static void threads(int provided)
{
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("sidecars: no MPI_THREAD_MULTIPLE, threads skipped\n");
        return;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &tcomm);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, thread_main, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    MPI_Comm_free(&tcomm);
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bug = argc > 1 && strcmp(argv[1], "bug") == 0;
    if (size == 2) {
        many_tags();
        MPI_Barrier(MPI_COMM_WORLD);
        wildcards();
        MPI_Barrier(MPI_COMM_WORLD);
        matched_probes();
        MPI_Barrier(MPI_COMM_WORLD);
        persistent();
        MPI_Barrier(MPI_COMM_WORLD);
        cancelled();
        freed();
        MPI_Barrier(MPI_COMM_WORLD);
        threads(provided);
    } else if (rank == 0) {
        fprintf(stderr, "sidecars: needs 2 ranks\n");
    }
    MPI_Finalize();
    return 0;
}

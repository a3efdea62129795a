/* Flushing on request: MPI_Pcontrol(2) (or VT_flush with -DUSE_VT) must put
 * every event recorded so far on disk at once. Two ranks exchange messages
 * in three phases; after each of the first two the program flushes and
 * copies what is on disk for its location at that moment
 * (trace/traces/<rank>.evt.flushed) to snap<k>/<rank>.evt, as a crash right
 * then would have left it. check_flush.py reads each copy with the final
 * definitions and compares it with the final trace: exactly the events
 * before the k-th flush call. Phase k makes 10*k ping-pongs and one
 * Allreduce, so the counts differ per phase.
 *
 * With "thread" (MPI_THREAD_MULTIPLE), a second thread makes 7 MPI_Comm_rank
 * calls before the main thread's MPI_Pcontrol(2) and one MPI_Comm_size
 * after it: at that call it flushes its own location, and the main thread
 * then copies its .flushed file to snapT/, which must hold exactly the 7
 * calls.
 *
 * With "first-pcontrol", a second thread's first MPI call is MPI_Pcontrol(2)
 * (a call that registers no thread: the trace module's hook crashed on it),
 * then one MPI_Comm_rank; the test counts that call in the archive.
 *
 *     flush_now [pcontrol|vt|thread|first-pcontrol]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#ifdef USE_VT
#include <VT.h>
#endif

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out) {
        fprintf(stderr, "flush_now: cannot copy %s to %s\n", from, to);
        exit(1);
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
}

static void phase(int rank, int k)
{
    int peer = 1 - rank, v = k;
    for (int i = 0; i < 10 * k; i++) {
        if (rank == 0) {
            MPI_Send(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

static pthread_barrier_t step;

static void *worker(void *arg)
{
    (void)arg;
    int r, n;
    for (int i = 0; i < 7; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    pthread_barrier_wait(&step); /* main: MPI_Pcontrol(2) */
    pthread_barrier_wait(&step);
    MPI_Comm_size(MPI_COMM_WORLD, &n); /* flushes this thread's location first */
    pthread_barrier_wait(&step); /* main: copies the .flushed file */
    pthread_barrier_wait(&step);
    return NULL;
}

/* The second thread's location: <rank + (index << 32)>.evt.flushed. */
static void thread_flush_test(const char *out, int rank)
{
    pthread_t th;
    pthread_barrier_init(&step, NULL, 2);
    pthread_create(&th, NULL, worker, NULL);
    pthread_barrier_wait(&step);
    MPI_Pcontrol(2);
    pthread_barrier_wait(&step);
    pthread_barrier_wait(&step);
    char dir[4096], from[4400], to[4400], mine[64];
    snprintf(dir, sizeof dir, "%s/trace/traces", out);
    snprintf(mine, sizeof mine, "%d.evt.flushed", rank);
    DIR *d = opendir(dir);
    struct dirent *e;
    int copied = 0;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        unsigned long long loc = strtoull(e->d_name, NULL, 10);
        if (n < 12 || strcmp(e->d_name + n - 12, ".evt.flushed") != 0 || !strcmp(e->d_name, mine) ||
            (loc & 0xffffffffull) != (unsigned long long)rank)
            continue; /* (this rank's second thread only) */
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        snprintf(to, sizeof to, "%s/snapT/%.*s", out, (int)(n - 8), e->d_name);
        copy_file(from, to);
        copied++;
    }
    if (d) closedir(d);
    if (copied != 1) {
        fprintf(stderr, "flush_now: rank %d: %d flushed thread locations, expected 1\n", rank, copied);
        exit(1);
    }
    pthread_barrier_wait(&step);
    pthread_join(th, NULL);
}

static void *first_pcontrol(void *arg)
{
    (void)arg;
    int r;
    MPI_Pcontrol(2);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *out = getenv("MPISCOPE_OUTPUT");
    if (size != 2 || !out) {
        fprintf(stderr, "flush_now: 2 ranks and MPISCOPE_OUTPUT needed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 1 && strcmp(argv[1], "first-pcontrol") == 0) {
        pthread_t th;
        pthread_create(&th, NULL, first_pcontrol, NULL);
        pthread_join(th, NULL);
        MPI_Finalize();
        return 0;
    }
    int vt = argc > 1 && strcmp(argv[1], "vt") == 0;
    if (argc > 1 && strcmp(argv[1], "thread") == 0) {
        if (provided != MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "flush_now: no MPI_THREAD_MULTIPLE\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/snapT", out);
        mkdir(dir, 0755);
        thread_flush_test(out, rank);
        MPI_Finalize();
        return 0;
    }
    for (int k = 1; k <= 3; k++) {
        phase(rank, k);
        if (k == 3) break;
#ifdef USE_VT
        if (vt) VT_flush();
        else
#endif
            MPI_Pcontrol(2);
        (void)vt;
        char dir[4096], from[4200], to[4200];
        snprintf(dir, sizeof dir, "%s/snap%d", out, k);
        mkdir(dir, 0755);
        snprintf(from, sizeof from, "%s/trace/traces/%d.evt.flushed", out, rank);
        snprintf(to, sizeof to, "%s/%d.evt", dir, rank);
        copy_file(from, to);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}

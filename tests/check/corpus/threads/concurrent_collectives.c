/* Two threads of one rank inside collective calls on the same communicator
 * at once. MPI-3.1 section 12.4.2 (Clarifications, collective calls):
 * collectives on a communicator match in the order each process issues
 * them; when concurrent threads issue them, the user must order the calls
 * by interthread synchronization. Erroneous: under MPI_THREAD_MULTIPLE both
 * threads of every rank call MPI_Barrier on MPI_COMM_WORLD, and rank 1 comes
 * late, so both of rank 0's threads are inside at the same time (they match
 * here only because all four calls are barriers). Correct twin: the same
 * two barriers per rank, one thread after the other under a mutex. */
/* TIMEOUT: 60 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int rank;
static pthread_mutex_t order = PTHREAD_MUTEX_INITIALIZER;

static void *caller(void *arg)
{
    (void)arg;
#ifndef BUG
    pthread_mutex_lock(&order);
#endif
    MPI_Barrier(MPI_COMM_WORLD); /* EXPECT: LOCAL:THREAD:CONCURRENT_COLLECTIVE */
#ifndef BUG
    pthread_mutex_unlock(&order);
#endif
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("concurrent_collectives: no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    if (rank == 1) usleep(300000); /* rank 0's two threads wait in MPI_Barrier together */
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, caller, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    MPI_Finalize();
    return 0;
}

/* Clock synchronization: the offset of each rank's clock to rank 0's,
 * measured at MPI_Init and at MPI_Finalize and written as OTF2 ClockOffset
 * definitions, between which readers interpolate linearly.
 *
 * One measurement between a client and a server: the client sends a ping at
 * local time t1, the server answers with its own time t0, the answer arrives
 * at t2; if the two one-way delays are equal, the server's clock read t0 at
 * local time (t1 + t2) / 2. Of PINGS round trips the shortest is kept: it
 * carries the least queueing delay, and half of it bounds the error.
 *
 * The ranks synchronize along a binomial tree, in ceil(log2 P) steps: in
 * step k every rank r < 2^k, already synchronized to rank 0, serves rank
 * r + 2^k, then sends it its own offset to rank 0 and error bound; the
 * client's offset is the sum of the two, its error bound the sum of the
 * bounds along its path (at most log2 P hops). Rank 0 alone serving every
 * rank in turn took 20 (P - 1) round trips one after the other, at init and
 * at finalize (seconds at 128 ranks oversubscribed); the tree takes 20 per
 * step, the pairs of a step in parallel.
 */
#include "impl.h"

#include "../core/clock.h"

enum { PINGS = 20, TAG = 77 };

void trc_clock_sync(int64_t *time, int64_t *offset, double *dev)
{
    int rank = msc_g.world_rank, size = msc_g.world_size;
    uint64_t t = trc_ts(msc_now_ns());
    *time = (int64_t)t;
    *offset = 0;
    *dev = 0;
    for (int step = 1; step < size; step *= 2) {
        if (rank < step && rank + step < size) { /* server of rank + step */
            int c = rank + step;
            for (int k = 0; k < PINGS; k++) {
                char ping;
                PMPI_Recv(&ping, 1, MPI_CHAR, c, TAG, msc_g.comm, MPI_STATUS_IGNORE);
                uint64_t t0 = trc_ts(msc_now_ns());
                PMPI_Send(&t0, 1, MPI_UINT64_T, c, TAG, msc_g.comm);
            }
            int64_t mine[2] = {*offset, (int64_t)(*dev + 0.5)};
            PMPI_Send(mine, 2, MPI_INT64_T, c, TAG, msc_g.comm);
        } else if (rank >= step && rank < 2 * step) { /* client of rank - step */
            int srv = rank - step;
            uint64_t best = UINT64_MAX;
            for (int k = 0; k < PINGS; k++) {
                char ping = 0;
                uint64_t t0 = 0;
                uint64_t t1 = trc_ts(msc_now_ns());
                PMPI_Send(&ping, 1, MPI_CHAR, srv, TAG, msc_g.comm);
                PMPI_Recv(&t0, 1, MPI_UINT64_T, srv, TAG, msc_g.comm, MPI_STATUS_IGNORE);
                uint64_t t2 = trc_ts(msc_now_ns());
                if (t2 - t1 < best) {
                    best = t2 - t1;
                    uint64_t mid = t1 + (t2 - t1) / 2;
                    *time = (int64_t)mid;
                    *offset = (int64_t)(t0 - mid);
                    *dev = (double)best / 2;
                }
            }
            int64_t theirs[2];
            PMPI_Recv(theirs, 2, MPI_INT64_T, srv, TAG, msc_g.comm, MPI_STATUS_IGNORE);
            *offset += theirs[0];
            *dev += (double)theirs[1];
        }
    }
}

/* Clock synchronization: the offset of each rank's clock to rank 0's,
 * measured at MPI_Init and at MPI_Finalize and written as OTF2 ClockOffset
 * definitions, between which readers interpolate linearly.
 *
 * Rank 0 serves every other rank in turn. The client sends a ping at local
 * time t1, rank 0 answers with its own time t0, the answer arrives at t2; if
 * the two one-way delays are equal, rank 0's clock read t0 at local time
 * (t1 + t2) / 2. Of PINGS round trips the shortest is kept: it carries the
 * least queueing delay, and half of it bounds the error.
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
    if (size < 2) return;
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            for (int k = 0; k < PINGS; k++) {
                char ping;
                PMPI_Recv(&ping, 1, MPI_CHAR, r, TAG, msc_g.comm, MPI_STATUS_IGNORE);
                uint64_t t0 = trc_ts(msc_now_ns());
                PMPI_Send(&t0, 1, MPI_UINT64_T, r, TAG, msc_g.comm);
            }
        }
        return;
    }
    uint64_t best = UINT64_MAX;
    for (int k = 0; k < PINGS; k++) {
        char ping = 0;
        uint64_t t0 = 0;
        uint64_t t1 = trc_ts(msc_now_ns());
        PMPI_Send(&ping, 1, MPI_CHAR, 0, TAG, msc_g.comm);
        PMPI_Recv(&t0, 1, MPI_UINT64_T, 0, TAG, msc_g.comm, MPI_STATUS_IGNORE);
        uint64_t t2 = trc_ts(msc_now_ns());
        if (t2 - t1 < best) {
            best = t2 - t1;
            uint64_t mid = t1 + (t2 - t1) / 2;
            *time = (int64_t)mid;
            *offset = (int64_t)(t0 - mid);
            *dev = (double)best / 2;
        }
    }
}

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
 *
 * Two processes of one host (same host name, same boot, same time
 * namespace) read one CLOCK_MONOTONIC: there the offset is not measured
 * through messages, whose delays on a loaded or oversubscribed node made it
 * wrong by up to milliseconds, but computed from each process's own trace
 * clock minus CLOCK_MONOTONIC, read locally in the tightest of a few
 * brackets (its error tens of nanoseconds plus the TSC calibration's few
 * parts per million, and the server's own bound).
 */
#include "impl.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/clock.h"

enum { PINGS = 20, TAG = 77, BRACKETS = 7 };

/* FNV-1a over the file's first bytes (nothing if it cannot be read). */
static uint64_t hash_file(uint64_t h, const char *path)
{
    char buf[256];
    FILE *f = fopen(path, "r");
    if (!f) return h;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)buf[i]) * 1099511628211u;
    return h;
}

/* Who shares this process's CLOCK_MONOTONIC: host name, boot, time namespace. */
static uint64_t clock_domain(void)
{
    char host[256] = "";
    uint64_t h = 14695981039346656037u;
    if (gethostname(host, sizeof host - 1) == 0)
        for (const char *c = host; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211u;
    h = hash_file(h, "/proc/sys/kernel/random/boot_id");
    return hash_file(h, "/proc/self/timens_offsets");
}

/* This process's trace clock minus CLOCK_MONOTONIC, from the tightest of
 * BRACKETS reads of the monotonic clock between two trace clock reads. */
static int64_t trace_minus_monotonic(double *err)
{
    uint64_t best = UINT64_MAX;
    int64_t d = 0;
    for (int i = 0; i < BRACKETS; i++) {
        uint64_t a = trc_ts(msc_now_ns()), m = msc_clock_monotonic_ns(), b = trc_ts(msc_now_ns());
        if (b - a < best) {
            best = b - a;
            d = (int64_t)(a + (b - a) / 2 - m);
        }
    }
    *err = (double)best / 2;
    return d;
}

void trc_clock_sync(int64_t *time, int64_t *offset, double *dev)
{
    int rank = msc_g.world_rank, size = msc_g.world_size;
    uint64_t t = trc_ts(msc_now_ns());
    *time = (int64_t)t;
    *offset = 0;
    *dev = 0;
    static uint64_t domain; /* the same at init and at finalize */
    if (!domain) domain = clock_domain();
    for (int step = 1; step < size; step *= 2) {
        if (rank < step && rank + step < size) { /* server of rank + step */
            int c = rank + step;
            uint64_t theirs;
            PMPI_Recv(&theirs, 1, MPI_UINT64_T, c, TAG, msc_g.comm, MPI_STATUS_IGNORE);
            double err = 0;
            /* same clock?, trace - monotonic, offset to rank 0, error bound */
            int64_t hdr[4] = {theirs == domain, trace_minus_monotonic(&err), *offset,
                              (int64_t)(*dev + err + 0.5)};
            PMPI_Send(hdr, 4, MPI_INT64_T, c, TAG, msc_g.comm);
            for (int k = 0; !hdr[0] && k < PINGS; k++) {
                char ping;
                PMPI_Recv(&ping, 1, MPI_CHAR, c, TAG, msc_g.comm, MPI_STATUS_IGNORE);
                uint64_t t0 = trc_ts(msc_now_ns());
                PMPI_Send(&t0, 1, MPI_UINT64_T, c, TAG, msc_g.comm);
            }
        } else if (rank >= step && rank < 2 * step) { /* client of rank - step */
            int srv = rank - step;
            int64_t hdr[4];
            PMPI_Send(&domain, 1, MPI_UINT64_T, srv, TAG, msc_g.comm);
            PMPI_Recv(hdr, 4, MPI_INT64_T, srv, TAG, msc_g.comm, MPI_STATUS_IGNORE);
            if (hdr[0]) {
                double err = 0;
                int64_t mine = trace_minus_monotonic(&err);
                *time = (int64_t)trc_ts(msc_now_ns());
                *offset = hdr[1] - mine; /* server's clock minus ours, at any instant */
                *dev = err;
            }
            uint64_t best = UINT64_MAX;
            for (int k = 0; !hdr[0] && k < PINGS; k++) {
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
            *offset += hdr[2];
            *dev += (double)hdr[3];
        }
    }
}

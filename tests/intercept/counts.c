/* Exact counts of known programs: each case makes a known number of calls of
 * each function and checks that the tool recorded exactly that many, no
 * more (nothing recorded twice, nothing of the library's own) and no fewer.
 * Loops whose length MPI decides (MPI_Test until done) count their own
 * calls. Works on any number of ranks: the partner of an unpaired rank is
 * MPI_PROC_NULL, and calls to MPI_PROC_NULL are calls too.
 */
#include "harness.h"
#include "second_tu.h"

enum { N = 10 };

static int partner(void)
{
    int p = msc_rank ^ 1;
    return p < msc_size ? p : MPI_PROC_NULL;
}

static void case_p2p_blocking(int argc, char **argv)
{
    msc_init(&argc, &argv);
    int p = partner(), x = msc_rank, y = -1;
    for (int i = 0; i < N; i++) {
        if (msc_rank % 2 == 0) {
            MPI_Send(&x, 1, MPI_INT, p, i, MPI_COMM_WORLD);
            MPI_Recv(&y, 1, MPI_INT, p, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&y, 1, MPI_INT, p, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, p, i, MPI_COMM_WORLD);
        }
        if (p != MPI_PROC_NULL) CHECK_EQ(y, p);
    }
    MPI_Status st;
    for (int i = 0; i < 3; i++)
        MPI_Sendrecv(&x, 1, MPI_INT, p, 1, &y, 1, MPI_INT, p, 1, MPI_COMM_WORLD, &st);
    MPI_Sendrecv_replace(&x, 1, MPI_INT, p, 2, p, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (msc_rank % 2 == 0)
        MPI_Ssend(&x, 1, MPI_INT, p, 3, MPI_COMM_WORLD);
    else {
        MPI_Probe(p, 3, MPI_COMM_WORLD, &st);
        MPI_Recv(&y, 1, MPI_INT, p, 3, MPI_COMM_WORLD, &st);
    }
    int even = msc_rank % 2 == 0;
    CHECK_CALLS("MPI_Send", N);
    CHECK_CALLS("MPI_Recv", N + !even);
    CHECK_CALLS("MPI_Sendrecv", 3);
    CHECK_CALLS("MPI_Sendrecv_replace", 1);
    CHECK_CALLS("MPI_Ssend", even);
    CHECK_CALLS("MPI_Probe", !even);
    CHECK_CALLS("MPI_Init", 1);
    CHECK_CALLS("MPI_Comm_rank", 0);
    CHECK_CALLS("MPI_Wait", 0);
    MPI_Finalize();
}

static void case_p2p_nonblocking(int argc, char **argv)
{
    msc_init(&argc, &argv);
    int p = partner(), x = msc_rank, y[4];
    MPI_Request r[4];
    long long tests = 0, testalls = 0, waitsomes = 0, testsomes = 0, iprobes = 0;
    for (int i = 0; i < N; i++) {
        MPI_Irecv(&y[0], 1, MPI_INT, p, i, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&x, 1, MPI_INT, p, i, MPI_COMM_WORLD, &r[1]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < N; i++) {
        MPI_Irecv(&y[0], 1, MPI_INT, p, i, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&x, 1, MPI_INT, p, i, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    /* Test loops: MPI decides how many; the program counts. */
    for (int i = 0; i < N; i++) {
        int flag = 0;
        MPI_Irecv(&y[0], 1, MPI_INT, p, i, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&x, 1, MPI_INT, p, i, MPI_COMM_WORLD, &r[1]);
        while (!flag) {
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
            tests++;
        }
        for (flag = 0; !flag; testalls++) MPI_Testall(1, &r[1], &flag, MPI_STATUSES_IGNORE);
    }
    MPI_Irecv(&y[0], 1, MPI_INT, p, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&y[1], 1, MPI_INT, p, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&x, 1, MPI_INT, p, 2, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&x, 1, MPI_INT, p, 1, MPI_COMM_WORLD, &r[3]);
    int idx, done = 0, out, ids[4];
    MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
    MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
    while (done < 2) {
        MPI_Waitsome(4, r, &out, ids, MPI_STATUSES_IGNORE);
        waitsomes++;
        if (out == MPI_UNDEFINED) break;
        done += out;
    }
    /* Testsome on null requests: one call, outcount MPI_UNDEFINED. */
    MPI_Testsome(4, r, &out, ids, MPI_STATUSES_IGNORE);
    testsomes++;
    CHECK_EQ(out, MPI_UNDEFINED);
    /* Iprobe until the message is there, then receive it. */
    MPI_Isend(&x, 1, MPI_INT, p, 9, MPI_COMM_WORLD, &r[0]);
    for (int flag = 0; !flag; iprobes++) MPI_Iprobe(p, 9, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(&y[0], 1, MPI_INT, p, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    CHECK_CALLS("MPI_Irecv", 3 * N + 2);
    CHECK_CALLS("MPI_Isend", 3 * N + 3);
    CHECK_CALLS("MPI_Wait", 2 * N + 1);
    CHECK_CALLS("MPI_Waitall", N);
    CHECK_CALLS("MPI_Test", tests);
    CHECK_CALLS("MPI_Testall", testalls);
    CHECK_CALLS("MPI_Waitany", 2);
    CHECK_CALLS("MPI_Waitsome", waitsomes);
    CHECK_CALLS("MPI_Testsome", testsomes);
    CHECK_CALLS("MPI_Iprobe", iprobes);
    CHECK_CALLS("MPI_Recv", 1);
    CHECK_CALLS("MPI_Send", 0);
    MPI_Finalize();
}

static void case_collectives(int argc, char **argv)
{
    msc_init(&argc, &argv);
    int n = msc_size, x = msc_rank + 1, s = 0;
    int *all = calloc((size_t)n, sizeof *all), *cnt = calloc((size_t)n, sizeof *cnt),
        *dsp = calloc((size_t)n, sizeof *dsp);
    for (int i = 0; i < n; i++) cnt[i] = 1, dsp[i] = i;
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 2; i++) MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_EQ(x, 1);
    x = msc_rank + 1;
    for (int i = 0; i < 4; i++) {
        MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK_EQ(s, n * (n + 1) / 2);
    }
    MPI_Reduce(&x, &s, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&x, &s, 1, MPI_INT, MPI_MIN, n - 1, MPI_COMM_WORLD);
    MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(&x, 1, MPI_INT, all, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(all, 1, MPI_INT, &x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) CHECK_EQ(all[i], i + 1);
    MPI_Alltoall(all, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Scan(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(s, (msc_rank + 1) * (msc_rank + 2) / 2);
    MPI_Exscan(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(all, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Iallreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK_EQ(s, n * (n + 1) / 2);
    long long tests = 0;
    MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    for (int flag = 0; !flag; tests++) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);

    CHECK_CALLS("MPI_Barrier", 3);
    CHECK_CALLS("MPI_Bcast", 2);
    CHECK_CALLS("MPI_Allreduce", 4);
    CHECK_CALLS("MPI_Reduce", 2);
    CHECK_CALLS("MPI_Gather", 1);
    CHECK_CALLS("MPI_Gatherv", 1);
    CHECK_CALLS("MPI_Scatter", 1);
    CHECK_CALLS("MPI_Allgather", 1);
    CHECK_CALLS("MPI_Alltoall", 1);
    CHECK_CALLS("MPI_Scan", 1);
    CHECK_CALLS("MPI_Exscan", 1);
    CHECK_CALLS("MPI_Reduce_scatter_block", 1);
    CHECK_CALLS("MPI_Ibarrier", 1);
    CHECK_CALLS("MPI_Iallreduce", 1);
    CHECK_CALLS("MPI_Ibcast", 1);
    CHECK_CALLS("MPI_Wait", 2);
    CHECK_CALLS("MPI_Test", tests);
    /* Collectives are not made of recorded point-to-point calls. */
    CHECK_CALLS("MPI_Send", 0);
    CHECK_CALLS("MPI_Isend", 0);
    CHECK_CALLS("MPI_Recv", 0);
    CHECK_CALLS("MPI_Irecv", 0);
    CHECK_CALLS("MPI_Sendrecv", 0);
    free(all), free(cnt), free(dsp);
    MPI_Finalize();
}

static void case_communicators(int argc, char **argv)
{
    msc_init(&argc, &argv);
    MPI_Comm dup1, dup2, half, sub, cart, idup;
    MPI_Group world_g, first_g;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup1);
    MPI_Comm_dup(dup1, &dup2);
    MPI_Comm_split(MPI_COMM_WORLD, msc_rank % 2, msc_rank, &half);
    MPI_Comm_group(MPI_COMM_WORLD, &world_g);
    int first = 0;
    MPI_Group_incl(world_g, 1, &first, &first_g);
    MPI_Comm_create(MPI_COMM_WORLD, first_g, &sub);
    CHECK((sub != MPI_COMM_NULL) == (msc_rank == 0));
    int dims[1] = {0}, periods[1] = {1};
    MPI_Dims_create(msc_size, 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    CHECK_EQ(hr, msc_rank / 2);
    MPI_Barrier(dup2);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup1);
    MPI_Comm_free(&half);
    if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&idup);
    MPI_Group_free(&first_g);
    MPI_Group_free(&world_g);

    CHECK_CALLS("MPI_Comm_dup", 2);
    CHECK_CALLS("MPI_Comm_split", 1);
    CHECK_CALLS("MPI_Comm_group", 1);
    CHECK_CALLS("MPI_Group_incl", 1);
    CHECK_CALLS("MPI_Comm_create", 1);
    CHECK_CALLS("MPI_Dims_create", 1);
    CHECK_CALLS("MPI_Cart_create", 1);
    CHECK_CALLS("MPI_Comm_idup", 1);
    CHECK_CALLS("MPI_Wait", 1);
    CHECK_CALLS("MPI_Comm_rank", 1);
    CHECK_CALLS("MPI_Comm_size", 1);
    CHECK_CALLS("MPI_Barrier", 1);
    CHECK_CALLS("MPI_Comm_free", 5 + (msc_rank == 0));
    CHECK_CALLS("MPI_Group_free", 2);
    /* The constructors' own agreement traffic is not the application's. */
    CHECK_CALLS("MPI_Allreduce", 0);
    CHECK_CALLS("MPI_Allgather", 0);
    MPI_Finalize();
}

static void case_persistent(int argc, char **argv)
{
    msc_init(&argc, &argv);
    int p = partner(), x = msc_rank, y = -1;
    MPI_Request r[2];
    MPI_Send_init(&x, 1, MPI_INT, p, 5, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(&y, 1, MPI_INT, p, 5, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < N; i++) {
        MPI_Start(&r[1]);
        MPI_Start(&r[0]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        if (p != MPI_PROC_NULL) CHECK_EQ(y, p);
    }
    for (int i = 0; i < N; i++) {
        MPI_Startall(2, r);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL);
    CHECK_CALLS("MPI_Send_init", 1);
    CHECK_CALLS("MPI_Recv_init", 1);
    CHECK_CALLS("MPI_Start", 2 * N);
    CHECK_CALLS("MPI_Startall", N);
    CHECK_CALLS("MPI_Waitall", N);
    CHECK_CALLS("MPI_Wait", 2 * N);
    CHECK_CALLS("MPI_Request_free", 2);
    CHECK_CALLS("MPI_Send", 0);
    CHECK_CALLS("MPI_Isend", 0);
    CHECK_CALLS("MPI_Irecv", 0);
    MPI_Finalize();
}

static void case_second_tu(int argc, char **argv)
{
    msc_init(&argc, &argv);
    CHECK_EQ(tu2_rank(), msc_rank);
    int p = partner();
    int got = tu2_exchange(p, N);
    if (p != MPI_PROC_NULL) CHECK_EQ(got, N * (N - 1) / 2);
    CHECK_EQ(tu2_sum(1), msc_size);
    CHECK_EQ(tu2_sum(2), 2 * msc_size);
    CHECK_CALLS("MPI_Comm_rank", 1);
    CHECK_CALLS("MPI_Sendrecv", N);
    CHECK_CALLS("MPI_Allreduce", 2);
    MPI_Finalize();
}

/* MPI 4.0 large-count functions are functions of their own: MPI_Send_c is
 * counted as MPI_Send_c, never also as MPI_Send. */
static void case_large_count(int argc, char **argv)
{
    msc_init(&argc, &argv);
#if MPI_VERSION >= 4
    int p = partner();
    MPI_Count c = 2;
    int x[2] = {msc_rank, msc_rank}, y[2] = {-1, -1};
    for (int i = 0; i < 3; i++) {
        if (msc_rank % 2 == 0) {
            MPI_Send_c(x, c, MPI_INT, p, 0, MPI_COMM_WORLD);
            MPI_Recv_c(y, c, MPI_INT, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv_c(y, c, MPI_INT, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send_c(x, c, MPI_INT, p, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Request r[2];
    MPI_Irecv_c(y, c, MPI_INT, p, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isend_c(x, c, MPI_INT, p, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    int s[2];
    MPI_Allreduce_c(x, s, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(s[1], msc_size * (msc_size - 1) / 2);
    MPI_Bcast_c(x, c, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_EQ(x[0], 0);
    CHECK_CALLS("MPI_Send_c", 3);
    CHECK_CALLS("MPI_Recv_c", 3);
    CHECK_CALLS("MPI_Isend_c", 1);
    CHECK_CALLS("MPI_Irecv_c", 1);
    CHECK_CALLS("MPI_Allreduce_c", 1);
    CHECK_CALLS("MPI_Bcast_c", 1);
    CHECK_CALLS("MPI_Waitall", 1);
    CHECK_CALLS("MPI_Send", 0);
    CHECK_CALLS("MPI_Recv", 0);
    CHECK_CALLS("MPI_Allreduce", 0);
    CHECK_CALLS("MPI_Bcast", 0);
#else
    FAIL("this MPI (MPI_VERSION %d) has no large-count functions", MPI_VERSION);
#endif
    MPI_Finalize();
}

/* The tool's own MPI traffic (MPI_COMM_WORLD duplicated and a broadcast at
 * MPI_Init, reductions at MPI_Finalize) never shows in the counts. */
static void case_tool_traffic(int argc, char **argv)
{
    msc_init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    const char *none[] = {"MPI_Comm_dup",  "MPI_Comm_free",     "MPI_Comm_set_name",
                          "MPI_Bcast",     "MPI_Allreduce",     "MPI_Reduce",
                          "MPI_Barrier",   "MPI_Gather",        "MPI_Allgather",
                          "MPI_Comm_size", "MPI_Query_thread",  "MPI_Send",
                          "MPI_Recv",      "MPI_Comm_split",    "MPI_Initialized"};
    size_t n = sizeof none / sizeof none[0];
    for (size_t i = 0; i < n; i++) CHECK_CALLS(none[i], 0);
    CHECK_CALLS("MPI_Init", 1);
    CHECK_CALLS("MPI_Comm_rank", 1);
    CHECK_CALLS("MPI_Finalize", 0);
    MPI_Finalize();
    /* After MPI_Finalize the counts can still be read (they are not MPI). */
    for (size_t i = 0; i < n; i++) CHECK_CALLS(none[i], 0);
    CHECK_CALLS("MPI_Finalize", 1);
    CHECK_CALLS("MPI_Comm_rank", 1);
}

/* Run linked with -lmpiscope and without LD_PRELOAD: the linked library is
 * the one that records. */
static void case_linked(int argc, char **argv)
{
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "mpiscope")) FAIL("LD_PRELOAD=%s: the tool must come from linking", pre);
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "MPI_Send");
    CHECK(sym && dladdr(sym, &info) && strstr(info.dli_fname, "libmpiscope"));
    case_p2p_blocking(argc, argv);
}

MSC_CASES_MAIN(CASE(p2p_blocking), CASE(p2p_nonblocking), CASE(collectives),
               CASE(communicators), CASE(persistent), CASE(second_tu), CASE(large_count),
               CASE(tool_traffic), CASE(linked))

/* The application gets exactly what it would get without the tool: return
 * codes of erroneous calls (compared with the same call made through PMPI in
 * the same program), statuses filled as asked, MPI_STATUS(ES)_IGNORE
 * semantics kept, and results of a computation unchanged (`results` writes
 * them to a file that the tests compare with a run without the tool).
 */
#include "harness.h"

static int error_class(int rc)
{
    int c;
    PMPI_Error_class(rc, &c);
    return c;
}

/* Two error codes say the same. Open MPI's codes are fixed numbers. MPICH
 * makes a code for every error it reports: bits 0-18 hold the class and the
 * generic error, the bits above index the message kept for that instance, so
 * two identical calls give codes equal in bits 0-18. The first line of the
 * message must be the same too (the rest, MPICH's error stack, quotes the
 * arguments, among them the status pointer that the tool passes in place of
 * MPI_STATUS_IGNORE). */
static int same_error(int a, int b)
{
    char ta[MPI_MAX_ERROR_STRING], tb[MPI_MAX_ERROR_STRING];
    int la, lb;
    PMPI_Error_string(a, ta, &la);
    PMPI_Error_string(b, tb, &lb);
    ta[strcspn(ta, "\n")] = 0;
    tb[strcspn(tb, "\n")] = 0;
#ifdef MPICH_VERSION
    int same = (a & 0x7ffff) == (b & 0x7ffff);
#else
    int same = a == b;
#endif
    if (same && error_class(a) == error_class(b) && strcmp(ta, tb) == 0) return 1;
    fprintf(stderr, "rank %d: error %#x: %s\nrank %d: error %#x: %s\n", msc_rank, a, ta,
            msc_rank, b, tb);
    return 0;
}

/* MPI_X(args) returns what PMPI_X(args) returns, of class `cls`. */
#define SAME_ERROR(cls, fn, ...)                                                            \
    do {                                                                                    \
        int msc_rc_ = MPI_##fn(__VA_ARGS__), msc_prc_ = PMPI_##fn(__VA_ARGS__);             \
        if (!same_error(msc_rc_, msc_prc_))                                                 \
            FAIL("MPI_%s returned %d, PMPI_%s %d", #fn, msc_rc_, #fn, msc_prc_);            \
        if (error_class(msc_rc_) != (cls))                                                  \
            FAIL("MPI_%s: error class %d, expected %s", #fn, error_class(msc_rc_), #cls);   \
    } while (0)

static void errors_return(void)
{
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

static void case_error_codes(int argc, char **argv)
{
    msc_init(&argc, &argv);
    errors_return();
    int x[4] = {0}, y = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    SAME_ERROR(MPI_ERR_RANK, Send, x, 1, MPI_INT, msc_size, 0, MPI_COMM_WORLD);
    SAME_ERROR(MPI_ERR_COUNT, Send, x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    SAME_ERROR(MPI_ERR_TAG, Send, x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    SAME_ERROR(MPI_ERR_TYPE, Send, x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    SAME_ERROR(MPI_ERR_COMM, Send, x, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    SAME_ERROR(MPI_ERR_RANK, Recv, &y, 1, MPI_INT, msc_size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    SAME_ERROR(MPI_ERR_COUNT, Isend, x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    SAME_ERROR(MPI_ERR_COUNT, Irecv, x, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    SAME_ERROR(MPI_ERR_OP, Allreduce, x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    SAME_ERROR(MPI_ERR_ROOT, Bcast, x, 1, MPI_INT, msc_size, MPI_COMM_WORLD);
#ifdef MPICH_VERSION
    SAME_ERROR(MPI_ERR_COUNT, Waitall, -1, &r, MPI_STATUSES_IGNORE);
#else
    SAME_ERROR(MPI_ERR_ARG, Waitall, -1, &r, MPI_STATUSES_IGNORE);
#endif
    /* Erroneous calls are calls: each counted once. */
    CHECK_CALLS("MPI_Send", 5);
    CHECK_CALLS("MPI_Recv", 1);
    CHECK_CALLS("MPI_Isend", 1);
    CHECK_CALLS("MPI_Irecv", 1);
    CHECK_CALLS("MPI_Allreduce", 1);
    CHECK_CALLS("MPI_Bcast", 1);
    CHECK_CALLS("MPI_Waitall", 1);
    MPI_Finalize();
}

/* Rank 0 sends `n` ints with tag `tag` to rank 1. */
static void send_ints(int n, int tag)
{
    int x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    PMPI_Send(x, n, MPI_INT, 1, tag, MPI_COMM_WORLD);
}

/* A receive that truncates: the same code with and without the tool, with
 * a status and with MPI_STATUS_IGNORE. */
static void case_truncate(int argc, char **argv)
{
    msc_init(&argc, &argv);
    errors_return();
    CHECK(msc_size >= 2);
    if (msc_rank == 0) {
        for (int i = 0; i < 4; i++) send_ints(4, i);
    } else if (msc_rank == 1) {
        int y[4];
        MPI_Status s1, s2;
        int rc = MPI_Recv(y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s1);
        int prc = PMPI_Recv(y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &s2);
        CHECK(same_error(rc, prc));
        CHECK_EQ(error_class(rc), MPI_ERR_TRUNCATE);
        CHECK_EQ(s1.MPI_SOURCE, s2.MPI_SOURCE);
        CHECK_EQ(s1.MPI_TAG + 1, s2.MPI_TAG);
        rc = MPI_Recv(y, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        prc = PMPI_Recv(y, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(same_error(rc, prc));
        CHECK_CALLS("MPI_Recv", 2);
    }
    MPI_Finalize();
}

/* Posts two receives on rank 1, tags base and base+1; the second one
 * truncates. `pmpi` selects PMPI_Irecv. */
static void post_two(MPI_Request r[2], int *y, int base)
{
    PMPI_Irecv(&y[0], 1, MPI_INT, 0, base, MPI_COMM_WORLD, &r[0]);
    PMPI_Irecv(&y[1], 1, MPI_INT, 0, base + 1, MPI_COMM_WORLD, &r[1]);
}

/* A multiple completion in which one request fails: MPI_Waitall (and
 * friends) given MPI_STATUSES_IGNORE return what PMPI returns for it, which
 * for some MPIs is not MPI_ERR_IN_STATUS; given statuses, they fill them. */
static void case_completion_errors(int argc, char **argv)
{
    msc_init(&argc, &argv);
    errors_return();
    CHECK(msc_size >= 2);
    enum { ROUNDS = 8 };
    if (msc_rank == 0) {
        for (int i = 0; i < ROUNDS; i++) {
            send_ints(1, 2 * i);
            send_ints(4, 2 * i + 1);
        }
        PMPI_Barrier(MPI_COMM_WORLD);
    } else if (msc_rank == 1) {
        MPI_Request r[2];
        MPI_Status st[2];
        int y[2], rc, prc, tag = 0, flag, out, idx[2];
        /* Waitall, statuses ignored. */
        post_two(r, y, tag), tag += 2;
        rc = MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        post_two(r, y, tag), tag += 2;
        prc = PMPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        if (!same_error(rc, prc)) FAIL("MPI_Waitall(MPI_STATUSES_IGNORE) returned %d, PMPI %d", rc, prc);
        /* Waitall with statuses. */
        post_two(r, y, tag), tag += 2;
        st[0].MPI_ERROR = st[1].MPI_ERROR = -77;
        rc = MPI_Waitall(2, r, st);
        CHECK_EQ(rc, MPI_ERR_IN_STATUS);
        CHECK_EQ(st[0].MPI_ERROR, MPI_SUCCESS);
        CHECK_EQ(error_class(st[1].MPI_ERROR), MPI_ERR_TRUNCATE);
        CHECK_EQ(st[1].MPI_TAG, tag - 1);
        post_two(r, y, tag), tag += 2;
        prc = PMPI_Waitall(2, r, st);
        CHECK(same_error(rc, prc));
        /* Testall, statuses ignored (both messages are there: sent first). */
        PMPI_Barrier(MPI_COMM_WORLD);
        post_two(r, y, tag), tag += 2;
        do rc = MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
        while (rc == MPI_SUCCESS && !flag);
        post_two(r, y, tag), tag += 2;
        do prc = PMPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
        while (prc == MPI_SUCCESS && !flag);
        if (!same_error(rc, prc)) FAIL("MPI_Testall(MPI_STATUSES_IGNORE) returned %d, PMPI %d", rc, prc);
        /* Waitsome, statuses ignored. */
        post_two(r, y, tag), tag += 2;
        int n = 0;
        do rc = MPI_Waitsome(2, r, &out, idx, MPI_STATUSES_IGNORE);
        while (rc == MPI_SUCCESS && out != MPI_UNDEFINED && (n += out) < 2);
        for (int i = 0; i < 2; i++) PMPI_Request_free(&r[i]);
        post_two(r, y, tag), tag += 2;
        n = 0;
        do prc = PMPI_Waitsome(2, r, &out, idx, MPI_STATUSES_IGNORE);
        while (prc == MPI_SUCCESS && out != MPI_UNDEFINED && (n += out) < 2);
        for (int i = 0; i < 2; i++) PMPI_Request_free(&r[i]);
        if (!same_error(rc, prc)) FAIL("MPI_Waitsome(MPI_STATUSES_IGNORE) returned %d, PMPI %d", rc, prc);
        CHECK_EQ(tag, 2 * ROUNDS);
    }
    MPI_Finalize();
}

/* Statuses come back filled exactly as without the tool. */
static void case_statuses(int argc, char **argv)
{
    msc_init(&argc, &argv);
    CHECK(msc_size >= 2);
    if (msc_rank == 0) {
        for (int t = 1; t <= 6; t++) send_ints(t, 10 + t);
    } else if (msc_rank == 1) {
        int y[8], n, flag, idx, out, ids[2];
        MPI_Status st, sts[2];
        MPI_Request r[2];
        MPI_Recv(y, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 11 && n == 1);
        MPI_Irecv(y, 8, MPI_INT, 0, 12, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(y, 8, MPI_INT, 0, 13, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, sts);
        MPI_Get_count(&sts[1], MPI_INT, &n);
        CHECK(sts[0].MPI_TAG == 12 && sts[1].MPI_TAG == 13 && n == 3 && sts[1].MPI_SOURCE == 0);
        MPI_Irecv(y, 8, MPI_INT, 0, 14, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(st.MPI_TAG == 14 && n == 4);
        MPI_Irecv(y, 8, MPI_INT, 0, 15, MPI_COMM_WORLD, &r[0]);
        do MPI_Test(&r[0], &flag, &st);
        while (!flag);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(st.MPI_TAG == 15 && n == 5);
        r[0] = MPI_REQUEST_NULL;
        MPI_Irecv(y, 8, MPI_INT, 0, 16, MPI_COMM_WORLD, &r[1]);
        MPI_Waitany(2, r, &idx, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(idx == 1 && st.MPI_TAG == 16 && n == 6);
        /* Completing null requests: the "empty" status, as PMPI gives it. */
        MPI_Status e1, e2;
        memset(&e1, 0x55, sizeof e1);
        memset(&e2, 0x55, sizeof e2);
        r[0] = MPI_REQUEST_NULL;
        MPI_Wait(&r[0], &e1);
        PMPI_Wait(&r[0], &e2);
        CHECK(memcmp(&e1, &e2, sizeof e1) == 0);
        r[0] = r[1] = MPI_REQUEST_NULL;
        MPI_Waitsome(2, r, &out, ids, sts);
        CHECK_EQ(out, MPI_UNDEFINED);
    }
    MPI_Finalize();
}

/* A computation whose every result depends on the exact data and order:
 * written to $MPISCOPE_OUTPUT/results.txt as exact hexadecimal floats. */
static void case_results(int argc, char **argv)
{
    msc_init(&argc, &argv);
    const char *dir = getenv("MPISCOPE_OUTPUT");
    CHECK(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/results.txt", dir);
    enum { M = 64 };
    double a[M], b[M], c[M], all[4 * M];
    for (int i = 0; i < M; i++) a[i] = 1.0 / (3.0 + i + 7.0 * msc_rank);
    MPI_Allreduce(a, b, M, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(a, c, M, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
    int p = msc_rank ^ 1;
    if (p >= msc_size) p = MPI_PROC_NULL;
    for (int i = 0; i < M; i++) all[i] = b[i] * c[i];
    MPI_Sendrecv_replace(all, M, MPI_DOUBLE, p, 0, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double *gathered = malloc(sizeof(double) * M * (size_t)msc_size);
    MPI_Gather(all, M, MPI_DOUBLE, gathered, M, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (msc_rank == 0) {
        FILE *f = fopen(path, "w");
        CHECK(f);
        for (int i = 0; i < M * msc_size; i++) fprintf(f, "%a\n", gathered[i]);
        for (int i = 0; i < M; i++) fprintf(f, "%a %a\n", b[i], c[i]);
        fclose(f);
    }
    free(gathered);
    MPI_Finalize();
}

MSC_CASES_MAIN(CASE(error_codes), CASE(truncate), CASE(completion_errors), CASE(statuses),
               CASE(results))

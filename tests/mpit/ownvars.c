/* mpiscope's own MPI_T variables measure what the program did: bytes and
 * messages per peer equal what was sent, counts follow the communicator's
 * size, and each class behaves as section 14.3.7 says under start, stop,
 * reset and readreset. Run with 2 or more ranks. */
#include <stdlib.h>

#include "check.h"

static int rank, size;

static int pvar(const char *name, int cls)
{
    int i = -1;
    return MPI_T_pvar_get_index(name, cls, &i) == MPI_SUCCESS ? i : -1;
}

/* Each rank sends 1+peer messages of (rank+1)*10 ints to every other rank,
 * with MPI_Send, MPI_Isend and MPI_Sendrecv in turn, on `comm`. */
static void traffic(MPI_Comm comm)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int buf[4096] = {0}, in[4096];
    for (int step = 1; step < n; step++) {
        int to = (r + step) % n, from = (r - step + n) % n;
        for (int m = 0; m < 1 + to || m < 1 + r; m++) {
            int send = m < 1 + to, recv = m < 1 + r;
            int cnt = (r + 1) * 10, rcnt = (from + 1) * 10;
            if (send && recv) {
                MPI_Sendrecv(buf, cnt, MPI_INT, to, m, in, rcnt, MPI_INT, from, m, comm,
                             MPI_STATUS_IGNORE);
            } else if (send) {
                MPI_Request q;
                MPI_Isend(buf, cnt, MPI_INT, to, m, comm, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(in, rcnt, MPI_INT, from, m, comm, MPI_STATUS_IGNORE);
            }
        }
    }
}

static int t_bytes_per_peer(void)
{
    const char *names[4] = {"mpiscope_p2p_messages_sent", "mpiscope_p2p_bytes_sent",
                            "mpiscope_p2p_messages_received", "mpiscope_p2p_bytes_received"};
    int cls[4] = {MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_COUNTER,
                  MPI_T_PVAR_CLASS_AGGREGATE};
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h[4];
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    for (int k = 0; k < 4; k++) {
        int n, i = pvar(names[k], cls[k]);
        CHECK(i >= 0);
        CHECK_RC(MPI_T_pvar_handle_alloc(s, i, &comm, &h[k], &n), MPI_SUCCESS);
        CHECK(n == size);
    }
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    traffic(comm);
    traffic(MPI_COMM_WORLD); /* another communicator: not counted here */
    unsigned long long v[4][64];
    for (int k = 0; k < 4; k++) CHECK_RC(MPI_T_pvar_read(s, h[k], v[k]), MPI_SUCCESS);
    for (int p = 0; p < size; p++) {
        unsigned long long sent = p == rank ? 0 : 1 + p, recvd = p == rank ? 0 : 1 + rank;
        CHECK(v[0][p] == sent);
        CHECK(v[1][p] == sent * (rank + 1) * 10 * sizeof(int));
        CHECK(v[2][p] == recvd);
        CHECK(v[3][p] == recvd * (p + 1) * 10 * sizeof(int));
    }
    /* readreset gives the value and starts over. */
    CHECK_RC(MPI_T_pvar_readreset(s, h[1], v[1]), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s, h[1], v[0]), MPI_SUCCESS);
    for (int p = 0; p < size; p++) CHECK(v[0][p] == 0);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    MPI_Comm_free(&comm);
    return 0;
}

static int t_counts_per_communicator(void)
{
    MPI_Comm half, self = MPI_COMM_SELF, world = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hs, n, i = pvar("mpiscope_p2p_messages_sent", MPI_T_PVAR_CLASS_COUNTER);
    MPI_Comm_size(half, &hs);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, &world, &h, &n), MPI_SUCCESS);
    CHECK(n == size);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, &half, &h, &n), MPI_SUCCESS);
    CHECK(n == hs);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, &self, &h, &n), MPI_SUCCESS);
    CHECK(n == 1);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    MPI_Comm_free(&half);
    return 0;
}

static int t_timer(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    double a, b, c;
    int n, i = pvar("mpiscope_time_in_mpi", MPI_T_PVAR_CLASS_TIMER);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s, h, &a), MPI_SUCCESS);
    CHECK(a == 0.0);
    CHECK_RC(MPI_T_pvar_start(s, h), MPI_SUCCESS);
    for (int k = 0; k < 50; k++) MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_T_pvar_stop(s, h), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s, h, &b), MPI_SUCCESS);
    CHECK(b > 0.0 && b < 60.0);
    for (int k = 0; k < 50; k++) MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_T_pvar_read(s, h, &c), MPI_SUCCESS);
    CHECK(c == b); /* stopped: frozen */
    CHECK_RC(MPI_T_pvar_readreset(s, h, &c), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s, h, &c), MPI_SUCCESS);
    CHECK(c == 0.0);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static int t_level_and_watermark(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle lvl, hwm;
    unsigned long long v;
    int n, il = pvar("mpiscope_pending_requests", MPI_T_PVAR_CLASS_LEVEL);
    int ih = pvar("mpiscope_pending_requests", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    CHECK(il >= 0 && ih >= 0 && il != ih);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, il, NULL, &lvl, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, ih, NULL, &hwm, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(s, hwm), MPI_SUCCESS);
    int x[3];
    MPI_Request q[3];
    for (int k = 0; k < 3; k++) MPI_Irecv(&x[k], 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_SELF, &q[k]);
    CHECK_RC(MPI_T_pvar_read(s, lvl, &v), MPI_SUCCESS); /* continuous: always current */
    CHECK(v == 3);
    for (int k = 0; k < 3; k++) MPI_Send(&k, 1, MPI_INT, 0, 77, MPI_COMM_SELF);
    MPI_Status st[3];
    MPI_Waitall(3, q, st);
    CHECK_RC(MPI_T_pvar_read(s, lvl, &v), MPI_SUCCESS);
    CHECK(v == 0);
    CHECK_RC(MPI_T_pvar_read(s, hwm, &v), MPI_SUCCESS);
    CHECK(v == 3);
    CHECK_RC(MPI_T_pvar_reset(s, hwm), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s, hwm, &v), MPI_SUCCESS);
    CHECK(v == 0);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static int t_unexpected(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    unsigned long long v;
    int n, x = 0, y = 0, i = pvar("mpiscope_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(s, h), MPI_SUCCESS);
    /* To self, sent before the receive is posted: unexpected. */
    MPI_Request q;
    MPI_Isend(&x, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &q);
    MPI_Recv(&y, 1, MPI_INT, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    /* Posted before the send: expected. */
    MPI_Irecv(&y, 1, MPI_INT, 0, 6, MPI_COMM_SELF, &q);
    MPI_Send(&x, 1, MPI_INT, 0, 6, MPI_COMM_SELF);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK_RC(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    CHECK(v == 1);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static int t_recording_cvar(void)
{
    int c, n, v;
    MPI_T_cvar_handle ch;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    unsigned long long calls;
    CHECK_RC(MPI_T_cvar_get_index("mpiscope_recording", &c), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_handle_alloc(c, NULL, &ch, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_read(ch, &v), MPI_SUCCESS);
    CHECK(v == 1);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    int i = pvar("mpiscope_calls_collective", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(s, h), MPI_SUCCESS);
    v = 0;
    CHECK_RC(MPI_T_cvar_write(ch, &v), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_T_pvar_read(s, h, &calls), MPI_SUCCESS);
    CHECK(calls == 0);
    v = 1;
    CHECK_RC(MPI_T_cvar_write(ch, &v), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_T_pvar_read(s, h, &calls), MPI_SUCCESS);
    CHECK(calls == 1);
    /* A truth value: any int, read back while recording is as it set. */
    v = 123;
    CHECK_RC(MPI_T_cvar_write(ch, &v), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_read(ch, &v), MPI_SUCCESS);
    CHECK(v == 123);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_T_pvar_read(s, h, &calls), MPI_SUCCESS);
    CHECK(calls == 2);
    v = -7;
    CHECK_RC(MPI_T_cvar_write(ch, &v), MPI_SUCCESS);
    MPI_Pcontrol(0);
    CHECK_RC(MPI_T_cvar_read(ch, &v), MPI_SUCCESS);
    CHECK(v == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_T_pvar_read(s, h, &calls), MPI_SUCCESS);
    CHECK(calls == 2);
    MPI_Pcontrol(1);
    CHECK_RC(MPI_T_cvar_read(ch, &v), MPI_SUCCESS);
    CHECK(v == 1);
    CHECK_RC(MPI_T_cvar_handle_free(&ch), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static const check_test_t tests[] = {
    {"own/bytes_per_peer", t_bytes_per_peer},
    {"own/counts_per_communicator", t_counts_per_communicator},
    {"own/timer_start_stop_readreset", t_timer},
    {"own/level_and_high_watermark", t_level_and_watermark},
    {"own/unexpected_messages", t_unexpected},
    {"own/recording_cvar", t_recording_cvar},
};

int main(int argc, char **argv)
{
    int p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_rank = rank;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &p) != MPI_SUCCESS) return 1;
    check_run(tests, sizeof tests / sizeof tests[0]);
    MPI_T_finalize();
    MPI_Finalize();
    return check_failures != 0;
}

/* Conformance of the MPI_T interface a client sees with mpiscope loaded, one
 * test per rule of section 14.3 of the MPI standard. Variables whose names
 * start with "mpiscope_" are mpiscope's own; all others are the library's.
 * Phases: before MPI_Init, between MPI_Init and MPI_Finalize, after
 * MPI_Finalize (where Open MPI 4.1 crashes in MPI_T_finalize by itself).
 * Run with 2 ranks. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

static int n_cvar0, n_pvar0, n_cat0;  /* counts before MPI_Init */
static int n_cvar1, n_pvar1, n_cat1;  /* counts while MPI runs */
static char first_cvar_name[256];     /* cvar 0 as first seen */
static char first_pvar_name[256];

static int counts(int *c, int *p, int *k)
{
    CHECK_RC(MPI_T_cvar_get_num(c), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_get_num(p), MPI_SUCCESS);
    CHECK_RC(MPI_T_category_get_num(k), MPI_SUCCESS);
    return 0;
}

static int pvar(const char *name, int cls)
{
    int i = -1;
    return MPI_T_pvar_get_index(name, cls, &i) == MPI_SUCCESS ? i : -1;
}

static int cvar(const char *name)
{
    int i = -1;
    return MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS ? i : -1;
}

static int pvar_info(int i, char *name, int *cls, int *bind, int *ro, int *cont, int *atomic)
{
    int len = 256;
    return MPI_T_pvar_get_info(i, name, &len, NULL, cls, NULL, NULL, NULL, NULL, bind, ro, cont,
                               atomic);
}

/* --- 14.3.4: initialization and finalization -------------------------------- */

static int t_not_initialized(void)
{
    int n, stamp;
    MPI_T_pvar_session s;
    CHECK_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_category_changed(&stamp), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    return 0;
}

static int t_init_refcount(void)
{
    int p, n;
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &p), MPI_SUCCESS);
    CHECK(p >= MPI_THREAD_SINGLE && p <= MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &p), MPI_SUCCESS);
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* still initialized once */
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    return 0;
}

static int t_reinit_cycles(void)
{
    int p, prev = -1;
    for (int cycle = 0; cycle < 3; cycle++) {
        int c, pv, k;
        CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &p), MPI_SUCCESS);
        if (counts(&c, &pv, &k)) return 1;
        CHECK(c >= prev);
        prev = c;
        CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    }
    return 0;
}

static int t_thread_level(void)
{
    int p;
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &p), MPI_SUCCESS);
    CHECK(p == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    return 0;
}

/* PMPI_T_ names reach the same union as MPI_T_ ones. */
static int t_pmpi_twin(void)
{
    int a, b;
    CHECK_RC(MPI_T_pvar_get_num(&a), MPI_SUCCESS);
    CHECK_RC(PMPI_T_pvar_get_num(&b), MPI_SUCCESS);
    CHECK(a == b && pvar("mpiscope_time_in_mpi", MPI_T_PVAR_CLASS_TIMER) >= 0);
    int i;
    CHECK_RC(PMPI_T_pvar_get_index("mpiscope_time_in_mpi", MPI_T_PVAR_CLASS_TIMER, &i), MPI_SUCCESS);
    return 0;
}

/* --- 14.3.3: strings --------------------------------------------------------- */

static int t_string_convention(void)
{
    char full[4096], buf[16];
    int len = sizeof full;
    CHECK_RC(MPI_T_cvar_get_info(0, full, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    int want = (int)strlen(full) + 1;
    CHECK(len == want && want > 1);
    /* NULL buffer: only the length. */
    len = 100;
    CHECK_RC(MPI_T_cvar_get_info(0, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(len == want);
    /* Length 0: buffer untouched. */
    memset(buf, 'x', sizeof buf);
    len = 0;
    CHECK_RC(MPI_T_cvar_get_info(0, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(len == want && buf[0] == 'x');
    /* Truncation: n - 1 characters and a terminator, length + 1 returned. */
    memset(buf, 'x', sizeof buf);
    len = 4;
    CHECK_RC(MPI_T_cvar_get_info(0, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(len == want && buf[3] == '\0' && strncmp(buf, full, 3) == 0 && buf[4] == 'x');
    /* NULL length: the buffer is ignored. */
    memset(buf, 'x', sizeof buf);
    CHECK_RC(MPI_T_cvar_get_info(0, buf, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(buf[0] == 'x');
    /* The same for a category description and an own pvar name. */
    int k = -1;
    CHECK_RC(MPI_T_category_get_index("mpiscope", &k), MPI_SUCCESS);
    len = 0;
    CHECK_RC(MPI_T_category_get_info(k, NULL, NULL, buf, &len, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(len > 1);
    len = 5;
    CHECK_RC(MPI_T_category_get_info(k, buf, &len, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(len == 9 && strcmp(buf, "mpis") == 0);
    return 0;
}

/* --- errors of table 14.6 ---------------------------------------------------- */

static int t_invalid_index(void)
{
    int c, p, k, n;
    if (counts(&c, &p, &k)) return 1;
    CHECK_RC(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_cvar_get_info(c, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_pvar_get_info(p, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_pvar_get_info(p + 1000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_category_get_info(k, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_category_get_cvars(k, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    MPI_T_cvar_handle ch;
    CHECK_RC(MPI_T_cvar_handle_alloc(c, NULL, &ch, &n), MPI_T_ERR_INVALID_INDEX);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, p, NULL, &h, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, -1, NULL, &h, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

/* Every pvar index below the count answers get_info with success or
 * MPI_T_ERR_INVALID_INDEX (Open MPI 4.1 says MPI_T_ERR_INVALID for the
 * variables it invalidated at MPI_Init), and handle_alloc likewise. */
static int t_invalidated_index(void)
{
    int p, n;
    CHECK_RC(MPI_T_pvar_get_num(&p), MPI_SUCCESS);
    MPI_T_pvar_session s;
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int i = 0; i < p; i++) {
        char name[256];
        int cls, bind, ro, cont, at;
        int rc = pvar_info(i, name, &cls, &bind, &ro, &cont, &at);
        CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_INVALID_INDEX);
        if (rc != MPI_SUCCESS) continue;
        if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM) continue;
        MPI_T_pvar_handle h;
        rc = MPI_T_pvar_handle_alloc(s, i, &comm, &h, &n);
        CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_INVALID_INDEX);
        if (rc == MPI_SUCCESS) CHECK_RC(MPI_T_pvar_handle_free(s, &h), MPI_SUCCESS);
    }
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static int t_invalid_name(void)
{
    int i;
    CHECK_RC(MPI_T_cvar_get_index("no_such_variable_anywhere", &i), MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_pvar_get_index("no_such_variable_anywhere", MPI_T_PVAR_CLASS_COUNTER, &i),
             MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_category_get_index("no_such_category_anywhere", &i), MPI_T_ERR_INVALID_NAME);
    /* A name exists with another class only. */
    CHECK_RC(MPI_T_pvar_get_index("mpiscope_time_in_mpi", MPI_T_PVAR_CLASS_COUNTER, &i),
             MPI_T_ERR_INVALID_NAME);
    return 0;
}

/* get_index finds what get_info names, on both sides of the union. */
static int t_get_index(void)
{
    int c, p, k;
    if (counts(&c, &p, &k)) return 1;
    for (int i = 0; i < c; i += (i < 5 || i > c - 5 ? 1 : 17)) {
        char name[256];
        int len = sizeof name, j = -1;
        CHECK_RC(MPI_T_cvar_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_SUCCESS);
        CHECK_RC(MPI_T_cvar_get_index(name, &j), MPI_SUCCESS);
        if (j != i) {
            /* Only a variable the library invalidated may share its name
             * with a live one, which get_index then names. */
            MPI_T_cvar_handle h;
            MPI_Comm comm = MPI_COMM_WORLD;
            int n;
            char other[256];
            len = sizeof other;
            CHECK_RC(MPI_T_cvar_get_info(j, other, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
            CHECK(strcmp(name, other) == 0);
            CHECK_RC(MPI_T_cvar_handle_alloc(i, &comm, &h, &n), MPI_T_ERR_INVALID_INDEX);
            CHECK_RC(MPI_T_cvar_handle_alloc(j, &comm, &h, &n), MPI_SUCCESS);
            CHECK_RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
        }
    }
    for (int i = 0; i < p; i++) {
        char name[256];
        int cls, j = -1;
        if (pvar_info(i, name, &cls, NULL, NULL, NULL, NULL) != MPI_SUCCESS) continue;
        CHECK_RC(MPI_T_pvar_get_index(name, cls, &j), MPI_SUCCESS);
        CHECK(j == i);
    }
    for (int i = 0; i < k; i++) {
        char name[256];
        int len = sizeof name, j = -1;
        CHECK_RC(MPI_T_category_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL),
                 MPI_SUCCESS);
        CHECK_RC(MPI_T_category_get_index(name, &j), MPI_SUCCESS);
        CHECK(j == i);
    }
    return 0;
}

static int t_invalid_handle(void)
{
    MPI_T_pvar_session s, s2;
    MPI_T_pvar_handle h, h2;
    unsigned long long v;
    int n, i = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK(i >= 0);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s, MPI_T_PVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_HANDLE_NULL), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    h2 = h;
    CHECK_RC(MPI_T_pvar_handle_free(s, &h), MPI_SUCCESS);
    CHECK(h == MPI_T_PVAR_HANDLE_NULL);
    CHECK_RC(MPI_T_pvar_read(s, h2, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_handle_free(s, &h2), MPI_T_ERR_INVALID_HANDLE);
    /* A handle of one session is rejected in another. */
    CHECK_RC(MPI_T_pvar_session_create(&s2), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s2, h, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_start(s2, h), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_reset(s2, h), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_handle_free(s2, &h), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    /* Control variable handles. */
    MPI_T_cvar_handle ch, ch2;
    int c = cvar("mpiscope_mode");
    CHECK(c >= 0);
    char buf[2048];
    CHECK_RC(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_cvar_handle_alloc(c, NULL, &ch, &n), MPI_SUCCESS);
    ch2 = ch;
    CHECK_RC(MPI_T_cvar_handle_free(&ch), MPI_SUCCESS);
    CHECK(ch == MPI_T_CVAR_HANDLE_NULL);
    CHECK_RC(MPI_T_cvar_read(ch2, buf), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_cvar_write(ch2, buf), MPI_T_ERR_INVALID_HANDLE);
    return 0;
}

static int t_invalid_session(void)
{
    MPI_T_pvar_session s, s2;
    MPI_T_pvar_handle h;
    int n, i = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_RC(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, i, NULL, &h, &n),
             MPI_T_ERR_INVALID_SESSION);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    s2 = s;
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    CHECK(s == MPI_T_PVAR_SESSION_NULL);
    CHECK_RC(MPI_T_pvar_handle_alloc(s2, i, NULL, &h, &n), MPI_T_ERR_INVALID_SESSION);
    CHECK_RC(MPI_T_pvar_start(s2, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    CHECK_RC(MPI_T_pvar_session_free(&s2), MPI_T_ERR_INVALID_SESSION);
    return 0;
}

static int t_enum_items(void)
{
    int c = cvar("mpiscope_clock"), num, v, len;
    MPI_T_enum e;
    MPI_Datatype dt;
    CHECK(c >= 0);
    CHECK_RC(MPI_T_cvar_get_info(c, NULL, NULL, NULL, &dt, &e, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(dt == MPI_INT && e != MPI_T_ENUM_NULL);
    char name[64];
    len = sizeof name;
    CHECK_RC(MPI_T_enum_get_info(e, &num, name, &len), MPI_SUCCESS);
    CHECK(num == 3 && len > 1);
    len = sizeof name;
    CHECK_RC(MPI_T_enum_get_item(e, 1, &v, name, &len), MPI_SUCCESS);
    CHECK(v == 1 && strcmp(name, "tsc") == 0);
    CHECK_RC(MPI_T_enum_get_item(e, num, &v, name, &len), MPI_T_ERR_INVALID_ITEM);
    CHECK_RC(MPI_T_enum_get_item(e, -1, &v, name, &len), MPI_T_ERR_INVALID_ITEM);
    CHECK_RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    /* Every enumeration of the union answers, library ones included. */
    int nc;
    CHECK_RC(MPI_T_cvar_get_num(&nc), MPI_SUCCESS);
    for (int i = 0; i < nc; i++) {
        if (MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, &e, NULL, NULL, NULL, NULL) !=
                MPI_SUCCESS ||
            e == MPI_T_ENUM_NULL)
            continue;
        CHECK(dt == MPI_INT);
        CHECK_RC(MPI_T_enum_get_info(e, &num, NULL, NULL), MPI_SUCCESS);
        CHECK(num > 0);
        CHECK_RC(MPI_T_enum_get_item(e, num, &v, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
    }
    return 0;
}

/* Start/stop refused for continuous variables; write/reset for read-only
 * ones; readreset for non-atomic ones and for MPI_T_PVAR_ALL_HANDLES. */
static int t_pvar_refusals(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle lvl, cnt;
    unsigned long long v = 0;
    int n, il = pvar("mpiscope_pending_requests", MPI_T_PVAR_CLASS_LEVEL);
    int ic = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK(il >= 0 && ic >= 0);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, il, NULL, &lvl, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, ic, NULL, &cnt, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(s, lvl), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_RC(MPI_T_pvar_stop(s, lvl), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_RC(MPI_T_pvar_write(s, lvl, &v), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_RC(MPI_T_pvar_reset(s, lvl), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_RC(MPI_T_pvar_readreset(s, lvl, &v), MPI_T_ERR_PVAR_NO_ATOMIC);
    CHECK_RC(MPI_T_pvar_readreset(s, cnt, &v), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_readreset(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_write(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    /* ALL_HANDLES ignores the continuous and read-only ones. */
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

/* The same refusals for the library's own variables, when it has any. */
static int t_lib_pvar_refusals(void)
{
    int p;
    CHECK_RC(MPI_T_pvar_get_num(&p), MPI_SUCCESS);
    MPI_T_pvar_session s;
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int i = 0; i < p; i++) {
        char name[256], buf[4096];
        int cls, bind, ro, cont, at, n;
        if (pvar_info(i, name, &cls, &bind, &ro, &cont, &at) != MPI_SUCCESS) continue;
        if (strncmp(name, "mpiscope_", 9) == 0) continue;
        if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM) continue;
        MPI_T_pvar_handle h;
        if (MPI_T_pvar_handle_alloc(s, i, &comm, &h, &n) != MPI_SUCCESS) continue;
        if ((size_t)n * 16 > sizeof buf) continue;
        if (cont) CHECK_RC(MPI_T_pvar_start(s, h), MPI_T_ERR_PVAR_NO_STARTSTOP);
        if (ro) CHECK_RC(MPI_T_pvar_reset(s, h), MPI_T_ERR_PVAR_NO_WRITE);
        if (!at) CHECK_RC(MPI_T_pvar_readreset(s, h, buf), MPI_T_ERR_PVAR_NO_ATOMIC);
        if (at && !ro) CHECK_RC(MPI_T_pvar_readreset(s, h, buf), MPI_SUCCESS);
        CHECK_RC(MPI_T_pvar_read(s, h, buf), MPI_SUCCESS);
    }
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static int t_cvar_set_never(void)
{
    MPI_T_cvar_handle h;
    int n, c = cvar("mpiscope_callsite_depth"), v = 3;
    CHECK(c >= 0);
    CHECK_RC(MPI_T_cvar_handle_alloc(c, NULL, &h, &n), MPI_SUCCESS);
    CHECK(n == 1);
    CHECK_RC(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_RC(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    CHECK(v == 1);
    CHECK_RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    return 0;
}

/* Before MPI_Init, recording cannot be switched yet. */
static int t_cvar_set_not_now(void)
{
    MPI_T_cvar_handle h;
    int n, c = cvar("mpiscope_recording"), v = 0;
    CHECK(c >= 0);
    CHECK_RC(MPI_T_cvar_handle_alloc(c, NULL, &h, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NOT_NOW);
    CHECK_RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    return 0;
}

/* A variable bound to an object, with a NULL object. */
static int t_bound_null_object(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int n, i = pvar("mpiscope_p2p_bytes_sent", MPI_T_PVAR_CLASS_AGGREGATE);
    CHECK(i >= 0);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_T_ERR_INVALID);
    MPI_Comm null = MPI_COMM_NULL;
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, &null, &h, &n), MPI_T_ERR_INVALID);
    /* Every bound variable of the union, library ones included. */
    int p, c;
    CHECK_RC(MPI_T_pvar_get_num(&p), MPI_SUCCESS);
    for (int k = 0; k < p; k++) {
        int bind;
        if (pvar_info(k, NULL, NULL, &bind, NULL, NULL, NULL) != MPI_SUCCESS) continue;
        if (bind != MPI_T_BIND_NO_OBJECT)
            CHECK_RC(MPI_T_pvar_handle_alloc(s, k, NULL, &h, &n), MPI_T_ERR_INVALID);
    }
    CHECK_RC(MPI_T_cvar_get_num(&c), MPI_SUCCESS);
    for (int k = 0; k < c; k++) {
        int bind;
        MPI_T_cvar_handle ch;
        if (MPI_T_cvar_get_info(k, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &bind, NULL) !=
            MPI_SUCCESS)
            continue;
        if (bind != MPI_T_BIND_NO_OBJECT)
            CHECK_RC(MPI_T_cvar_handle_alloc(k, NULL, &ch, &n), MPI_T_ERR_INVALID);
    }
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

/* --- 14.3.7: counters, sessions ---------------------------------------------- */

static void p2p_calls(int k)
{
    for (int i = 0; i < k; i++) {
        int x = i;
        MPI_Sendrecv_replace(&x, 1, MPI_INT, 0, 1, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    }
}

static unsigned long long readu(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ull;
    MPI_T_pvar_read(s, h, &v);
    return v;
}

static int t_read_before_start(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int n, i = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    p2p_calls(5);
    CHECK(readu(s, h) == 0);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static int t_start_stop_reset(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    unsigned long long v;
    int n, i = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(s, h), MPI_SUCCESS);
    p2p_calls(7);
    CHECK_RC(MPI_T_pvar_stop(s, h), MPI_SUCCESS);
    p2p_calls(3);
    CHECK(readu(s, h) == 7);
    CHECK_RC(MPI_T_pvar_start(s, h), MPI_SUCCESS);
    p2p_calls(2);
    CHECK(readu(s, h) == 9);
    CHECK_RC(MPI_T_pvar_readreset(s, h, &v), MPI_SUCCESS);
    CHECK(v == 9);
    CHECK(readu(s, h) == 0);
    p2p_calls(4);
    CHECK_RC(MPI_T_pvar_reset(s, h), MPI_SUCCESS);
    p2p_calls(1);
    CHECK(readu(s, h) == 1);
    v = 100;
    CHECK_RC(MPI_T_pvar_write(s, h, &v), MPI_SUCCESS);
    p2p_calls(1);
    CHECK(readu(s, h) == 101);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    return 0;
}

static int t_two_sessions(void)
{
    MPI_T_pvar_session a, b;
    MPI_T_pvar_handle ha, hb;
    int n, i = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_RC(MPI_T_pvar_session_create(&a), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_create(&b), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(a, i, NULL, &ha, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(b, i, NULL, &hb, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    p2p_calls(3);
    CHECK_RC(MPI_T_pvar_start(b, hb), MPI_SUCCESS);
    p2p_calls(2);
    CHECK(readu(a, ha) == 5 && readu(b, hb) == 2);
    CHECK_RC(MPI_T_pvar_reset(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    p2p_calls(1);
    CHECK(readu(a, ha) == 1 && readu(b, hb) == 3);
    CHECK_RC(MPI_T_pvar_stop(b, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    p2p_calls(1);
    CHECK(readu(a, ha) == 2 && readu(b, hb) == 3);
    CHECK_RC(MPI_T_pvar_session_free(&a), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_free(&b), MPI_SUCCESS);
    return 0;
}

/* One session with handles of both sides; ALL_HANDLES acts on both. */
static int t_mixed_session(void)
{
    int p;
    CHECK_RC(MPI_T_pvar_get_num(&p), MPI_SUCCESS);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle own, lib = MPI_T_PVAR_HANDLE_NULL;
    int n, lib_cont = 1, i = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &own, &n), MPI_SUCCESS);
    for (int k = 0; k < p && lib == MPI_T_PVAR_HANDLE_NULL; k++) {
        char name[256];
        int bind, cont;
        if (pvar_info(k, name, NULL, &bind, NULL, &cont, NULL) != MPI_SUCCESS) continue;
        if (strncmp(name, "mpiscope_", 9) == 0 || bind != MPI_T_BIND_NO_OBJECT) continue;
        if (MPI_T_pvar_handle_alloc(s, k, NULL, &lib, &n) != MPI_SUCCESS || n > 64)
            lib = MPI_T_PVAR_HANDLE_NULL;
        lib_cont = cont;
    }
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    p2p_calls(2);
    CHECK(readu(s, own) == 2);
    if (lib != MPI_T_PVAR_HANDLE_NULL) {
        unsigned long long buf[64];
        CHECK_RC(MPI_T_pvar_read(s, lib, buf), MPI_SUCCESS);
        /* Started by ALL_HANDLES: starting it again is harmless, unless continuous. */
        CHECK_RC(MPI_T_pvar_start(s, lib), lib_cont ? MPI_T_ERR_PVAR_NO_STARTSTOP : MPI_SUCCESS);
    }
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    if (check_rank == 0)
        printf("[rank 0] mixed session: %s\n",
               lib != MPI_T_PVAR_HANDLE_NULL ? "with a library pvar" : "library has no usable pvar");
    return 0;
}

/* --- 14.3.8: categories --------------------------------------------------------- */

static int reaches(int from, int to, int depth, int ncat)
{
    if (depth > ncat) return 1; /* a cycle */
    int nsub;
    if (MPI_T_category_get_info(from, NULL, NULL, NULL, NULL, NULL, NULL, &nsub) != MPI_SUCCESS)
        return 0;
    int *sub = malloc(((size_t)nsub + 1) * sizeof *sub);
    MPI_T_category_get_categories(from, nsub, sub);
    int r = 0;
    for (int i = 0; i < nsub && !r; i++) r = sub[i] == to || reaches(sub[i], to, depth + 1, ncat);
    free(sub);
    return r;
}

static int t_categories(void)
{
    int c, p, k;
    if (counts(&c, &p, &k)) return 1;
    for (int i = 0; i < k; i++) {
        int nc, np, nk;
        CHECK_RC(MPI_T_category_get_info(i, NULL, NULL, NULL, NULL, &nc, &np, &nk), MPI_SUCCESS);
        int ix[4096];
        CHECK(nc < 4096 && np < 4096 && nk < 4096);
        CHECK_RC(MPI_T_category_get_cvars(i, nc, ix), MPI_SUCCESS);
        for (int j = 0; j < nc; j++) CHECK(ix[j] >= 0 && ix[j] < c);
        CHECK_RC(MPI_T_category_get_pvars(i, np, ix), MPI_SUCCESS);
        for (int j = 0; j < np; j++) CHECK(ix[j] >= 0 && ix[j] < p);
        CHECK_RC(MPI_T_category_get_categories(i, nk, ix), MPI_SUCCESS);
        for (int j = 0; j < nk; j++) CHECK(ix[j] >= 0 && ix[j] < k && ix[j] != i);
        CHECK(!reaches(i, i, 0, k));
    }
    /* mpiscope's tree: the root holds one category per module; len limits. */
    int root, nk, sub[3] = {-7, -7, -7};
    CHECK_RC(MPI_T_category_get_index("mpiscope", &root), MPI_SUCCESS);
    CHECK_RC(MPI_T_category_get_info(root, NULL, NULL, NULL, NULL, NULL, NULL, &nk), MPI_SUCCESS);
    CHECK(nk >= 2);
    CHECK_RC(MPI_T_category_get_categories(root, 1, sub), MPI_SUCCESS);
    CHECK(sub[0] >= 0 && sub[1] == -7);
    int mpit;
    CHECK_RC(MPI_T_category_get_index("mpiscope_mpit", &mpit), MPI_SUCCESS);
    CHECK(reaches(root, mpit, 0, k));
    CHECK_RC(MPI_T_category_get_cvars(root, -1, sub), MPI_T_ERR_INVALID);
    return 0;
}

static int t_category_changed(void)
{
    int s1, s2;
    CHECK_RC(MPI_T_category_changed(&s1), MPI_SUCCESS);
    CHECK_RC(MPI_T_category_changed(&s2), MPI_SUCCESS);
    CHECK(s2 == s1);
    return 0;
}

/* --- across MPI_Init and MPI_Finalize -------------------------------------------- */

static int remember_first(void)
{
    int len = sizeof first_cvar_name;
    CHECK_RC(MPI_T_cvar_get_info(0, first_cvar_name, &len, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL),
             MPI_SUCCESS);
    len = sizeof first_pvar_name;
    if (MPI_T_pvar_get_info(0, first_pvar_name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL, NULL, NULL) != MPI_SUCCESS)
        first_pvar_name[0] = 0;
    return 0;
}

static int same_first(void)
{
    char name[256];
    int len = sizeof name;
    CHECK_RC(MPI_T_cvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(strcmp(name, first_cvar_name) == 0);
    if (first_pvar_name[0]) {
        len = sizeof name;
        CHECK_RC(MPI_T_pvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL),
                 MPI_SUCCESS);
        CHECK(strcmp(name, first_pvar_name) == 0);
    }
    return 0;
}

static int stamp_before_init;

static int t_counts_after_init(void)
{
    int stamp;
    if (counts(&n_cvar1, &n_pvar1, &n_cat1)) return 1;
    CHECK(n_cvar1 >= n_cvar0 && n_pvar1 >= n_pvar0 && n_cat1 >= n_cat0);
    CHECK_RC(MPI_T_category_changed(&stamp), MPI_SUCCESS);
    CHECK(stamp >= stamp_before_init);
    if (n_cvar1 > n_cvar0 || n_pvar1 > n_pvar0 || n_cat1 > n_cat0) CHECK(stamp > stamp_before_init);
    return same_first();
}

static int t_after_finalize(void)
{
    int p, c, pv, k;
    /* MPI_T still initialized from before MPI_Finalize: finalize it now (the
     * call that crashes Open MPI 4.1.4 on its own). */
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &p), MPI_SUCCESS);
    if (counts(&c, &pv, &k)) return 1;
    CHECK(c >= n_cvar1 && pv >= n_pvar1 && k >= n_cat1);
    if (same_first()) return 1;
    /* Own variables still work; library ones refuse new handles cleanly. */
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int n, i = pvar("mpiscope_calls_p2p", MPI_T_PVAR_CLASS_COUNTER);
    CHECK(i >= 0);
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    CHECK(readu(s, h) == 0);
    for (int j = 0; j < pv; j++) {
        char name[256];
        int bind;
        int rc = pvar_info(j, name, NULL, &bind, NULL, NULL, NULL);
        CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_INVALID_INDEX);
        if (rc != MPI_SUCCESS || strncmp(name, "mpiscope_", 9) == 0 ||
            bind != MPI_T_BIND_NO_OBJECT)
            continue;
        CHECK_RC(MPI_T_pvar_handle_alloc(s, j, NULL, &h, &n), MPI_T_ERR_INVALID_INDEX);
    }
    CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    MPI_T_cvar_handle ch;
    int v, rec = cvar("mpiscope_recording");
    CHECK_RC(MPI_T_cvar_handle_alloc(rec, NULL, &ch, &n), MPI_SUCCESS);
    v = 1;
    CHECK_RC(MPI_T_cvar_write(ch, &v), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_RC(MPI_T_cvar_handle_free(&ch), MPI_SUCCESS);
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    /* Another whole cycle after MPI_Finalize. */
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &p), MPI_SUCCESS);
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    return 0;
}

static int t_counts_before_init(void)
{
    int p;
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &p), MPI_SUCCESS);
    if (counts(&n_cvar0, &n_pvar0, &n_cat0)) return 1;
    CHECK(n_cvar0 > 0 && n_pvar0 > 0 && n_cat0 > 0);
    CHECK_RC(MPI_T_category_changed(&stamp_before_init), MPI_SUCCESS);
    return remember_first();
    /* MPI_T stays initialized across MPI_Init. */
}

static const check_test_t before_init[] = {
    {"init/not_initialized", t_not_initialized},
    {"init/refcount", t_init_refcount},
    {"init/repeated_cycles", t_reinit_cycles},
    {"init/thread_level", t_thread_level},
    {"init/counts_before_mpi_init", t_counts_before_init},
    {"cvar/set_not_now", t_cvar_set_not_now},
    {"string/convention_before_mpi_init", t_string_convention},
};

static const check_test_t running[] = {
    {"index/counts_never_decrease", t_counts_after_init},
    {"pmpi/twin_names", t_pmpi_twin},
    {"string/convention", t_string_convention},
    {"error/invalid_index", t_invalid_index},
    {"error/invalidated_index", t_invalidated_index},
    {"error/invalid_name", t_invalid_name},
    {"index/get_index_matches_info", t_get_index},
    {"error/invalid_handle", t_invalid_handle},
    {"error/invalid_session", t_invalid_session},
    {"enum/items", t_enum_items},
    {"pvar/refusals", t_pvar_refusals},
    {"pvar/library_refusals", t_lib_pvar_refusals},
    {"cvar/set_never", t_cvar_set_never},
    {"bind/null_object", t_bound_null_object},
    {"pvar/read_before_start", t_read_before_start},
    {"pvar/start_stop_reset_readreset", t_start_stop_reset},
    {"session/independent", t_two_sessions},
    {"session/mixed_handles", t_mixed_session},
    {"category/tree", t_categories},
    {"category/changed", t_category_changed},
};

static const check_test_t after_finalize[] = {
    {"finalize/after_mpi_finalize", t_after_finalize},
};

int main(int argc, char **argv)
{
    check_run(before_init, sizeof before_init / sizeof before_init[0]);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    check_run(running, sizeof running / sizeof running[0]);
    int bad = check_failures;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    check_run(after_finalize, 1);
    if (check_failures || bad) {
        fprintf(stderr, "[rank %d] %d test(s) failed here, %d before MPI_Finalize on all ranks\n",
                check_rank, check_failures, bad);
        return 1;
    }
    return 0;
}

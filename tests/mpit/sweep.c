/* Every variable of the union, the way MPICH 4.0.2's own MPI_T tests walk
 * them (test/mpi/mpi_t: mpit_vars, mpi_t_str, getindex, cvarwrite;
 * test/mpi/threads/mpi_t/mpit_threading), with the answers section 14.3
 * requires checked exactly instead of only surviving them:
 *
 * - MPI_T is initialized before MPI_Init (as mpit_vars and mpit_threading
 *   do), and a handle to every unbound control variable is allocated then;
 * - after MPI_Init every control and performance variable is read (one
 *   thread, then four threads at once, each with its own session): a handle
 *   is either allocated and read, or refused with MPI_T_ERR_INVALID_INDEX
 *   (a variable that became inactive, section 14.3.6); the handles taken
 *   before MPI_Init read, or answer MPI_T_ERR_INVALID_HANDLE exactly for the
 *   variables a new handle is refused for;
 * - the string convention of section 14.3.3 for every name and description;
 * - *_get_index finds every variable and category by its name;
 * - every writable integer or string control variable takes a test value
 *   and gives it back (for an enumeration: the other items; a value that is
 *   no item is refused with MPI_T_ERR_INVALID, the variable unchanged),
 *   every read-only or constant one refuses with MPI_T_ERR_CVAR_SET_NEVER
 *   (see write_cvar for what else the standard allows).
 * Run with 2 ranks on both MPIs (all ranks write the same values, as the
 * ALL_EQ scope asks). Open MPI 4.1.4 without mpiscope crashes in this
 * program (MPI_T_cvar_read of a variable whose component it unloaded). */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

enum { THREADS = 4, STR_SZ = 50, BIG = 1 << 16 };

static _Atomic int failures;
static MPI_T_cvar_handle *early;   /* per cvar index known before MPI_Init */
static int n_early;

static void failf(const char *fmt, ...)
{
    if (failures++ >= 20) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[rank %d] ", check_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

#define EXPECT(cond, ...)                                                            \
    do {                                                                             \
        if (!(cond)) failf(__VA_ARGS__);                                             \
    } while (0)

static int cvar_info(int i, char *name, MPI_Datatype *dt, MPI_T_enum *e, int *bind, int *scope)
{
    int len = 256;
    return MPI_T_cvar_get_info(i, name, &len, NULL, dt, e, NULL, NULL, bind, scope);
}

/* --- reading everything --------------------------------------------------- */

/* Reads control variable i through a new handle; returns the alloc's code. */
static int read_cvar(int i, const char *who)
{
    char name[256];
    MPI_Datatype dt;
    MPI_T_enum e;
    int bind, scope, n = -1;
    int rc = cvar_info(i, name, &dt, &e, &bind, &scope);
    if (rc != MPI_SUCCESS) {
        failf("%s: cvar %d: get_info returned %d", who, i, rc);
        return rc;
    }
    if (dt == MPI_INT && e != MPI_T_ENUM_NULL) {
        int num = -1, len = STR_SZ;
        char ename[STR_SZ];
        rc = MPI_T_enum_get_info(e, &num, ename, &len);
        EXPECT(rc == MPI_SUCCESS && num >= 1, "%s: %s: enum_get_info %d, %d items", who, name, rc,
               num);
    }
    if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM) return MPI_SUCCESS;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    rc = MPI_T_cvar_handle_alloc(i, &comm, &h, &n);
    if (rc == MPI_T_ERR_INVALID_INDEX) return rc;
    if (rc != MPI_SUCCESS) {
        failf("%s: %s: cvar_handle_alloc returned %d", who, name, rc);
        return rc;
    }
    EXPECT(n >= 0, "%s: %s: count %d", who, name, n);
    char *buf = calloc(1, (size_t)(n > 0 ? n : 1) * 8 + BIG);
    if (buf) {
        int r = MPI_T_cvar_read(h, buf);
        EXPECT(r == MPI_SUCCESS, "%s: %s: cvar_read returned %d", who, name, r);
        if (r == MPI_SUCCESS && dt == MPI_CHAR && n > 0)
            EXPECT(strnlen(buf, (size_t)n) < (size_t)n, "%s: %s: string longer than its count %d",
                   who, name, n);
        free(buf);
    }
    int r = MPI_T_cvar_handle_free(&h);
    EXPECT(r == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL, "%s: %s: handle_free %d", who, name,
           r);
    return MPI_SUCCESS;
}

static void read_pvar(MPI_T_pvar_session s, int i, const char *who)
{
    char name[256];
    int len = sizeof name, cls, bind, ro, cont, at, n = -1;
    MPI_Datatype dt;
    int rc = MPI_T_pvar_get_info(i, name, &len, NULL, &cls, &dt, NULL, NULL, NULL, &bind, &ro,
                                 &cont, &at);
    if (rc != MPI_SUCCESS) {
        failf("%s: pvar %d: get_info returned %d", who, i, rc);
        return;
    }
    if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM) return;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    rc = MPI_T_pvar_handle_alloc(s, i, &comm, &h, &n);
    if (rc == MPI_T_ERR_INVALID_INDEX) return;
    if (rc != MPI_SUCCESS) {
        failf("%s: %s: pvar_handle_alloc returned %d", who, name, rc);
        return;
    }
    EXPECT(n >= 1, "%s: %s: count %d", who, name, n);
    /* As mpit_vars: all handles of the session, then this one. */
    rc = MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES);
    EXPECT(rc == MPI_SUCCESS, "%s: %s: start(ALL_HANDLES) %d", who, name, rc);
    rc = MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES);
    EXPECT(rc == MPI_SUCCESS, "%s: %s: stop(ALL_HANDLES) %d", who, name, rc);
    int want = cont ? MPI_T_ERR_PVAR_NO_STARTSTOP : MPI_SUCCESS;
    rc = MPI_T_pvar_start(s, h);
    EXPECT(rc == want, "%s: %s: start %d, expected %d", who, name, rc, want);
    rc = MPI_T_pvar_stop(s, h);
    EXPECT(rc == want, "%s: %s: stop %d, expected %d", who, name, rc, want);
    char *buf = calloc(1, (size_t)(n > 0 ? n : 1) * 8 + 64);
    if (buf) {
        rc = MPI_T_pvar_read(s, h, buf);
        EXPECT(rc == MPI_SUCCESS, "%s: %s: pvar_read %d", who, name, rc);
        free(buf);
    }
    rc = MPI_T_pvar_handle_free(s, &h);
    EXPECT(rc == MPI_SUCCESS && h == MPI_T_PVAR_HANDLE_NULL, "%s: %s: handle_free %d", who, name,
           rc);
}

static void read_categories(const char *who)
{
    int k, nc, np, nk;
    if (MPI_T_category_get_num(&k) != MPI_SUCCESS) {
        failf("%s: category_get_num", who);
        return;
    }
    int c, p, kk;
    MPI_T_cvar_get_num(&c);
    MPI_T_pvar_get_num(&p);
    for (int i = 0; i < k; i++) {
        int rc = MPI_T_category_get_info(i, NULL, NULL, NULL, NULL, &nc, &np, &nk);
        if (rc != MPI_SUCCESS) {
            failf("%s: category %d: get_info %d", who, i, rc);
            continue;
        }
        int *v = malloc(sizeof(int) * (size_t)(nc + np + nk + 1));
        if (!v) continue;
        kk = k;
        EXPECT(MPI_T_category_get_cvars(i, nc, v) == MPI_SUCCESS, "%s: get_cvars", who);
        for (int j = 0; j < nc; j++) EXPECT(v[j] >= 0 && v[j] < c, "%s: cat %d cvar %d", who, i, v[j]);
        EXPECT(MPI_T_category_get_pvars(i, np, v) == MPI_SUCCESS, "%s: get_pvars", who);
        for (int j = 0; j < np; j++) EXPECT(v[j] >= 0 && v[j] < p, "%s: cat %d pvar %d", who, i, v[j]);
        EXPECT(MPI_T_category_get_categories(i, nk, v) == MPI_SUCCESS, "%s: get_categories", who);
        for (int j = 0; j < nk; j++)
            EXPECT(v[j] >= 0 && v[j] < kk && v[j] != i, "%s: cat %d sub %d", who, i, v[j]);
        free(v);
    }
}

static void read_everything(const char *who)
{
    int c, p;
    if (MPI_T_cvar_get_num(&c) != MPI_SUCCESS || MPI_T_pvar_get_num(&p) != MPI_SUCCESS) {
        failf("%s: get_num", who);
        return;
    }
    for (int i = 0; i < c; i++) read_cvar(i, who);
    MPI_T_pvar_session s;
    if (MPI_T_pvar_session_create(&s) != MPI_SUCCESS) {
        failf("%s: session_create", who);
        return;
    }
    for (int i = 0; i < p; i++) read_pvar(s, i, who);
    EXPECT(MPI_T_pvar_session_free(&s) == MPI_SUCCESS, "%s: session_free", who);
    read_categories(who);
}

static int t_read_all(void)
{
    failures = 0;
    read_everything("1 thread");
    CHECK(failures == 0);
    return 0;
}

static void *reader(void *arg)
{
    char who[32];
    snprintf(who, sizeof who, "thread %d", (int)(intptr_t)arg);
    read_everything(who);
    return NULL;
}

static int t_read_all_threads(void)
{
    failures = 0;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, reader, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK(failures == 0);
    return 0;
}

/* Handles allocated before MPI_Init: read, or MPI_T_ERR_INVALID_HANDLE
 * exactly when a new handle is refused (the variable became inactive). */
static int t_early_handles(void)
{
    failures = 0;
    int refused = 0;
    for (int i = 0; i < n_early; i++) {
        if (early[i] == MPI_T_CVAR_HANDLE_NULL) continue;
        char name[256], *buf = calloc(1, BIG);
        int n, len = sizeof name;
        CHECK(buf != NULL);
        MPI_T_cvar_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        int rc = MPI_T_cvar_read(early[i], buf);
        MPI_T_cvar_handle h;
        int fresh = MPI_T_cvar_handle_alloc(i, NULL, &h, &n);
        if (fresh == MPI_SUCCESS) MPI_T_cvar_handle_free(&h);
        EXPECT((rc == MPI_SUCCESS && fresh == MPI_SUCCESS) ||
                   (rc == MPI_T_ERR_INVALID_HANDLE && fresh == MPI_T_ERR_INVALID_INDEX),
               "%s: early handle read %d, new handle %d", name, rc, fresh);
        refused += fresh == MPI_T_ERR_INVALID_INDEX;
        /* Writing through it: refused the same way, or the variable's answer. */
        if (rc == MPI_T_ERR_INVALID_HANDLE)
            EXPECT(MPI_T_cvar_write(early[i], buf) == MPI_T_ERR_INVALID_HANDLE,
                   "%s: write through an inactive variable's handle", name);
        free(buf);
        EXPECT(MPI_T_cvar_handle_free(&early[i]) == MPI_SUCCESS, "%s: free early handle", name);
    }
    if (check_rank == 0) printf("early handles: %d variables became inactive at MPI_Init\n", refused);
    CHECK(failures == 0);
    return 0;
}

/* --- strings (section 14.3.3), as mpi_t_str ------------------------------------ */

typedef int (*name_desc_fn)(int i, char *name, int *nl, char *desc, int *dl);

static int cv_nd(int i, char *name, int *nl, char *desc, int *dl)
{
    MPI_Datatype dt;
    MPI_T_enum e;
    int v, b, s;
    return MPI_T_cvar_get_info(i, name, nl, &v, &dt, &e, desc, dl, &b, &s);
}

static int pv_nd(int i, char *name, int *nl, char *desc, int *dl)
{
    MPI_Datatype dt;
    MPI_T_enum e;
    int v, c, b, r, co, a;
    return MPI_T_pvar_get_info(i, name, nl, &v, &c, &dt, &e, desc, dl, &b, &r, &co, &a);
}

static int cat_nd(int i, char *name, int *nl, char *desc, int *dl)
{
    int a, b, c;
    return MPI_T_category_get_info(i, name, nl, desc, dl, &a, &b, &c);
}

static void strings_of(const char *kind, int n, name_desc_fn fn)
{
    for (int i = 0; i < n; i++) {
        char name[STR_SZ + 1], desc[STR_SZ + 1];
        int fn_len = 1, fd_len = 1, nl, dl;
        /* NULL buffers, non-zero lengths: the full lengths. */
        int rc = fn(i, NULL, &fn_len, NULL, &fd_len);
        EXPECT(rc == MPI_SUCCESS && fn_len >= 2 && fd_len >= 1, "%s %d: lengths %d %d (rc %d)",
               kind, i, fn_len, fd_len, rc);
        /* Buffers, zero lengths: the same lengths, buffers untouched. */
        memset(name, 'x', sizeof name);
        memset(desc, 'x', sizeof desc);
        nl = dl = 0;
        fn(i, name, &nl, desc, &dl);
        EXPECT(nl == fn_len && dl == fd_len && name[0] == 'x' && desc[0] == 'x',
               "%s %d: zero lengths gave %d %d", kind, i, nl, dl);
        /* STR_SZ: truncated to STR_SZ - 1 characters and a terminator. */
        name[STR_SZ] = desc[STR_SZ] = 'Z';
        nl = dl = STR_SZ;
        fn(i, name, &nl, desc, &dl);
        EXPECT(nl == fn_len && dl == fd_len, "%s %d: lengths changed", kind, i);
        EXPECT((int)strlen(name) + 1 == (fn_len < STR_SZ ? fn_len : STR_SZ) &&
                   (int)strlen(desc) + 1 == (fd_len < STR_SZ ? fd_len : STR_SZ),
               "%s %d: truncation", kind, i);
        EXPECT(name[STR_SZ] == 'Z' && desc[STR_SZ] == 'Z', "%s %d: overrun", kind, i);
        /* NULL lengths: the buffers are left alone. */
        for (int j = 0; j < STR_SZ; j++) name[j] = desc[j] = (char)(j % CHAR_MAX);
        fn(i, name, NULL, desc, NULL);
        for (int j = 0; j < STR_SZ; j++)
            if (name[j] != (char)(j % CHAR_MAX) || desc[j] != (char)(j % CHAR_MAX)) {
                failf("%s %d: buffer written with a NULL length", kind, i);
                break;
            }
    }
}

static int t_strings(void)
{
    int c, p, k;
    failures = 0;
    CHECK_RC(MPI_T_cvar_get_num(&c), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_get_num(&p), MPI_SUCCESS);
    CHECK_RC(MPI_T_category_get_num(&k), MPI_SUCCESS);
    strings_of("cvar", c, cv_nd);
    strings_of("pvar", p, pv_nd);
    strings_of("category", k, cat_nd);
    CHECK(failures == 0);
    return 0;
}

/* --- index lookups, as getindex -------------------------------------------------- */

static int t_get_index(void)
{
    int c, p, k, j;
    failures = 0;
    CHECK_RC(MPI_T_cvar_get_num(&c), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_get_num(&p), MPI_SUCCESS);
    CHECK_RC(MPI_T_category_get_num(&k), MPI_SUCCESS);
    for (int i = 0; i < c; i++) {
        char name[256];
        int len = sizeof name;
        MPI_T_cvar_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        int rc = MPI_T_cvar_get_index(name, &j);
        EXPECT(rc == MPI_SUCCESS && j == i, "cvar %d %s: get_index %d gave %d", i, name, rc, j);
    }
    for (int i = 0; i < p; i++) {
        char name[256];
        int len = sizeof name, cls;
        MPI_T_pvar_get_info(i, name, &len, NULL, &cls, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL);
        int rc = MPI_T_pvar_get_index(name, cls, &j);
        EXPECT(rc == MPI_SUCCESS && j == i, "pvar %d %s: get_index %d gave %d", i, name, rc, j);
    }
    for (int i = 0; i < k; i++) {
        char name[256];
        int len = sizeof name;
        MPI_T_category_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL);
        int rc = MPI_T_category_get_index(name, &j);
        EXPECT(rc == MPI_SUCCESS && j == i, "category %d %s: get_index %d gave %d", i, name, rc,
               j);
    }
    CHECK_RC(MPI_T_cvar_get_index("AN INVALID CVAR NAME FOR TEST", &j), MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_pvar_get_index("AN INVALID PVAR NAME FOR TEST", MPI_T_PVAR_CLASS_COUNTER, &j),
             MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_category_get_index("AN INVALID CATEGORY NAME", &j), MPI_T_ERR_INVALID_NAME);
    CHECK(failures == 0);
    return 0;
}

/* --- writes, as cvarwrite ---------------------------------------------------------- */

/* The items of an enumeration (malloc'd, *num of them), or NULL. */
static int *enum_items(MPI_T_enum e, int *num)
{
    int len = 0;
    *num = 0;
    if (MPI_T_enum_get_info(e, num, NULL, &len) != MPI_SUCCESS || *num < 1) return NULL;
    int *v = calloc((size_t)*num, sizeof *v);
    for (int i = 0; v && i < *num; i++) {
        len = 0;
        if (MPI_T_enum_get_item(e, i, &v[i], NULL, &len) != MPI_SUCCESS) {
            free(v);
            return NULL;
        }
    }
    return v;
}

/* Writes *in; SUCCESS reads it back, a refusal leaves `old`. Returns the
 * write's code. */
static int write_check(MPI_T_cvar_handle h, const char *name, MPI_Datatype dt, const void *in,
                       const void *old, size_t size)
{
    unsigned char out[4096] = {0};
    int rc = MPI_T_cvar_write(h, in);
    EXPECT(MPI_T_cvar_read(h, out) == MPI_SUCCESS, "%s: read after write", name);
    const void *want = rc == MPI_SUCCESS ? in : old;
    EXPECT(dt == MPI_CHAR ? strcmp(want, (char *)out) == 0 : memcmp(want, out, size) == 0,
           "%s: write answered %d, then read back another value", name, rc);
    return rc;
}

/* Each writable control variable takes a value and gives it back, as
 * cvarwrite checks. Answers the standard allows besides MPI_SUCCESS:
 * MPI_T_ERR_INVALID for a value its enumeration does not have or that the
 * library refuses (unchanged then), and MPI_T_ERR_CVAR_SET_NEVER for a
 * variable whose scope was fixed before MPI_Init (`early`) and that
 * MPI_Init made unwritable. A variable first seen after MPI_Init whose
 * scope says writable must take a write. */
static void write_cvar(int i, int *written)
{
    char name[256];
    MPI_Datatype dt;
    MPI_T_enum e;
    int bind, scope, n, rc;
    bool early_seen = i < n_early;
    if (cvar_info(i, name, &dt, &e, &bind, &scope) != MPI_SUCCESS || bind != MPI_T_BIND_NO_OBJECT)
        return;
    MPI_T_cvar_handle h;
    rc = MPI_T_cvar_handle_alloc(i, NULL, &h, &n);
    if (rc == MPI_T_ERR_INVALID_INDEX) return;
    if (rc != MPI_SUCCESS) {
        failf("%s: handle_alloc %d", name, rc);
        return;
    }
    bool fixed = scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY;
    unsigned char old[4096] = {0}, in[4096] = {0};
    size_t size = dt == MPI_INT || dt == MPI_UNSIGNED                       ? 4
                  : dt == MPI_UNSIGNED_LONG || dt == MPI_UNSIGNED_LONG_LONG ? 8
                  : dt == MPI_CHAR && n > 0 && n < (int)sizeof old           ? 1
                                                                              : 0;
    if (size == 0 || (size > 1 && n != 1) || MPI_T_cvar_read(h, old) != MPI_SUCCESS) {
        MPI_T_cvar_handle_free(&h);
        return;
    }
    if (fixed) {
        rc = MPI_T_cvar_write(h, old);
        EXPECT(rc == MPI_T_ERR_CVAR_SET_NEVER, "%s (scope %d): write %d, expected SET_NEVER",
               name, scope, rc);
        MPI_T_cvar_handle_free(&h);
        return;
    }
    int num = 0, *items = dt == MPI_INT && e != MPI_T_ENUM_NULL ? enum_items(e, &num) : NULL;
    if (dt == MPI_INT && e != MPI_T_ENUM_NULL && !items) failf("%s: its enumeration", name);
    if (items) {
        /* A value that is no item, then every other item. */
        int other = 123, taken = 0, tried = 0;
        for (int k = 0; k < num; k++)
            if (items[k] == other) other++, k = -1;
        rc = write_check(h, name, dt, &other, old, size);
        EXPECT(rc == MPI_T_ERR_INVALID || (early_seen && rc == MPI_T_ERR_CVAR_SET_NEVER),
               "%s: %d is no item: write %d, expected MPI_T_ERR_INVALID", name, other, rc);
        for (int k = 0; rc != MPI_T_ERR_CVAR_SET_NEVER && k < num; k++) {
            if (items[k] == *(int *)old) continue;
            tried++;
            rc = write_check(h, name, dt, &items[k], old, size);
            EXPECT(rc == MPI_SUCCESS || rc == MPI_T_ERR_INVALID,
                   "%s: item %d: write %d", name, items[k], rc);
            if (rc == MPI_SUCCESS) {
                taken++;
                write_check(h, name, dt, old, old, size);
            }
        }
        EXPECT(rc == MPI_T_ERR_CVAR_SET_NEVER || tried == 0 || taken > 0,
               "%s: none of %d other items written", name, tried);
        *written += taken > 0;
        free(items);
    } else {
        if (dt == MPI_CHAR) strcpy((char *)in, "GARBAGE MPI_CHAR CVAR VALUE");
        else if (dt == MPI_INT) *(int *)in = *(int *)old == 123 ? 124 : 123;
        else if (dt == MPI_UNSIGNED) *(unsigned *)in = 133;
        else *(unsigned long long *)in = 11930;
        rc = write_check(h, name, dt, in, old, size);
        EXPECT(rc == MPI_SUCCESS || (early_seen && rc == MPI_T_ERR_CVAR_SET_NEVER),
               "%s (scope %d): write %d", name, scope, rc);
        if (rc == MPI_SUCCESS) {
            (*written)++;
            EXPECT(write_check(h, name, dt, old, old, size) == MPI_SUCCESS, "%s: restoring",
                   name);
        }
    }
    MPI_T_cvar_handle_free(&h);
}

static int t_write_all(void)
{
    int c, written = 0;
    failures = 0;
    CHECK_RC(MPI_T_cvar_get_num(&c), MPI_SUCCESS);
    for (int i = 0; i < c; i++) write_cvar(i, &written);
    if (check_rank == 0) printf("written and read back: %d control variables\n", written);
    CHECK(written > 0);
    CHECK(failures == 0);
    return 0;
}

static const check_test_t tests[] = {
    {"sweep/handles_from_before_mpi_init", t_early_handles},
    {"sweep/read_all", t_read_all},
    {"sweep/read_all_4_threads", t_read_all_threads},
    {"sweep/strings", t_strings},
    {"sweep/get_index", t_get_index},
    {"sweep/write_every_writable", t_write_all},
};

/* MPI_T before MPI_Init, with a handle to every unbound control variable. */
static int init_early(void)
{
    int p;
    if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &p) != MPI_SUCCESS || p != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_T_init_thread: MPI_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    if (MPI_T_cvar_get_num(&n_early) != MPI_SUCCESS) return 1;
    early = calloc((size_t)n_early + 1, sizeof *early);
    for (int i = 0; early && i < n_early; i++) {
        int bind, n;
        early[i] = MPI_T_CVAR_HANDLE_NULL;
        if (MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &bind, NULL) ==
                MPI_SUCCESS &&
            bind == MPI_T_BIND_NO_OBJECT &&
            MPI_T_cvar_handle_alloc(i, NULL, &early[i], &n) != MPI_SUCCESS)
            early[i] = MPI_T_CVAR_HANDLE_NULL;
    }
    return 0;
}

/* Usage: mpit_sweep [late]. "late" initializes MPI_T after MPI_Init (as
 * cvarwrite, mpi_t_str and mpit_isendirecv do): then every variable is first
 * seen after MPI_Init, so a writable scope must mean writable. */
int main(int argc, char **argv)
{
    int p;
    bool late = argc > 1 && strcmp(argv[1], "late") == 0;
    if (!late && init_early()) return 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    if (p < MPI_THREAD_MULTIPLE) {
        printf("MPI_THREAD_MULTIPLE not provided; skipped\n");
        MPI_Finalize();
        return 0;
    }
    if (late && (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &p) != MPI_SUCCESS ||
                 p != MPI_THREAD_MULTIPLE))
        return 1;
    if (late) check_run(tests + 1, sizeof tests / sizeof tests[0] - 1); /* no early handles */
    else check_run(tests, sizeof tests / sizeof tests[0]);
    MPI_T_finalize();
    free(early);
    MPI_Finalize();
    return check_failures != 0;
}

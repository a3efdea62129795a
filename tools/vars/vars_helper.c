/* mpiscope-vars: the MPI side of `mpiscope vars`.
 *
 * The `mpiscope` program links no MPI, yet must list the MPI_T variables of
 * the MPI a program uses. So this small program is built once per MPI with
 * that MPI's compiler wrapper and installed beside its tool library; the
 * command runs it (with the tool library preloaded, so mpiscope's own
 * variables come through mpiscope's MPI_T layer as any tool would see them)
 * and formats, filters and prints what it writes.
 *
 * It initializes MPI_T (and, with --after-init, MPI itself: some libraries
 * add variables at MPI_Init) and writes one record per line, fields separated
 * by tabs, strings escaped (\t, \n, \\), so that the reader needs no JSON
 * parser:
 *   cvar  INDEX NAME VERBOSITY DATATYPE ENUM BIND SCOPE VALUE DESCRIPTION
 *   pvar  INDEX NAME VERBOSITY CLASS DATATYPE ENUM BIND READONLY CONTINUOUS
 *         ATOMIC DESCRIPTION
 *   cat   INDEX NAME CVARS PVARS CATEGORIES DESCRIPTION   (lists: comma-separated indices)
 *   enum  NAME ITEMS                                       (ITEMS: value=name;...)
 * VALUE is the current value (an enumeration's item name where it has one),
 * "-" when it cannot be read (bound to an object, or an error). A variable
 * whose get_info fails is written as "cvar INDEX - ERROR CODE".
 * Exit code 0, or 1 when MPI_T cannot be initialized.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/mpit/pvar_class.h"

static void put_escaped(const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\t') fputs("\\t", stdout);
        else if (*s == '\n') fputs("\\n", stdout);
        else if (*s == '\\') fputs("\\\\", stdout);
        else if ((unsigned char)*s < 0x20) putchar(' ');
        else putchar(*s);
    }
}

static const char *verbosity_name(int v)
{
    static const char *const names[] = {"user/basic",   "user/detail",   "user/all",
                                        "tuner/basic",  "tuner/detail",  "tuner/all",
                                        "mpidev/basic", "mpidev/detail", "mpidev/all"};
    int i = v - MPI_T_VERBOSITY_USER_BASIC;
    return i >= 0 && i < 9 ? names[i] : "?";
}

static const char *datatype_name(MPI_Datatype t)
{
    if (t == MPI_INT) return "int";
    if (t == MPI_UNSIGNED) return "unsigned";
    if (t == MPI_UNSIGNED_LONG) return "unsigned_long";
    if (t == MPI_UNSIGNED_LONG_LONG) return "unsigned_long_long";
    if (t == MPI_COUNT) return "count";
    if (t == MPI_CHAR) return "char";
    if (t == MPI_DOUBLE) return "double";
    if (t == MPI_C_BOOL) return "bool";
    if (t == MPI_LONG) return "long";
    if (t == MPI_LONG_LONG) return "long_long";
    return "other";
}

static const char *bind_name(int b)
{
    switch (b) {
    case MPI_T_BIND_NO_OBJECT: return "none";
    case MPI_T_BIND_MPI_COMM: return "comm";
    case MPI_T_BIND_MPI_DATATYPE: return "datatype";
    case MPI_T_BIND_MPI_ERRHANDLER: return "errhandler";
    case MPI_T_BIND_MPI_FILE: return "file";
    case MPI_T_BIND_MPI_GROUP: return "group";
    case MPI_T_BIND_MPI_OP: return "op";
    case MPI_T_BIND_MPI_REQUEST: return "request";
    case MPI_T_BIND_MPI_WIN: return "win";
    case MPI_T_BIND_MPI_MESSAGE: return "message";
    case MPI_T_BIND_MPI_INFO: return "info";
    default: return "?";
    }
}

static const char *scope_name(int s)
{
    switch (s) {
    case MPI_T_SCOPE_CONSTANT: return "constant";
    case MPI_T_SCOPE_READONLY: return "readonly";
    case MPI_T_SCOPE_LOCAL: return "local";
    case MPI_T_SCOPE_GROUP: return "group";
    case MPI_T_SCOPE_GROUP_EQ: return "group_eq";
    case MPI_T_SCOPE_ALL: return "all";
    case MPI_T_SCOPE_ALL_EQ: return "all_eq";
    default: return "?";
    }
}

/* Enumerations seen, written once each after the variables. */
static MPI_T_enum enums[4096];
static char enum_names[4096][256];
static int nenums;

/* The enumeration's name, remembered for the enum records; "-" if none. */
static const char *enum_label(MPI_T_enum e)
{
    if (e == MPI_T_ENUM_NULL) return "-";
    for (int i = 0; i < nenums; i++)
        if (enums[i] == e) return enum_names[i];
    if (nenums == 4096) return "?";
    int num = 0, len = sizeof enum_names[0];
    if (MPI_T_enum_get_info(e, &num, enum_names[nenums], &len) != MPI_SUCCESS) return "?";
    enums[nenums] = e;
    return enum_names[nenums++];
}

static void write_enum(MPI_T_enum e)
{
    int num = 0;
    char name[256];
    int len = sizeof name;
    if (MPI_T_enum_get_info(e, &num, name, &len) != MPI_SUCCESS) return;
    fputs("enum\t", stdout);
    put_escaped(name);
    putchar('\t');
    for (int i = 0; i < num; i++) {
        int value = 0;
        char item[256];
        int ilen = sizeof item;
        if (MPI_T_enum_get_item(e, i, &value, item, &ilen) != MPI_SUCCESS) continue;
        printf("%s%d=", i ? ";" : "", value);
        put_escaped(item);
    }
    putchar('\n');
}

/* The item name of `value` in `e`, or NULL. */
static const char *enum_item(MPI_T_enum e, int value)
{
    static char item[256];
    int num = 0;
    char name[256];
    int len = sizeof name;
    if (MPI_T_enum_get_info(e, &num, name, &len) != MPI_SUCCESS) return NULL;
    for (int i = 0; i < num; i++) {
        int v = 0, ilen = sizeof item;
        if (MPI_T_enum_get_item(e, i, &v, item, &ilen) == MPI_SUCCESS && v == value) return item;
    }
    return NULL;
}

/* Writes the current value of control variable `index`, or "-". */
static void write_cvar_value(int index, MPI_Datatype type, MPI_T_enum e, int bind, int after_init)
{
    void *obj = NULL;
    MPI_Comm world = MPI_COMM_WORLD;
    if (bind == MPI_T_BIND_MPI_COMM && after_init) obj = &world;
    else if (bind != MPI_T_BIND_NO_OBJECT) {
        putchar('-');
        return;
    }
    MPI_T_cvar_handle h;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, obj, &h, &count) != MPI_SUCCESS) {
        putchar('-');
        return;
    }
    if (count < 1 || count > 65536) {
        MPI_T_cvar_handle_free(&h);
        putchar('-');
        return;
    }
    /* Room for `count` values of the widest type. */
    void *buf = calloc((size_t)count + 1, 8);
    if (!buf || MPI_T_cvar_read(h, buf) != MPI_SUCCESS) {
        free(buf);
        MPI_T_cvar_handle_free(&h);
        putchar('-');
        return;
    }
    if (type == MPI_CHAR) {
        ((char *)buf)[count] = '\0';
        put_escaped(buf);
    } else {
        int shown = count > 16 ? 16 : count;
        for (int i = 0; i < shown; i++) {
            if (i) putchar(',');
            if (type == MPI_INT) {
                int v = ((int *)buf)[i];
                const char *item = e != MPI_T_ENUM_NULL ? enum_item(e, v) : NULL;
                if (item) put_escaped(item);
                else printf("%d", v);
            } else if (type == MPI_UNSIGNED) printf("%u", ((unsigned *)buf)[i]);
            else if (type == MPI_UNSIGNED_LONG) printf("%lu", ((unsigned long *)buf)[i]);
            else if (type == MPI_UNSIGNED_LONG_LONG)
                printf("%llu", ((unsigned long long *)buf)[i]);
            else if (type == MPI_COUNT) printf("%lld", (long long)((MPI_Count *)buf)[i]);
            else if (type == MPI_DOUBLE) printf("%g", ((double *)buf)[i]);
            else if (type == MPI_C_BOOL) /* a C bool: any byte but 0 is true (Open MPI
                                            * stores 191 or 252-255 in some, as ompi_info
                                            * reads them: true) */
                fputs(((unsigned char *)buf)[i] ? "true" : "false", stdout);
            else if (type == MPI_LONG) printf("%ld", ((long *)buf)[i]);
            else if (type == MPI_LONG_LONG) printf("%lld", ((long long *)buf)[i]);
            else putchar('?');
        }
        if (shown < count) printf(",...");
    }
    free(buf);
    MPI_T_cvar_handle_free(&h);
}

static void write_cvars(int after_init)
{
    int n = 0;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[1024], desc[4096];
        int nlen = sizeof name, dlen = sizeof desc, verbosity = 0, bind = 0, scope = 0;
        MPI_Datatype type = MPI_DATATYPE_NULL;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        int rc = MPI_T_cvar_get_info(i, name, &nlen, &verbosity, &type, &e, desc, &dlen, &bind,
                                     &scope);
        if (rc != MPI_SUCCESS) {
            printf("cvar\t%d\t-\tERROR\t%d\n", i, rc);
            continue;
        }
        printf("cvar\t%d\t", i);
        put_escaped(name);
        printf("\t%s\t%s\t", verbosity_name(verbosity), datatype_name(type));
        put_escaped(enum_label(e));
        printf("\t%s\t%s\t", bind_name(bind), scope_name(scope));
        write_cvar_value(i, type, e, bind, after_init);
        putchar('\t');
        put_escaped(desc);
        putchar('\n');
    }
}

static void write_pvars(void)
{
    int n = 0;
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[1024], desc[4096];
        int nlen = sizeof name, dlen = sizeof desc, verbosity = 0, cls = 0, bind = 0;
        int readonly = 0, continuous = 0, atomic = 0;
        MPI_Datatype type = MPI_DATATYPE_NULL;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        int rc = MPI_T_pvar_get_info(i, name, &nlen, &verbosity, &cls, &type, &e, desc, &dlen,
                                     &bind, &readonly, &continuous, &atomic);
        if (rc != MPI_SUCCESS) {
            printf("pvar\t%d\t-\tERROR\t%d\n", i, rc);
            continue;
        }
        printf("pvar\t%d\t", i);
        put_escaped(name);
        printf("\t%s\t%s\t%s\t", verbosity_name(verbosity), msc_pvar_class_name(cls),
               datatype_name(type));
        put_escaped(enum_label(e));
        printf("\t%s\t%d\t%d\t%d\t", bind_name(bind), readonly, continuous, atomic);
        put_escaped(desc);
        putchar('\n');
    }
}

static void write_index_list(int count, int (*get)(int, int, int[]), int cat)
{
    if (count <= 0) {
        putchar('-');
        return;
    }
    int *idx = calloc((size_t)count, sizeof *idx);
    if (!idx || get(cat, count, idx) != MPI_SUCCESS) {
        free(idx);
        putchar('-');
        return;
    }
    for (int i = 0; i < count; i++) printf("%s%d", i ? "," : "", idx[i]);
    free(idx);
}

static void write_categories(void)
{
    int n = 0;
    MPI_T_category_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[1024], desc[4096];
        int nlen = sizeof name, dlen = sizeof desc, ncvars = 0, npvars = 0, ncats = 0;
        int rc = MPI_T_category_get_info(i, name, &nlen, desc, &dlen, &ncvars, &npvars, &ncats);
        if (rc != MPI_SUCCESS) {
            printf("cat\t%d\t-\tERROR\t%d\n", i, rc);
            continue;
        }
        printf("cat\t%d\t", i);
        put_escaped(name);
        putchar('\t');
        write_index_list(ncvars, MPI_T_category_get_cvars, i);
        putchar('\t');
        write_index_list(npvars, MPI_T_category_get_pvars, i);
        putchar('\t');
        write_index_list(ncats, MPI_T_category_get_categories, i);
        putchar('\t');
        put_escaped(desc);
        putchar('\n');
    }
}

int main(int argc, char **argv)
{
    int after_init = argc > 1 && strcmp(argv[1], "--after-init") == 0;
    int provided = 0;
    if (after_init && MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "mpiscope-vars: MPI_T_init_thread failed\n");
        return 1;
    }
    write_cvars(after_init);
    write_pvars();
    write_categories();
    for (int i = 0; i < nenums; i++) write_enum(enums[i]);
    fflush(stdout);
    MPI_T_finalize();
    if (after_init) MPI_Finalize();
    return 0;
}

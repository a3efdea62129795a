/* MPISCOPE_CVARS: control variables written at start-up.
 *
 * The setting is "name=value,name=value,..." (`mpiscope run --cvar` adds to
 * it). MPI_T may be used before MPI_Init, so each variable is written at the
 * earliest point the standard allows: from the core's pre-init hook, inside
 * mpiscope's MPI_Init wrapper before PMPI_Init, through mpiscope's own MPI_T
 * layer (so mpiscope's variables can be set too). What cannot be done then
 * is tried again right after PMPI_Init, from this module's init hook: a name
 * the library only registers at MPI_Init, a variable bound to a communicator
 * (bound to MPI_COMM_WORLD), and a write the library answers with
 * MPI_T_ERR_CVAR_SET_NOT_NOW. Anything that still fails gives one message
 * on rank 0 naming the variable and why (unknown name, a value of the wrong
 * type, an enumeration value that is not one of the items, a scope that
 * forbids writing, SET_NOT_NOW, SET_NEVER); the run continues with the
 * variable unchanged. Values: integers in decimal (or 0x hex), an item name
 * or its number for enumerations, 0/1/true/false for booleans, text for
 * MPI_CHAR variables. A value cannot contain a comma.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/log.h"
#include "../core/module.h"
#include "../core/state.h"

enum { MAX_ENTRIES = 256 };

typedef struct {
    char name[256];
    char value[MSC_SETTING_MAX_STRING];
    bool done;      /* written, or reported */
} entry_t;

static entry_t entries[MAX_ENTRIES];
static int nentries;
static bool mpit_open; /* our MPI_T_init_thread reference */

static void say(const char *fmt, const char *name, const char *detail)
{
    if (!msc_log_is_speaker()) return;
    msc_warn(fmt, name, detail);
}

/* Splits the setting into entries; malformed ones are reported at once. */
static void parse_setting(const char *text)
{
    char copy[MSC_SETTING_MAX_STRING];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *save = NULL, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        while (*w == ' ') w++;
        if (!*w) continue;
        char *eq = strchr(w, '=');
        if (!eq || eq == w) {
            say("MPISCOPE_CVARS: '%s' is not name=value%s; left out", w, "");
            continue;
        }
        if (nentries == MAX_ENTRIES) {
            say("MPISCOPE_CVARS: more than 256 variables; '%s' and later ones left out%s", w, "");
            break;
        }
        entry_t *e = &entries[nentries++];
        snprintf(e->name, sizeof e->name, "%.*s", (int)(eq - w), w);
        snprintf(e->value, sizeof e->value, "%s", eq + 1);
    }
}

/* The value of item `text` (a name or a number) of enumeration `en`. */
static bool enum_value(MPI_T_enum en, const char *text, int *out, char *items, size_t itemslen)
{
    int num = 0;
    char ename[256];
    int elen = sizeof ename;
    items[0] = '\0';
    if (MPI_T_enum_get_info(en, &num, ename, &elen) != MPI_SUCCESS) return false;
    char *end;
    long asnum = strtol(text, &end, 0);
    bool numeric = *text && !*end;
    size_t used = 0;
    for (int i = 0; i < num; i++) {
        int v;
        char item[256];
        int ilen = sizeof item;
        if (MPI_T_enum_get_item(en, i, &v, item, &ilen) != MPI_SUCCESS) continue;
        if ((numeric && v == asnum) || (!numeric && strcasecmp(item, text) == 0)) {
            *out = v;
            return true;
        }
        if (used < itemslen)
            used += (size_t)snprintf(items + used, itemslen - used, "%s%s (%d)", i ? ", " : "",
                                     item, v);
    }
    return false;
}

static bool parse_unsigned(const char *text, unsigned long long max, unsigned long long *out)
{
    if (!*text || *text == '-') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end || v > max) return false;
    *out = v;
    return true;
}

static bool parse_signed(const char *text, long long lo, long long hi, long long *out)
{
    if (!*text) return false;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 0);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

typedef enum { TRY_DONE, TRY_LATER } try_t;

/* Converts the entry's value for a variable of `type` into `buf` (room for
 * `count` elements of 8 bytes). Reports and returns false when it does not
 * fit the type. */
static bool convert(const entry_t *e, MPI_Datatype type, MPI_T_enum en, int count, void *buf)
{
    char detail[1200];
    const char *v = e->value;
    if (type == MPI_CHAR) {
        if ((int)strlen(v) >= count) {
            snprintf(detail, sizeof detail, "'%s' is longer than the variable's %d characters",
                     v, count - 1);
            say("MPISCOPE_CVARS: %s: %s; not set", e->name, detail);
            return false;
        }
        memcpy(buf, v, strlen(v) + 1);
        return true;
    }
    if (type == MPI_INT && en != MPI_T_ENUM_NULL) {
        char items[1000];
        int iv;
        if (!enum_value(en, v, &iv, items, sizeof items)) {
            snprintf(detail, sizeof detail, "'%.150s' is not an item of its enumeration (%.999s)",
                     v, items);
            say("MPISCOPE_CVARS: %s: %s; not set", e->name, detail);
            return false;
        }
        *(int *)buf = iv;
        return true;
    }
    long long s;
    unsigned long long u;
    const char *want = NULL;
    if (type == MPI_INT) {
        if (parse_signed(v, INT_MIN, INT_MAX, &s)) *(int *)buf = (int)s;
        else want = "an int";
    } else if (type == MPI_UNSIGNED) {
        if (parse_unsigned(v, UINT_MAX, &u)) *(unsigned *)buf = (unsigned)u;
        else want = "an unsigned int";
    } else if (type == MPI_UNSIGNED_LONG) {
        if (parse_unsigned(v, ULONG_MAX, &u)) *(unsigned long *)buf = (unsigned long)u;
        else want = "an unsigned long";
    } else if (type == MPI_UNSIGNED_LONG_LONG) {
        if (parse_unsigned(v, ULLONG_MAX, &u)) *(unsigned long long *)buf = u;
        else want = "an unsigned long long";
    } else if (type == MPI_LONG || type == MPI_LONG_LONG || type == MPI_COUNT) {
        if (parse_signed(v, LLONG_MIN, LLONG_MAX, &s)) {
            if (type == MPI_LONG) *(long *)buf = (long)s;
            else if (type == MPI_LONG_LONG) *(long long *)buf = s;
            else *(MPI_Count *)buf = (MPI_Count)s;
        } else want = "an integer";
    } else if (type == MPI_DOUBLE) {
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (*v && !*end && !errno && isfinite(d)) *(double *)buf = d;
        else want = "a number";
    } else if (type == MPI_C_BOOL) {
        if (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0) *(_Bool *)buf = 1;
        else if (strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0) *(_Bool *)buf = 0;
        else want = "a boolean (0, 1, true or false)";
    } else {
        say("MPISCOPE_CVARS: %s: its datatype is not one mpiscope can write%s; not set", e->name,
            "");
        return false;
    }
    if (want) {
        snprintf(detail, sizeof detail, "'%s' is not %s", v, want);
        say("MPISCOPE_CVARS: %s: %s; not set", e->name, detail);
        return false;
    }
    return true;
}

static const char *scope_word(int scope)
{
    return scope == MPI_T_SCOPE_CONSTANT ? "constant" : "read-only";
}

/* One attempt at writing entry `e`. `final`: right after MPI_Init, the last. */
static try_t try_write(entry_t *e, bool final)
{
    int index;
    if (MPI_T_cvar_get_index(e->name, &index) != MPI_SUCCESS) {
        if (!final) return TRY_LATER; /* the library may register it at MPI_Init */
        say("MPISCOPE_CVARS: %s: no control variable has this name%s (see mpiscope vars "
            "--after-init); not set",
            e->name, "");
        return TRY_DONE;
    }
    MPI_Datatype type;
    MPI_T_enum en;
    int bind, scope;
    if (MPI_T_cvar_get_info(index, NULL, NULL, NULL, &type, &en, NULL, NULL, &bind, &scope) !=
        MPI_SUCCESS) {
        if (!final) return TRY_LATER;
        say("MPISCOPE_CVARS: %s: the MPI library gives no information about it%s; not set",
            e->name, "");
        return TRY_DONE;
    }
    if (scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY) {
        say("MPISCOPE_CVARS: %s: its scope is %s, it can never be set "
            "(MPI_T_ERR_CVAR_SET_NEVER); not set",
            e->name, scope_word(scope));
        return TRY_DONE;
    }
    MPI_Comm world = MPI_COMM_WORLD;
    void *obj = NULL;
    if (bind == MPI_T_BIND_MPI_COMM) {
        if (!final) return TRY_LATER;
        obj = &world;
    } else if (bind != MPI_T_BIND_NO_OBJECT) {
        say("MPISCOPE_CVARS: %s: it is bound to an MPI object other than a communicator%s; "
            "not set",
            e->name, "");
        return TRY_DONE;
    }
    MPI_T_cvar_handle h;
    int count = 0;
    int rc = MPI_T_cvar_handle_alloc(index, obj, &h, &count);
    if (rc != MPI_SUCCESS) {
        if (!final) return TRY_LATER;
        char detail[64];
        snprintf(detail, sizeof detail, "%d", rc);
        say("MPISCOPE_CVARS: %s: no handle for it (MPI_T error %s); not set", e->name, detail);
        return TRY_DONE;
    }
    if (count < 1 || (type != MPI_CHAR && count != 1)) {
        say("MPISCOPE_CVARS: %s: it holds several values%s; mpiscope sets single values only",
            e->name, "");
        MPI_T_cvar_handle_free(&h);
        return TRY_DONE;
    }
    void *buf = calloc((size_t)count + 8, 8);
    if (!buf) {
        MPI_T_cvar_handle_free(&h);
        say("MPISCOPE_CVARS: %s: out of memory%s; not set", e->name, "");
        return TRY_DONE;
    }
    try_t result = TRY_DONE;
    if (convert(e, type, en, count, buf)) {
        rc = MPI_T_cvar_write(h, buf);
        if (rc == MPI_T_ERR_CVAR_SET_NOT_NOW && !final) {
            result = TRY_LATER;
        } else if (rc == MPI_T_ERR_CVAR_SET_NOT_NOW) {
            say("MPISCOPE_CVARS: %s: it cannot be set at start-up, before or right after "
                "MPI_Init (MPI_T_ERR_CVAR_SET_NOT_NOW)%s; not set",
                e->name, "");
        } else if (rc == MPI_T_ERR_CVAR_SET_NEVER) {
            say("MPISCOPE_CVARS: %s: it can never be set (MPI_T_ERR_CVAR_SET_NEVER)%s; not set",
                e->name, "");
        } else if (rc != MPI_SUCCESS) {
            char detail[64];
            snprintf(detail, sizeof detail, "%d", rc);
            say("MPISCOPE_CVARS: %s: the write failed (MPI_T error %s); not set", e->name, detail);
        }
    }
    free(buf);
    MPI_T_cvar_handle_free(&h);
    return result;
}

static void try_all(bool final)
{
    for (int i = 0; i < nentries; i++)
        if (!entries[i].done && try_write(&entries[i], final) == TRY_DONE) entries[i].done = true;
}

/* Before PMPI_Init (the core's pre-init hook). */
static void cvars_preinit(void)
{
    const char *text = msc_g.settings.v[MSC_SET_CVARS].str;
    if (!text[0]) return;
    parse_setting(text);
    if (!nentries) return;
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    mpit_open = true;
    try_all(false);
}

/* Right after PMPI_Init: what could not be done before. */
static int cvars_init(int slot)
{
    (void)slot;
    if (nentries && !mpit_open) {
        int provided;
        if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS) mpit_open = true;
    }
    if (mpit_open) {
        try_all(true);
        MPI_T_finalize();
        mpit_open = false;
    }
    return 0; /* takes part, with no hooks during the run */
}

static const msc_module_t module = {
    .abi = MSC_MODULE_ABI,
    .name = "cvars",
    .mode = NULL,
    .init = cvars_init,
    .preinit = cvars_preinit,
};

MSC_CONSTRUCTOR static void cvars_register(void)
{
    msc_module_register(&module);
}

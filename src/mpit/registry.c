/* The registry of mpiscope's own MPI_T variables, categories and
 * enumerations (the API of mpit.h). Registration checks what the standard
 * requires of a variable (section 14.3.7's class/datatype table, enumerations
 * only on MPI_INT, known bind/scope/verbosity constants, unique names) so
 * that a wrong registration fails here and never reaches a client. Tables
 * only grow; an index, once given, names the same variable for the whole run.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

pthread_mutex_t msc_mpit_lock = PTHREAD_MUTEX_INITIALIZER;
msc_own_t msc_own;

int msc_mpit_type_size(MPI_Datatype t)
{
    if (t == MPI_INT) return sizeof(int);
    if (t == MPI_UNSIGNED) return sizeof(unsigned);
    if (t == MPI_UNSIGNED_LONG) return sizeof(unsigned long);
    if (t == MPI_UNSIGNED_LONG_LONG) return sizeof(unsigned long long);
    if (t == MPI_COUNT) return sizeof(MPI_Count);
    if (t == MPI_CHAR) return 1;
    if (t == MPI_DOUBLE) return sizeof(double);
    return 0;
}

bool msc_intlist_add(msc_intlist_t *l, int v)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v) return true;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        int *p = realloc(l->v, (size_t)cap * sizeof *p);
        if (!p) return false;
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = v;
    return true;
}

/* Grows a table of pointers to hold one more entry. */
static bool grow(void *table, int n, int *cap)
{
    void ***t = table;
    if (n < *cap) return true;
    int c = *cap ? 2 * *cap : 16;
    void **p = realloc(*t, (size_t)c * sizeof *p);
    if (!p) return false;
    *t = p;
    *cap = c;
    return true;
}

bool msc_mpit_enum_is_own(const void *e)
{
    for (msc_mpit_enum_t *x = msc_own.enums; x; x = x->next)
        if ((const void *)x == e) return true;
    return false;
}

msc_mpit_enum_t *msc_mpit_enum_create(const char *name, int n, const int *values,
                                      const char *const *names)
{
    if (!name || !*name || n < 1 || !values || !names) return NULL;
    for (int i = 0; i < n; i++) {
        if (!names[i] || !*names[i]) return NULL;
        for (int j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0) return NULL;
    }
    msc_mpit_enum_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->name = strdup(name);
    e->values = malloc((size_t)n * sizeof *e->values);
    e->names = calloc((size_t)n, sizeof *e->names);
    bool ok = e->name && e->values && e->names;
    for (int i = 0; ok && i < n; i++) {
        e->values[i] = values[i];
        ok = (e->names[i] = strdup(names[i])) != NULL;
    }
    if (!ok) {
        for (int i = 0; e->names && i < n; i++) free(e->names[i]);
        free(e->names);
        free(e->values);
        free(e->name);
        free(e);
        return NULL;
    }
    e->n = n;
    pthread_mutex_lock(&msc_mpit_lock);
    e->next = msc_own.enums;
    msc_own.enums = e;
    pthread_mutex_unlock(&msc_mpit_lock);
    return e;
}

static bool valid_bind(int b)
{
    return b == MPI_T_BIND_NO_OBJECT || b == MPI_T_BIND_MPI_COMM || b == MPI_T_BIND_MPI_DATATYPE ||
           b == MPI_T_BIND_MPI_ERRHANDLER || b == MPI_T_BIND_MPI_FILE ||
           b == MPI_T_BIND_MPI_GROUP || b == MPI_T_BIND_MPI_OP || b == MPI_T_BIND_MPI_REQUEST ||
           b == MPI_T_BIND_MPI_WIN || b == MPI_T_BIND_MPI_MESSAGE || b == MPI_T_BIND_MPI_INFO;
}

static bool valid_verbosity(int v)
{
    return v >= MPI_T_VERBOSITY_USER_BASIC && v <= MPI_T_VERBOSITY_MPIDEV_ALL;
}

/* Section 14.3.7: the datatypes each class may use. */
static bool class_allows(int cls, MPI_Datatype t)
{
    bool u = t == MPI_UNSIGNED || t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG;
    if (cls == MPI_T_PVAR_CLASS_STATE) return t == MPI_INT;
    if (cls == MPI_T_PVAR_CLASS_LEVEL || cls == MPI_T_PVAR_CLASS_SIZE ||
        cls == MPI_T_PVAR_CLASS_HIGHWATERMARK || cls == MPI_T_PVAR_CLASS_LOWWATERMARK ||
        cls == MPI_T_PVAR_CLASS_TIMER || cls == MPI_T_PVAR_CLASS_AGGREGATE)
        return u || t == MPI_DOUBLE;
    if (cls == MPI_T_PVAR_CLASS_PERCENTAGE) return t == MPI_DOUBLE;
    if (cls == MPI_T_PVAR_CLASS_COUNTER) return u;
    if (cls == MPI_T_PVAR_CLASS_GENERIC) return msc_mpit_type_size(t) > 0;
    return false;
}

int msc_mpit_pvar_register(const msc_pvar_desc_t *d)
{
    if (!d || !d->name || !*d->name || !valid_verbosity(d->verbosity) || !valid_bind(d->bind) ||
        !class_allows(d->var_class, d->datatype) || (d->enumtype && d->datatype != MPI_INT) ||
        (d->flags & ~(unsigned)(MSC_PVAR_READONLY | MSC_PVAR_CONTINUOUS | MSC_PVAR_ATOMIC)) ||
        (!d->read && !d->ctx))
        return -MPI_T_ERR_INVALID;
    msc_own_pvar_t *p = calloc(1, sizeof *p);
    if (!p) return -MPI_T_ERR_MEMORY;
    p->d = *d;
    p->d.name = strdup(d->name);
    p->d.desc = strdup(d->desc ? d->desc : "");
    if (!p->d.name || !p->d.desc) goto nomem;
    pthread_mutex_lock(&msc_mpit_lock);
    for (int i = 0; i < msc_own.npvars; i++) {
        if (msc_own.pvars[i]->d.var_class == d->var_class &&
            strcmp(msc_own.pvars[i]->d.name, d->name) == 0) {
            pthread_mutex_unlock(&msc_mpit_lock);
            free((char *)p->d.name);
            free((char *)p->d.desc);
            free(p);
            return -MPI_T_ERR_INVALID;
        }
    }
    if (!grow(&msc_own.pvars, msc_own.npvars, &msc_own.cap_pvars)) {
        pthread_mutex_unlock(&msc_mpit_lock);
        goto nomem;
    }
    int idx = msc_own.npvars;
    msc_own.pvars[idx] = p;
    msc_own.npvars++;
    msc_own.changes++;
    pthread_mutex_unlock(&msc_mpit_lock);
    return idx;
nomem:
    free((char *)p->d.name);
    free((char *)p->d.desc);
    free(p);
    return -MPI_T_ERR_MEMORY;
}

static bool valid_scope(int s)
{
    return s == MPI_T_SCOPE_CONSTANT || s == MPI_T_SCOPE_READONLY || s == MPI_T_SCOPE_LOCAL ||
           s == MPI_T_SCOPE_GROUP || s == MPI_T_SCOPE_GROUP_EQ || s == MPI_T_SCOPE_ALL ||
           s == MPI_T_SCOPE_ALL_EQ;
}

int msc_mpit_cvar_register(const msc_cvar_desc_t *d)
{
    if (!d || !d->name || !*d->name || !valid_verbosity(d->verbosity) || !valid_bind(d->bind) ||
        !valid_scope(d->scope) || msc_mpit_type_size(d->datatype) == 0 || d->count < 1 ||
        (d->enumtype && d->datatype != MPI_INT) || (!d->read && !d->ctx))
        return -MPI_T_ERR_INVALID;
    msc_own_cvar_t *c = calloc(1, sizeof *c);
    if (!c) return -MPI_T_ERR_MEMORY;
    c->d = *d;
    c->d.name = strdup(d->name);
    c->d.desc = strdup(d->desc ? d->desc : "");
    if (!c->d.name || !c->d.desc) goto nomem;
    pthread_mutex_lock(&msc_mpit_lock);
    for (int i = 0; i < msc_own.ncvars; i++) {
        if (strcmp(msc_own.cvars[i]->d.name, d->name) == 0) {
            pthread_mutex_unlock(&msc_mpit_lock);
            free((char *)c->d.name);
            free((char *)c->d.desc);
            free(c);
            return -MPI_T_ERR_INVALID;
        }
    }
    if (!grow(&msc_own.cvars, msc_own.ncvars, &msc_own.cap_cvars)) {
        pthread_mutex_unlock(&msc_mpit_lock);
        goto nomem;
    }
    int idx = msc_own.ncvars;
    msc_own.cvars[idx] = c;
    msc_own.ncvars++;
    msc_own.changes++;
    pthread_mutex_unlock(&msc_mpit_lock);
    return idx;
nomem:
    free((char *)c->d.name);
    free((char *)c->d.desc);
    free(c);
    return -MPI_T_ERR_MEMORY;
}

int msc_mpit_category_register(const char *name, const char *desc)
{
    if (!name || !*name) return -MPI_T_ERR_INVALID;
    pthread_mutex_lock(&msc_mpit_lock);
    int idx = -1;
    for (int i = 0; i < msc_own.ncats && idx < 0; i++)
        if (strcmp(msc_own.cats[i]->name, name) == 0) idx = i;
    if (idx < 0) {
        msc_own_cat_t *c = calloc(1, sizeof *c);
        if (c) {
            c->name = strdup(name);
            c->desc = strdup(desc ? desc : "");
        }
        if (!c || !c->name || !c->desc || !grow(&msc_own.cats, msc_own.ncats, &msc_own.cap_cats)) {
            if (c) {
                free(c->name);
                free(c->desc);
            }
            free(c);
            idx = -MPI_T_ERR_MEMORY;
        } else {
            idx = msc_own.ncats;
            msc_own.cats[idx] = c;
            msc_own.ncats++;
            msc_own.changes++;
        }
    }
    pthread_mutex_unlock(&msc_mpit_lock);
    return idx;
}

/* Under the lock. `kind`: 0 cvar, 1 pvar, 2 category. */
static int add_locked(int category, int member, int kind, size_t offset)
{
    int rc = MPI_SUCCESS;
    int limit = kind;
    int n = limit == 0 ? msc_own.ncvars : limit == 1 ? msc_own.npvars : msc_own.ncats;
    if (category < 0 || category >= msc_own.ncats || member < 0 || member >= n) {
        rc = -MPI_T_ERR_INVALID_INDEX;
    } else {
        msc_intlist_t *l = (msc_intlist_t *)((char *)msc_own.cats[category] + offset);
        int before = l->n;
        if (!msc_intlist_add(l, member)) rc = -MPI_T_ERR_MEMORY;
        else if (l->n != before) msc_own.changes++;
    }
    return rc;
}

static int add_member(int category, int member, int kind, size_t offset)
{
    pthread_mutex_lock(&msc_mpit_lock);
    int rc = add_locked(category, member, kind, offset);
    pthread_mutex_unlock(&msc_mpit_lock);
    return rc;
}

int msc_mpit_category_add_cvar(int category, int cvar)
{
    return add_member(category, cvar, 0, offsetof(msc_own_cat_t, cvars));
}

int msc_mpit_category_add_pvar(int category, int pvar)
{
    return add_member(category, pvar, 1, offsetof(msc_own_cat_t, pvars));
}

/* Whether `from` reaches `to` through sub-categories (or is it). */
static bool reaches(int from, int to, int depth)
{
    if (from == to) return true;
    if (depth > msc_own.ncats) return false;
    msc_own_cat_t *c = msc_own.cats[from];
    for (int i = 0; i < c->cats.n; i++)
        if (reaches(c->cats.v[i], to, depth + 1)) return true;
    return false;
}

int msc_mpit_category_add_category(int parent, int child)
{
    pthread_mutex_lock(&msc_mpit_lock);
    bool bad = parent < 0 || parent >= msc_own.ncats || child < 0 || child >= msc_own.ncats;
    int rc = bad ? -MPI_T_ERR_INVALID_INDEX
             : reaches(child, parent, 0) ? -MPI_T_ERR_INVALID
                                         : add_locked(parent, child, 2, offsetof(msc_own_cat_t, cats));
    pthread_mutex_unlock(&msc_mpit_lock);
    return rc;
}

/* A structure's layout from DWARF, and a datatype's type map against it
 * (issue 26: "a struct's layout against a struct datatype where DWARF gives
 * the members").
 *
 * chk_dwarf_layout flattens a declared type whose elements are structures
 * (a `struct S`, an array of them, a typedef of either) into runs of
 * leaves: each run is `count` consecutive elements of one base type at an
 * offset of the structure (an `int i` is a run of 1, a `double v[3]` a run
 * of 3), nested structures and arrays of them unrolled, in offset order;
 * pointers, enumerations and characters are leaves that are not numbers,
 * and a union or a bit field is an opaque leaf that nothing is judged
 * against. Bytes no leaf covers are padding. The layout repeats every
 * `stride` bytes (the structure's size): an array of structures is judged
 * with the same layout. More than LAYOUT_MAX runs, or a member whose offset
 * is not a constant, gives no layout at all.
 *
 * chk_layout_match walks the type map of `count` elements of a datatype
 * (typemap.c) over the object and names the first basic element that does
 * not fit the layout: a number on another kind or size of number, on a
 * member's middle, on padding, or running past a member that is not a
 * number (an MPI_INT over a lone `char`; inside a `char` array it is bytes
 * viewed as a number, not judged). Bytes, characters and the other datatypes
 * that view any memory are never judged, nor any element against an
 * opaque leaf.
 */
#include <dwarf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dwarf_types.h"

enum { LAYOUT_MAX = 512, TYPEMAP_MAX = 4096 };
#define LEAF_OPAQUE 0xff

typedef struct {
    chk_leaf_t *leaf;
    int n;
} build_t;

/* Type names outlive the DWARF they come from (globals.c closes its
 * files): each distinct one is copied once and kept. */
static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;
static char *names[256];
static int nnames;

static const char *intern(const char *name)
{
    if (!name) return "?";
    const char *kept = "a number";
    pthread_mutex_lock(&names_mu);
    int i = 0;
    while (i < nnames && strcmp(names[i], name)) i++;
    if (i < nnames)
        kept = names[i];
    else if (nnames < (int)(sizeof names / sizeof *names) && (names[nnames] = strdup(name)))
        kept = names[nnames++];
    pthread_mutex_unlock(&names_mu);
    return kept;
}

static bool add_leaf(build_t *b, uint64_t off, uint64_t count, int enc, int size, const char *name)
{
    if (b->n == LAYOUT_MAX) return false;
    name = intern(name);
    b->leaf[b->n++] = (chk_leaf_t){off, count, (unsigned char)enc, (unsigned char)size, name};
    return true;
}

static bool array_count(Dwarf_Die *arr, uint64_t *count)
{
    Dwarf_Die sub;
    uint64_t n = 1;
    if (dwarf_child(arr, &sub) != 0) return false;
    do {
        if (dwarf_tag(&sub) != DW_TAG_subrange_type) continue;
        Dwarf_Attribute a;
        Dwarf_Word w;
        if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &w) == 0)
            n *= w;
        else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &w) == 0)
            n *= w + 1;
        else
            return false; /* a flexible or variable-length array */
    } while (dwarf_siblingof(&sub, &sub) == 0);
    *count = n;
    return true;
}

static bool leaves(build_t *b, Dwarf_Die *type, uint64_t at, int depth)
{
    Dwarf_Die t;
    Dwarf_Attribute a;
    if (depth > 12 || dwarf_peel_type(type, &t) != 0) return false;
    Dwarf_Word size = 0;
    switch (dwarf_tag(&t)) {
    case DW_TAG_base_type: {
        Dwarf_Die bt = t;
        int enc = 0, sz = 0;
        const char *name = NULL;
        if (!chk_dwarf_base_type(&bt, &enc, &sz, &name)) return false;
        return add_leaf(b, at, 1, enc, sz, name);
    }
    case DW_TAG_pointer_type:
    case DW_TAG_enumeration_type:
        return dwarf_aggregate_size(&t, &size) == 0 && size < 256 &&
               add_leaf(b, at, 1, 0, (int)size, dwarf_tag(&t) == DW_TAG_pointer_type ? "a pointer" : "an enumeration");
    case DW_TAG_union_type:
        return dwarf_aggregate_size(&t, &size) == 0 && add_leaf(b, at, size, LEAF_OPAQUE, 1, "a union");
    case DW_TAG_array_type: {
        uint64_t n;
        Dwarf_Die el, pel;
        if (!array_count(&t, &n) || !dwarf_attr_integrate(&t, DW_AT_type, &a) ||
            !dwarf_formref_die(&a, &el) || dwarf_peel_type(&el, &pel) != 0 ||
            dwarf_aggregate_size(&pel, &size) != 0 || !size)
            return false;
        if (!n) return true;
        if (dwarf_tag(&pel) == DW_TAG_base_type) { /* one run */
            Dwarf_Die bt = pel;
            int enc = 0, sz = 0;
            const char *name = NULL;
            return chk_dwarf_base_type(&bt, &enc, &sz, &name) && add_leaf(b, at, n, enc, sz, name);
        }
        for (uint64_t i = 0; i < n; i++)
            if (!leaves(b, &pel, at + i * size, depth + 1)) return false;
        return true;
    }
    case DW_TAG_structure_type:
    case DW_TAG_class_type: {
        Dwarf_Die m;
        if (dwarf_child(&t, &m) != 0) return true; /* no members */
        do {
            if (dwarf_tag(&m) != DW_TAG_member) continue;
            Dwarf_Word off = 0;
            Dwarf_Die mt;
            if (dwarf_attr(&m, DW_AT_bit_size, &a)) { /* a bit field: opaque */
                Dwarf_Word bytes = 0;
                if (dwarf_attr(&m, DW_AT_data_member_location, &a)) dwarf_formudata(&a, &off);
                if (!dwarf_attr_integrate(&m, DW_AT_type, &a) || !dwarf_formref_die(&a, &mt) ||
                    dwarf_aggregate_size(&mt, &bytes) != 0 ||
                    !add_leaf(b, at + off, bytes, LEAF_OPAQUE, 1, "a bit field"))
                    return false;
                continue;
            }
            if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &off) != 0)
                return false; /* not a constant offset */
            if (!dwarf_attr_integrate(&m, DW_AT_type, &a) || !dwarf_formref_die(&a, &mt) ||
                !leaves(b, &mt, at + off, depth + 1))
                return false;
        } while (dwarf_siblingof(&m, &m) == 0);
        return true;
    }
    default:
        return false;
    }
}

const chk_layout_t *chk_dwarf_layout(Dwarf_Die *type)
{
    /* The element: arrays of structures peeled to the structure. */
    Dwarf_Die t = *type, p;
    Dwarf_Attribute a;
    for (int k = 0; k < 8; k++) {
        if (dwarf_peel_type(&t, &p) != 0) return NULL;
        if (dwarf_tag(&p) != DW_TAG_array_type) break;
        if (!dwarf_attr_integrate(&p, DW_AT_type, &a) || !dwarf_formref_die(&a, &t)) return NULL;
    }
    if (dwarf_peel_type(&t, &p) != 0 ||
        (dwarf_tag(&p) != DW_TAG_structure_type && dwarf_tag(&p) != DW_TAG_class_type))
        return NULL;
    Dwarf_Word size = 0;
    if (dwarf_aggregate_size(&p, &size) != 0 || !size) return NULL;
    chk_leaf_t tmp[LAYOUT_MAX];
    build_t b = {tmp, 0};
    if (!leaves(&b, &p, 0, 0)) return NULL;
    chk_layout_t *l = malloc(sizeof *l + (size_t)b.n * sizeof *tmp);
    if (!l) return NULL;
    const char *name = dwarf_diename(&p);
    char *kept = malloc(strlen(name ? name : "") + 8);
    if (kept) snprintf(kept, strlen(name ? name : "") + 8, "struct %s", name ? name : "");
    l->name = kept ? kept : "a structure";
    l->stride = size;
    l->n = b.n;
    memcpy(l->leaf, tmp, (size_t)b.n * sizeof *tmp);
    return l;
}

/* The run holding byte `off` of one structure, or NULL (padding). */
static const chk_leaf_t *leaf_at(const chk_layout_t *l, uint64_t off)
{
    int lo = 0, hi = l->n;
    while (lo < hi) { /* the last run starting at or before off */
        int mid = (lo + hi) / 2;
        if (l->leaf[mid].off <= off) lo = mid + 1;
        else hi = mid;
    }
    for (int k = lo - 1; k >= 0 && k >= lo - 4; k--) { /* runs may nest (a union's bytes) */
        const chk_leaf_t *f = &l->leaf[k];
        if (off < f->off + f->count * f->size) return f;
    }
    return NULL;
}

static char kind_of_enc(int enc)
{
    return enc == DW_ATE_signed ? 'i' : enc == DW_ATE_unsigned ? 'u' : enc == DW_ATE_float ? 'f' : 0;
}

bool chk_layout_match(const chk_layout_t *l, uint64_t at, uint64_t object_bytes, MPI_Count count,
                      MPI_Datatype t, chk_kind_fn kind_of, char *why, size_t n)
{
    if (!l || count <= 0) return true;
    chk_tm_ent_t map[256];
    int m = chk_typemap(t, map, (int)(sizeof map / sizeof *map));
    if (m <= 0) return true;
    MPI_Aint lb = 0, ext = 0;
    if (PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS) return true;
    long judged = 0;
    for (MPI_Count i = 0; i < count && judged < TYPEMAP_MAX; i++) {
        for (int k = 0; k < m && judged < TYPEMAP_MAX; k++, judged++) {
            int64_t o = (int64_t)at + (int64_t)i * ext + map[k].disp;
            int size = 0;
            char want = kind_of(map[k].type, &size);
            if (!want || o < 0 || (uint64_t)o + (uint64_t)size > object_bytes) continue;
            uint64_t in = (uint64_t)o % l->stride;
            const chk_leaf_t *f = leaf_at(l, in);
            char tname[MPI_MAX_OBJECT_NAME] = "";
            int len = 0;
            PMPI_Type_get_name(map[k].type, tname, &len);
            if (!f) {
                snprintf(why, n, "its %s at byte %llu of the object lies on padding of %s",
                         tname, (unsigned long long)o, l->name);
                return false;
            }
            if (f->enc == LEAF_OPAQUE) continue;
            uint64_t start = f->off + (in - f->off) / f->size * f->size;
            char have = kind_of_enc(f->enc);
            if (!have) {
                /* Characters (a `char` array used as bytes), pointers,
                 * enumerations viewed as a number: not judged while the
                 * element stays inside the run; one that runs past it
                 * straddles members or padding. */
                if (in + (uint64_t)size <= f->off + f->count * f->size) continue;
                snprintf(why, n, "its %s (%d bytes) at byte %llu of the object falls on a member "
                         "of %s that is %s of %d byte%s",
                         tname, size, (unsigned long long)o, l->name, f->name ? f->name : "?",
                         f->size, f->size == 1 ? "" : "s");
                return false;
            }
            if (in != start) {
                snprintf(why, n, "its %s at byte %llu of the object starts inside a member of %s "
                         "(%s, %d bytes, at byte %llu of the structure)",
                         tname, (unsigned long long)o, l->name, f->name ? f->name : "?", f->size,
                         (unsigned long long)start);
                return false;
            }
            if (have != want || f->size != size) {
                snprintf(why, n, "its %s (%d bytes) at byte %llu of the object falls on a member "
                         "of %s declared %s (%d bytes)",
                         tname, size, (unsigned long long)o, l->name, f->name ? f->name : "?",
                         f->size);
                return false;
            }
        }
    }
    return true;
}

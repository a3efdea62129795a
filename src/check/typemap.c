/* The type map of a datatype, flattened (issue 26: a structure's layout
 * against a struct datatype).
 *
 * MPI-3.1 section 4.1: a datatype is a sequence of (basic type,
 * displacement) pairs. chk_typemap gives that sequence for one element of
 * a derived datatype by walking its constructors with MPI_Type_get_envelope
 * and MPI_Type_get_contents: contiguous, vector, hvector, indexed,
 * hindexed, indexed_block, hindexed_block, struct, resized and dup (a
 * resized type's bounds change where the next element starts, not its own
 * map). Subarrays, darrays and the Fortran f90 types end the walk with
 * "not known". The result is cut at `max` pairs: the caller judges a prefix
 * and says nothing about the rest. Derived types that get_contents returns
 * are freed as the standard asks (section 4.1.13). Called only when a
 * buffer's object has a structure's layout, so nothing is memoized.
 */
#include <stdlib.h>

#include "check.h"

typedef struct {
    chk_tm_ent_t *out;
    int max, n;
    bool cut;
} tm_t;

static bool walk(tm_t *m, MPI_Datatype t, MPI_Aint at, int depth);

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb = 0, ext = 0;
    return PMPI_Type_get_extent(t, &lb, &ext) == MPI_SUCCESS ? ext : 0;
}

/* `count` blocks of `bl` elements of t, block i at disp[i] (bytes when
 * `bytes`, else elements of t) or at i * stride. */
static bool blocks(tm_t *m, MPI_Datatype t, MPI_Aint at, int count, const int *bl, int bl_all,
                   const int *idisp, const MPI_Aint *adisp, MPI_Aint stride, bool bytes,
                   int depth)
{
    MPI_Aint ext = extent_of(t);
    for (int i = 0; i < count && !m->cut; i++) {
        MPI_Aint d = adisp ? adisp[i] : idisp ? (MPI_Aint)idisp[i] : (MPI_Aint)i * stride;
        MPI_Aint start = at + (bytes ? d : d * ext);
        int n = bl ? bl[i] : bl_all;
        for (int j = 0; j < n && !m->cut; j++)
            if (!walk(m, t, start + (MPI_Aint)j * ext, depth + 1)) return false;
    }
    return true;
}

static bool walk(tm_t *m, MPI_Datatype t, MPI_Aint at, int depth)
{
    int ni = 0, na = 0, nd = 0, comb = 0;
    if (depth > 16 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return false;
    if (comb == MPI_COMBINER_NAMED) {
        if (m->n == m->max) {
            m->cut = true;
            return true;
        }
        m->out[m->n++] = (chk_tm_ent_t){at, t};
        return true;
    }
    if (ni > 1 << 20 || na > 1 << 20 || nd > 1 << 20) return false;
    int *ints = malloc(sizeof *ints * (size_t)(ni ? ni : 1));
    MPI_Aint *aints = malloc(sizeof *aints * (size_t)(na ? na : 1));
    MPI_Datatype *types = malloc(sizeof *types * (size_t)(nd ? nd : 1));
    bool got = ints && aints && types &&
               PMPI_Type_get_contents(t, ni, na, nd, ints, aints, types) == MPI_SUCCESS;
    bool ok = got;
    if (ok) {
        switch (comb) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_RESIZED:
            ok = walk(m, types[0], at, depth + 1);
            break;
        case MPI_COMBINER_CONTIGUOUS:
            ok = blocks(m, types[0], at, 1, NULL, ints[0], NULL, NULL, 0, false, depth);
            break;
        case MPI_COMBINER_VECTOR:
            ok = blocks(m, types[0], at, ints[0], NULL, ints[1], NULL, NULL, ints[2], false, depth);
            break;
        case MPI_COMBINER_HVECTOR:
            ok = blocks(m, types[0], at, ints[0], NULL, ints[1], NULL, NULL, aints[0], true, depth);
            break;
        case MPI_COMBINER_INDEXED:
            ok = blocks(m, types[0], at, ints[0], ints + 1, 0, ints + 1 + ints[0], NULL, 0, false,
                        depth);
            break;
        case MPI_COMBINER_HINDEXED:
            ok = blocks(m, types[0], at, ints[0], ints + 1, 0, NULL, aints, 0, true, depth);
            break;
        case MPI_COMBINER_INDEXED_BLOCK:
            ok = blocks(m, types[0], at, ints[0], NULL, ints[1], ints + 2, NULL, 0, false, depth);
            break;
        case MPI_COMBINER_HINDEXED_BLOCK:
            ok = blocks(m, types[0], at, ints[0], NULL, ints[1], NULL, aints, 0, true, depth);
            break;
        case MPI_COMBINER_STRUCT:
            for (int i = 0; ok && i < ints[0] && !m->cut; i++) {
                MPI_Aint ext = extent_of(types[i]);
                for (int j = 0; ok && j < ints[1 + i] && !m->cut; j++)
                    ok = walk(m, types[i], at + aints[i] + (MPI_Aint)j * ext, depth + 1);
            }
            break;
        default:
            ok = false; /* subarray, darray, f90 types: not followed */
        }
    }
    for (int i = 0; got && i < nd; i++) {
        int a, b, c, k;
        if (PMPI_Type_get_envelope(types[i], &a, &b, &c, &k) == MPI_SUCCESS &&
            k != MPI_COMBINER_NAMED)
            PMPI_Type_free(&types[i]);
    }
    free(ints), free(aints), free(types);
    return ok;
}

int chk_typemap(MPI_Datatype t, chk_tm_ent_t *out, int max)
{
    tm_t m = {out, max, 0, false};
    if (t == MPI_DATATYPE_NULL || max <= 0) return -1;
    return walk(&m, t, 0, 0) ? m.n : -1;
}

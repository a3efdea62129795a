/* Which predefined reduction operation may be applied to which predefined
 * datatype: the table of MPI-3.1 section 5.9.2. The standard sorts the
 * basic datatypes into groups (C integer, Fortran integer, floating point,
 * logical, complex, byte, multi-language types) and names the groups each
 * operation allows; MPI_MAXLOC and MPI_MINLOC take the pair types of
 * section 5.9.4 only. The handles of both MPIs are run-time values (Open
 * MPI's are addresses), so the table of (handle, group) is filled once at
 * the module's init and then only read; a lookup is a scan of about 60
 * handles, made only by calls that take an operation.
 *
 * What it cannot decide stays undecided (the caller says nothing): derived
 * datatypes (the rule applies to the basic types they are built from,
 * which would take MPI_Type_get_contents and allocation at every call),
 * user-defined operations, and the predefined types the table does not
 * list for any operation but which implementations accept (MPI_CHAR,
 * MPI_WCHAR: text, not numbers).
 */
#include "check.h"

enum {
    G_CINT = 1 << 0,    /* C integer */
    G_FINT = 1 << 1,    /* Fortran integer */
    G_FLOAT = 1 << 2,   /* floating point */
    G_LOGICAL = 1 << 3, /* logical */
    G_COMPLEX = 1 << 4, /* complex */
    G_BYTE = 1 << 5,    /* byte */
    G_MULTI = 1 << 6,   /* multi-language types: MPI_AINT, MPI_OFFSET, MPI_COUNT */
    G_PAIR = 1 << 7,    /* value-index pairs of MPI_MAXLOC / MPI_MINLOC */
};

enum { MAX_TYPES = 96 };
static struct {
    MPI_Datatype t;
    unsigned group;
} types[MAX_TYPES];
static int ntypes;

static void add(MPI_Datatype t, unsigned group)
{
    /* Optional types an MPI does not support are MPI_DATATYPE_NULL. */
    if (t == MPI_DATATYPE_NULL || ntypes == MAX_TYPES) return;
    types[ntypes].t = t;
    types[ntypes++].group = group;
}

void chk_optable_init(void)
{
    if (ntypes) return;
    const MPI_Datatype cint[] = {
        MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_LONG_LONG_INT, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR,
        MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
        MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T};
    const MPI_Datatype fint[] = {MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
                                 MPI_INTEGER8};
    const MPI_Datatype flt[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL,
                                MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8};
    const MPI_Datatype logical[] = {MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL};
    const MPI_Datatype cplx[] = {
        MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX,
        MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
        MPI_CXX_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype multi[] = {MPI_AINT, MPI_OFFSET, MPI_COUNT};
    const MPI_Datatype pair[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT,
                                 MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL,
                                 MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
#define ADD_ALL(a, g)                                                   \
    for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) add(a[i], g)
    ADD_ALL(cint, G_CINT);
    ADD_ALL(fint, G_FINT);
    ADD_ALL(flt, G_FLOAT);
    ADD_ALL(logical, G_LOGICAL);
    ADD_ALL(cplx, G_COMPLEX);
    ADD_ALL(multi, G_MULTI);
    ADD_ALL(pair, G_PAIR);
#undef ADD_ALL
    add(MPI_BYTE, G_BYTE);
}

/* The groups a predefined operation allows; 0: not a predefined
 * reduction (user-defined, MPI_REPLACE, MPI_NO_OP, MPI_OP_NULL). */
static unsigned op_groups(MPI_Op op)
{
    if (op == MPI_MAX || op == MPI_MIN) return G_CINT | G_FINT | G_FLOAT | G_MULTI;
    if (op == MPI_SUM || op == MPI_PROD) return G_CINT | G_FINT | G_FLOAT | G_COMPLEX | G_MULTI;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return G_CINT | G_LOGICAL;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return G_CINT | G_FINT | G_BYTE | G_MULTI;
    if (op == MPI_MAXLOC || op == MPI_MINLOC) return G_PAIR;
    return 0;
}

int chk_op_allows(MPI_Op op, MPI_Datatype t)
{
    unsigned allowed = op_groups(op);
    if (!allowed || t == MPI_DATATYPE_NULL) return -1;
    for (int i = 0; i < ntypes; i++)
        if (types[i].t == t) return (types[i].group & allowed) != 0;
    return -1; /* derived, or a predefined type the table does not list */
}

const char *chk_op_name(MPI_Op op)
{
    if (op == MPI_MAX) return "MPI_MAX";
    if (op == MPI_MIN) return "MPI_MIN";
    if (op == MPI_SUM) return "MPI_SUM";
    if (op == MPI_PROD) return "MPI_PROD";
    if (op == MPI_LAND) return "MPI_LAND";
    if (op == MPI_LOR) return "MPI_LOR";
    if (op == MPI_LXOR) return "MPI_LXOR";
    if (op == MPI_BAND) return "MPI_BAND";
    if (op == MPI_BOR) return "MPI_BOR";
    if (op == MPI_BXOR) return "MPI_BXOR";
    if (op == MPI_MAXLOC) return "MPI_MAXLOC";
    if (op == MPI_MINLOC) return "MPI_MINLOC";
    if (op == MPI_REPLACE) return "MPI_REPLACE";
    if (op == MPI_NO_OP) return "MPI_NO_OP";
    return "a user-defined operation";
}

const char *chk_op_allowed_text(MPI_Op op)
{
    if (op == MPI_MAX || op == MPI_MIN)
        return "C and Fortran integers, floating point and MPI_AINT/MPI_OFFSET/MPI_COUNT";
    if (op == MPI_SUM || op == MPI_PROD)
        return "C and Fortran integers, floating point, complex and MPI_AINT/MPI_OFFSET/MPI_COUNT";
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return "C integers and logicals (MPI_C_BOOL, MPI_LOGICAL)";
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return "C and Fortran integers, MPI_BYTE and MPI_AINT/MPI_OFFSET/MPI_COUNT";
    return "the value-index pair types (MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, "
           "MPI_SHORT_INT, MPI_LONG_DOUBLE_INT and Fortran's MPI_2REAL, ...)";
}

/* A global or static array passed as a datatype of another kind or size
 * of number than its declared elements (issue 26: the declared type from
 * DWARF, no recompilation): LOCAL:BUFFER:TYPE_MISMATCH at the call, on the
 * rank that passes the buffer, even when both sides agree on the datatype
 * (which the message's type signature check cannot see).
 *   int_as_double:  `int gint[8]` sent and received as 4 MPI_DOUBLE;
 *   float_as_int:   a function's `static float` array sent as MPI_INT;
 *   double_as_long: `double gdbl[4]` received as MPI_LONG (same size);
 *   unsigned_as_int: `unsigned guns[4]` sent as MPI_INT (same size, other
 *                   signedness: another type, MPI-3.1 section 3.3.1);
 *   coll_types:     a broadcast and a reduction's root buffer (see there);
 * each with a twin (<case>_ok) that passes the declared type. The _ok
 * twins also pass, without a finding, what the standard allows: a `char`
 * array as MPI_INT (bytes view any memory) and a `long` array as
 * MPI_LONG_LONG (integers of the same size and signedness on LP64). "all" runs every case, "all_ok"
 * every twin (the markers are all's). The other side of each message is a
 * local array of the datatype's own type (locals are judged too). Two
 * ranks.
 */
#include "cases.h"

int gint[8];
double gdbl[4];
char graw[64];
unsigned guns[4];
long glong[4];

static void int_as_double(int ok)
{
    if (rank == 0)
        MPI_Send(gint, ok ? 8 : 4, ok ? MPI_INT : MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    else if (rank == 1)
        MPI_Recv(gint, ok ? 8 : 4, ok ? MPI_INT : MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
}

static void float_as_int(int ok)
{
    static float local[6];
    float of[6];
    int oi[6];
    if (rank == 0)
        MPI_Send(local, 6, ok ? MPI_FLOAT : MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    else if (rank == 1)
        MPI_Recv(ok ? (void *)of : (void *)oi, 6, ok ? MPI_FLOAT : MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void double_as_long(int ok)
{
    double od[4] = {0};
    long ol[4] = {0};
    if (rank == 0)
        MPI_Send(ok ? (void *)od : (void *)ol, 4, ok ? MPI_DOUBLE : MPI_LONG, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(gdbl, 4, ok ? MPI_DOUBLE : MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
}

static void unsigned_as_int(int ok)
{
    unsigned ou[4];
    int oi[4];
    if (rank == 0)
        MPI_Send(guns, 4, ok ? MPI_UNSIGNED : MPI_INT, 1, 3, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    else if (rank == 1)
        MPI_Recv(ok ? (void *)ou : (void *)oi, 4, ok ? MPI_UNSIGNED : MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Collectives: `float gflt[4]` broadcast as MPI_INT (every rank: the root
 * reads it, the others write it), and the root's `double gsum[2]` given
 * to MPI_Reduce as MPI_LONG (the root only: the others' receive buffer is
 * not significant), whose send side is a local of the datatype's type. */
float gflt[4];
double gsum[2];

static void coll_types(int ok)
{
    double mine[2] = {1, 2};
    long lmine[2] = {1, 2};
    MPI_Bcast(gflt, 4, ok ? MPI_FLOAT : MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0, LOCAL:BUFFER:TYPE_MISMATCH rank=1 */
    MPI_Reduce(ok ? (void *)mine : (void *)lmine, gsum, 2, ok ? MPI_DOUBLE : MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    MPI_Barrier(MPI_COMM_WORLD);
}

/* What the standard allows, in every twin. */
static void allowed(void)
{
    if (rank == 0) {
        MPI_Send(graw, 16, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(glong, 4, MPI_LONG_LONG, 1, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(graw, 16, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(glong, 4, MPI_LONG_LONG, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void int_as_double_bad(void) { int_as_double(0); }
static void int_as_double_ok(void) { int_as_double(1), allowed(); }
static void float_as_int_bad(void) { float_as_int(0); }
static void float_as_int_ok(void) { float_as_int(1), allowed(); }
static void double_as_long_bad(void) { double_as_long(0); }
static void double_as_long_ok(void) { double_as_long(1), allowed(); }
static void all_bad(void)
{
    int_as_double(0), float_as_int(0), double_as_long(0), unsigned_as_int(0), coll_types(0);
}
static void all_ok(void)
{
    int_as_double(1), float_as_int(1), double_as_long(1), unsigned_as_int(1), coll_types(1);
    allowed();
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {
        {"int_as_double", int_as_double_bad},   {"int_as_double_ok", int_as_double_ok},
        {"float_as_int", float_as_int_bad},     {"float_as_int_ok", float_as_int_ok},
        {"double_as_long", double_as_long_bad}, {"double_as_long_ok", double_as_long_ok},
        {"all", all_bad},                       {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

/* One-sided accesses outside the target's window, and origin buffers past
 * their object (issue 26): LOCAL:BUFFER:OVERFLOW at the origin, before the
 * call. Rank 0 accesses rank 1's window of 10 ints (a window over the
 * first 10 of a global `int wmem[64]`, so that bytes past the window stay
 * the program's own; disp_unit 4, or 8 for `du`):
 *   put:      2 ints at disp 9 (bytes 36-44 of 40);
 *   get:      4 ints at disp 8;
 *   acc:      MPI_Accumulate of 3 ints at disp 8;
 *   du:       disp_unit 8 over 5 doubles' worth, 1 double at disp 5;
 *   negative: 1 int at disp -1 (before the window's start);
 *   fop:      MPI_Fetch_and_op at disp 10;
 *   alloc:    MPI_Win_allocate of 9 ints, 1 int put at disp 9;
 *   origin:   an MPI_Put of 5 ints from a heap block of 4 (the origin
 *             buffer past its block), within the window;
 * each with a twin (<case>_ok) that fits: no finding. "all" and "all_ok"
 * run every case. MPI itself may reject an access outside the window
 * (MPI_ERR_RMA_RANGE): the windows return errors, and the test enables the
 * LOCAL:BUFFER classes only. Fence epochs; two ranks.
 */
#include <stdlib.h>

#include "cases.h"

int wmem[64];

static MPI_Win make(int du)
{
    MPI_Win w;
    MPI_Win_create(wmem, (MPI_Aint)(du == 8 ? 5 * 8 : 10 * 4), du, MPI_INFO_NULL,
                   MPI_COMM_WORLD, &w);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, w);
    return w;
}

static void done(MPI_Win *w)
{
    MPI_Win_fence(0, *w);
    MPI_Win_free(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void put_case(int fit)
{
    int v[2] = {1, 2};
    MPI_Win w = make(4);
    if (rank == 0) MPI_Put(v, 2, MPI_INT, 1, fit ? 8 : 9, 2, MPI_INT, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
}

static void get_case(int fit)
{
    int v[4];
    MPI_Win w = make(4);
    if (rank == 0) MPI_Get(v, 4, MPI_INT, 1, fit ? 6 : 8, 4, MPI_INT, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
}

static void acc_case(int fit)
{
    int v[3] = {1, 1, 1};
    MPI_Win w = make(4);
    if (rank == 0) MPI_Accumulate(v, 3, MPI_INT, 1, fit ? 7 : 8, 3, MPI_INT, MPI_SUM, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
}

static void du_case(int fit)
{
    double d = 1;
    MPI_Win w = make(8);
    if (rank == 0) MPI_Put(&d, 1, MPI_DOUBLE, 1, fit ? 4 : 5, 1, MPI_DOUBLE, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
}

static void negative_case(int fit)
{
    int v = 1;
    MPI_Win w = make(4);
    if (rank == 0) MPI_Put(&v, 1, MPI_INT, 1, fit ? 0 : -1, 1, MPI_INT, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
}

static void fop_case(int fit)
{
    int one = 1, old = 0;
    MPI_Win w = make(4);
    if (rank == 0) MPI_Fetch_and_op(&one, &old, MPI_INT, 1, fit ? 9 : 10, MPI_SUM, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
}

static void alloc_case(int fit)
{
    int v = 1, *base;
    MPI_Win w;
    MPI_Win_allocate(9 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, w);
    if (rank == 0) MPI_Put(&v, 1, MPI_INT, 1, fit ? 8 : 9, 1, MPI_INT, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
}

static void origin_case(int fit)
{
    int *v = calloc(fit ? 5 : 4, sizeof *v);
    MPI_Win w = make(4);
    if (rank == 0) MPI_Put(v, 5, MPI_INT, 1, 0, 5, MPI_INT, w); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    done(&w);
    free(v);
}

#define CASE(name)                                   \
    static void name##_bad(void) { name##_case(0); } \
    static void name##_ok(void) { name##_case(1); }
CASE(put)
CASE(get)
CASE(acc)
CASE(du)
CASE(negative)
CASE(fop)
CASE(alloc)
CASE(origin)
static void all_bad(void)
{
    put_bad(), get_bad(), acc_bad(), du_bad(), negative_bad(), fop_bad(), alloc_bad();
    origin_bad();
}
static void all_ok(void)
{
    put_ok(), get_ok(), acc_ok(), du_ok(), negative_ok(), fop_ok(), alloc_ok(), origin_ok();
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}

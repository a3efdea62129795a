/* What the operation and datatype check must leave alone, and MPI_Exscan.
 * MPI-3.1 section 5.9.2: the table applies to the predefined operations; a
 * user-defined operation (section 5.9.5) may take any datatype, derived
 * ones and MPI_BYTE included. Erroneous: MPI_PROD on MPI_C_BOOL in
 * MPI_Exscan (logical types allow MPI_LAND, MPI_LOR, MPI_LXOR only).
 * Correct twin: MPI_LOR on MPI_C_BOOL; both reduce a contiguous type of
 * two MPI_INT and bytes with user-defined operations, which must not be
 * flagged. */
/* TIMEOUT: 30 */
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

static void bor(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) ((unsigned char *)inout)[i] |= ((unsigned char *)in)[i];
}

static void sum_pairs(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < 2 * *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    int rank, size;
    int a[4] = {1, 2, 3, 4}, s[4];
    unsigned char bits[2] = {1, 2}, any[2];
    bool b[2] = {true, false}, bb[2] = {false, false};
    MPI_Datatype pair;
    MPI_Op op, psum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(sum_pairs, 1, &psum);
    MPI_Allreduce(a, s, 2, pair, psum, MPI_COMM_WORLD);
    MPI_Op_create(bor, 1, &op);
    MPI_Allreduce(bits, any, 2, MPI_BYTE, op, MPI_COMM_WORLD);
#ifdef BUG
    MPI_Exscan(b, bb, 2, MPI_C_BOOL, MPI_PROD, MPI_COMM_WORLD); /* EXPECT: LOCAL:ARG:OP_DATATYPE */
#else
    MPI_Exscan(b, bb, 2, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD);
#endif
    MPI_Op_free(&op);
    MPI_Op_free(&psum);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}

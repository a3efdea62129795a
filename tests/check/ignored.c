/* Arguments the standard says are not significant, and calls whose return
 * is not an error code: the correct program (no argument) must give no
 * finding at all (2 ranks). With the argument "bug" the same program also
 * runs its erroneous twins, on MPI_COMM_SELF with MPI_ERRORS_RETURN (every
 * rank is the root; nothing can wait for a partner), each expecting its
 * finding at its line.
 *
 * Correct (MPI 4.1 chapter 6): receive arguments at a gather's non-root
 * ranks, send arguments at a scatter's non-root ranks, the send count and
 * type next to MPI_IN_PLACE, the receive arguments of a scatter's root that
 * passes MPI_IN_PLACE as its receive buffer (MPI_Scatter, MPI_Iscatter,
 * MPI_Iscatterv); a type made by MPI_Type_dup of a committed or predefined
 * type is committed (4.1.10); MPI_Comm_c2f, MPI_Type_c2f return a Fortran
 * handle, MPI_Aint_add/diff an address, MPI_Wtime/Wtick a time. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int bug = argc > 1 && !strcmp(argv[1], "bug");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int a[16] = {0}, b[16] = {0}, counts[16], displs[16];
    for (int i = 0; i < 16; i++) counts[i] = 1, displs[i] = i, a[i] = rank;
    MPI_Request q;

    if (rank == 0) MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Gather(a, 1, MPI_INT, NULL, -1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Gatherv(a, 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Scatter(NULL, -1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) MPI_Scatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Scatterv(NULL, NULL, NULL, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    /* MPI_IN_PLACE: the send count and type are not significant. */
    MPI_Allgather(MPI_IN_PLACE, -1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(MPI_IN_PLACE, -1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    if (rank == 0) MPI_Gather(MPI_IN_PLACE, -1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Gather(a, 1, MPI_INT, NULL, -1, MPI_INT, 0, MPI_COMM_WORLD);
    /* A scatter's root may receive in place (and its receive arguments are
     * then not significant). */
    if (rank == 0) MPI_Scatter(b, 1, MPI_INT, MPI_IN_PLACE, -1, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Scatter(NULL, 0, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) MPI_Iscatter(b, 1, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0, MPI_COMM_WORLD, &q);
    else MPI_Iscatter(NULL, 0, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (rank == 0)
        MPI_Iscatterv(b, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0, MPI_COMM_WORLD, &q);
    else MPI_Iscatterv(NULL, NULL, NULL, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    /* MPI_Type_dup of a committed and of a predefined type: committed. */
    MPI_Datatype pair, pair2, int2;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_dup(pair, &pair2);
    MPI_Type_dup(MPI_INT, &int2);
    int other = (rank + 1) % size;
    MPI_Sendrecv(a, 1, pair2, other, 0, b, 1, pair2, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a, 2, int2, other, 1, b, 2, int2, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Returns that are not error codes. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Fint fc = MPI_Comm_c2f(dup), ft = MPI_Type_c2f(pair2);
    MPI_Aint base, end;
    MPI_Get_address(&a[0], &base);
    end = MPI_Aint_add(base, 8);
    double t = MPI_Wtime() + MPI_Wtick();
    if (MPI_Aint_diff(end, base) != 8 || t <= 0 || MPI_Comm_f2c(fc) != dup || MPI_Type_f2c(ft) != pair2)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_free(&dup);

    if (bug) {
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Gather(a, 1, MPI_INT, b, -1, MPI_INT, 0, MPI_COMM_SELF); /* expect: LOCAL:ARG:NEGATIVE_COUNT rank=0, LOCAL:ARG:NEGATIVE_COUNT rank=1 */
        MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, MPI_COMM_SELF); /* expect: LOCAL:ARG:NEGATIVE_COUNT rank=0, LOCAL:ARG:NEGATIVE_COUNT rank=1 */
        MPI_Datatype raw, raw2;
        MPI_Type_contiguous(2, MPI_INT, &raw);
        MPI_Type_dup(raw, &raw2);
        MPI_Send(a, 1, raw2, MPI_PROC_NULL, 0, MPI_COMM_SELF); /* expect: LOCAL:ARG:TYPE_NOT_COMMITTED rank=0, LOCAL:ARG:TYPE_NOT_COMMITTED rank=1 */
        MPI_Type_free(&raw2);
        MPI_Type_free(&raw);
    }
    MPI_Type_free(&int2);
    MPI_Type_free(&pair2);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}

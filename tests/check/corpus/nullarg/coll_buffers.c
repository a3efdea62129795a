/* NULL buffers in collectives. MPI-3.1 sections 5.5 and 5.9: a buffer that
 * holds one or more elements needs a valid address; arguments the standard
 * calls significant only at the root may be anything elsewhere, and
 * MPI_BOTTOM (section 4.1.5) is a valid buffer with a datatype of absolute
 * addresses. Erroneous: MPI_Allgather with a NULL receive buffer. Correct
 * twin: a real receive buffer; both gather to a root (MPI_Gather and
 * MPI_Igather) whose non-roots pass NULL as their (ignored) receive
 * buffer, reduce to a root whose non-roots pass NULL as theirs, and
 * broadcast from MPI_BOTTOM with an absolute struct type, none of which may
 * be flagged. */
/* TIMEOUT: 30 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size;
    int one, all[64], sum = 0, a = 1, b = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    one = rank;
    MPI_Gather(&one, 1, MPI_INT, rank == 0 ? all : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(&one, rank == 0 ? &sum : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Request r;
    MPI_Igather(&one, 1, MPI_INT, rank == 0 ? all : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Aint disp[2];
    int bl[2] = {1, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, t;
    MPI_Get_address(&a, &disp[0]);
    MPI_Get_address(&b, &disp[1]);
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_commit(&t);
    MPI_Bcast(MPI_BOTTOM, 1, t, 0, MPI_COMM_WORLD);
    MPI_Type_free(&t);
#ifdef BUG
    MPI_Allgather(&one, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD); /* EXPECT: LOCAL:ARG:NULL_POINTER */
#else
    MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}

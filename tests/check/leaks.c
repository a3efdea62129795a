/* Objects never freed and a request never completed: one leak class per line. */
#include <mpi.h>

static int add(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, buf = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype t;
    MPI_Comm dup;
    MPI_Group g;
    MPI_Op op;
    MPI_Request r;
    MPI_Type_contiguous(4, MPI_INT, &t); /* expect: LOCAL:LEAK:DATATYPE */
    MPI_Type_commit(&t);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* expect: LOCAL:LEAK:COMM */
    MPI_Comm_group(MPI_COMM_WORLD, &g); /* expect: LOCAL:LEAK:GROUP */
    MPI_Op_create((MPI_User_function *)add, 1, &op); /* expect: LOCAL:LEAK:OP */
    MPI_Irecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r); /* expect: LOCAL:REQUEST:NOT_FREED */
    /* Made and freed: no finding. */
    MPI_Datatype u;
    MPI_Type_vector(2, 1, 2, MPI_INT, &u);
    MPI_Type_commit(&u);
    MPI_Type_free(&u);
    MPI_Finalize();
    return 0;
}

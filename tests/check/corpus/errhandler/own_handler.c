/* A handler the application sets is left alone, and MPI_Comm_get_errhandler
 * gives back what the application had: MPI_ERRORS_ARE_FATAL by default,
 * MPI_ERRORS_RETURN once set. With MPI_ERRORS_RETURN the truncated receive
 * returns an error code the program checks and goes on (LOCAL:CALL:FAILED). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void expect_handler(MPI_Comm c, MPI_Errhandler want, const char *what)
{
    MPI_Errhandler h;
    MPI_Comm_get_errhandler(c, &h);
    if (h != want) {
        fprintf(stderr, "own_handler: MPI_Comm_get_errhandler gave the wrong handler (%s)\n", what);
        exit(1);
    }
    MPI_Errhandler_free(&h);
}

int main(int argc, char **argv)
{
    int rank, buf[8] = {0}, rc = MPI_SUCCESS;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    expect_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "world, default");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    expect_handler(dup, MPI_ERRORS_ARE_FATAL, "dup, inherited");
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    expect_handler(dup, MPI_ERRORS_RETURN, "dup, set");
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL);
    expect_handler(dup, MPI_ERRORS_ARE_FATAL, "dup, set back");
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rank == 0) MPI_Send(buf, 8, MPI_INT, 1, 0, dup);
#ifdef BUG
    if (rank == 1) rc = MPI_Recv(buf, 4, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE); /* EXPECT: LOCAL:CALL:FAILED rank=1 */
#else
    if (rank == 1) rc = MPI_Recv(buf, 8, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
#endif
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
#ifdef BUG
    if (rank == 1 && cls != MPI_ERR_TRUNCATE) {
        fprintf(stderr, "own_handler: expected MPI_ERR_TRUNCATE, got class %d\n", cls);
        return 1;
    }
#else
    if (rc != MPI_SUCCESS) return 1;
#endif
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}

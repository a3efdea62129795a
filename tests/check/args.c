/* Invalid arguments, one per line, each sent nowhere (MPI_PROC_NULL) or
 * returned as an error (MPI_ERRORS_RETURN), so the run goes on. Run with
 * MPISCOPE_CHECK_CLASSES=*,-LOCAL:CALL:FAILED: which calls fail differs
 * between MPIs, the argument findings do not. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, buf[8] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        MPI_Send(buf, 1, MPI_INT, 7, 0, MPI_COMM_WORLD); /* expect: LOCAL:ARG:RANK_OUT_OF_RANGE rank=0 */
        MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, -3, MPI_COMM_WORLD); /* expect: LOCAL:ARG:TAG_OUT_OF_RANGE rank=0 */
        MPI_Datatype t;
        MPI_Type_contiguous(2, MPI_INT, &t);
        MPI_Send(buf, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* expect: LOCAL:ARG:TYPE_NOT_COMMITTED rank=0 */
        MPI_Type_free(&t);
        MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_NULL); /* expect: LOCAL:ARG:NULL_HANDLE rank=0 */
        MPI_Send(MPI_IN_PLACE, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* expect: LOCAL:ARG:IN_PLACE rank=0 */
        MPI_Recv(buf, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 0, buf + 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: LOCAL:BUFFER:OVERLAP rank=0 */
        /* MPI_Type_get_contents gives the application a reference of its
         * own to a derived type inside another (MPI-3.1 section 4.1.13),
         * which it must free, although its handle of that type was freed
         * before: no LOCAL:ARG:FREED_HANDLE (MPICH's datatype/contents). */
        MPI_Datatype inner, outer, got[1];
        int ints[1];
        MPI_Aint aints[1];
        MPI_Type_vector(2, 1, 2, MPI_INT, &inner);
        MPI_Type_contiguous(3, inner, &outer);
        MPI_Type_free(&inner);
        MPI_Type_get_contents(outer, 1, 0, 1, ints, aints, got);
        MPI_Type_free(&got[0]);
        MPI_Type_free(&outer);
    }
    MPI_Bcast(buf, 1, MPI_INT, 5, MPI_COMM_WORLD); /* expect: LOCAL:ARG:ROOT_OUT_OF_RANGE rank=0, LOCAL:ARG:ROOT_OUT_OF_RANGE rank=1 */
    MPI_Finalize();
    return 0;
}

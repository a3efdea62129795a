/* The default handler of new files is MPI_FILE_NULL's. The program makes it
 * MPI_ERRORS_ARE_FATAL, then opens a file that does not exist: MPI ends the
 * job in MPI_File_open; the finding is out first. */
/* RC: native */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    char name[64];
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
    snprintf(name, sizeof name, "corpus-file-%d-%d", (int)getpid(), rank);
#ifdef BUG
    MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh); /* EXPECT: LOCAL:MPI_ERROR */
#else
    MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
#endif
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}

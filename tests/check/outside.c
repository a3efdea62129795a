/* Calls outside MPI (LOCAL:CALL:BEFORE_INIT, LOCAL:CALL:AFTER_FINALIZE):
 * argv[1] says which erroneous call to make, if any; the calls the standard
 * allows at any time are made in every case and must never be flagged.
 *   before  MPI_Comm_size before MPI_Init (both MPIs abort there)
 *   after   MPI_Type_size after MPI_Finalize (MPICH aborts; Open MPI returns
 *           when run with OMPI_MCA_mpi_param_check=0)
 *   none    only allowed calls
 * outside.sh compares exit code and stdout with and without the tool and
 * looks for the finding lines on stderr.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void allowed(void)
{
    int flag, v, sv, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Initialized(&flag);
    MPI_Finalized(&flag);
    MPI_Get_version(&v, &sv);
    MPI_Get_library_version(lib, &len);
#ifdef MPICH
    /* Open MPI 4.1 refuses these outside MPI, against the standard. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "key", "value");
    MPI_Info_free(&info);
    char es[MPI_MAX_ERROR_STRING];
    int cls;
    MPI_Error_string(MPI_ERR_COUNT, es, &len);
    MPI_Error_class(MPI_ERR_COUNT, &cls);
#endif
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "none";
    int n = 0;
    allowed();
    if (strcmp(how, "before") == 0) {
        int rc = MPI_Comm_size(MPI_COMM_WORLD, &n); /* expect: LOCAL:CALL:BEFORE_INIT */
        printf("before: rc %d\n", rc);
        fflush(stdout);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Finalize();
    allowed();
    if (strcmp(how, "after") == 0) {
        int rc = MPI_Type_size(MPI_INT, &n); /* expect: LOCAL:CALL:AFTER_FINALIZE */
        printf("after: rc %d size %d\n", rc, n);
        fflush(stdout);
    }
    allowed();
    printf("done\n");
    return 0;
}

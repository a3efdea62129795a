/* Windows get MPI_ERRORS_ARE_FATAL by default: an erroneous window call (an
 * attribute key that was never created) ends the job inside MPI, after the
 * finding. */
/* RC: native */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int buf[4] = {0}, flag = 0, key = MPI_KEYVAL_INVALID;
    void *v;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key, NULL);
#ifdef BUG
    MPI_Win_get_attr(win, 99999, &v, &flag); /* EXPECT: LOCAL:MPI_ERROR */
#else
    MPI_Win_get_attr(win, key, &v, &flag);
#endif
    MPI_Win_free_keyval(&key);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}

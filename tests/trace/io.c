/* Trace test program: MPI-IO on 2 ranks. Both ranks open one file in
 * $MPISCOPE_OUTPUT collectively, each works in its own 4 KiB block with
 * explicit offsets (write_at, read_at), the individual file pointer (write,
 * read), the collective forms (write_at_all, read_at_all, write_all,
 * read_all) and the nonblocking ones completed by MPI_Wait (iwrite_at,
 * iread_at, iwrite, iread), plus one read past the end of the file (bytes
 * done 0). Every traced call goes through C(); check_trace.py --io compares
 * the I/O records with what this program did. */
#include "expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    C(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    C(MPI_Comm_size, MPI_COMM_WORLD, &size);
    if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
    const char *dir = getenv("MPISCOPE_OUTPUT");
    char path[4096];
    snprintf(path, sizeof path, "%s/io.dat", dir ? dir : ".");
    int buf[16], rbuf[16];
    double d[8] = {1, 2, 3, 4, 5, 6, 7, 8}, rd[8];
    for (int i = 0; i < 16; i++) buf[i] = rank * 100 + i;
    MPI_Offset base = (MPI_Offset)rank * 4096;
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    C(MPI_File_open, MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);

    C(MPI_File_write_at, fh, base, buf, 10, MPI_INT, &st);             /* 40 bytes */
    C(MPI_File_read_at, fh, base, rbuf, 10, MPI_INT, &st);             /* 40 */
    CHECK(rbuf[9] == buf[9]);
    C(MPI_File_seek, fh, base + 1024, MPI_SEEK_SET);
    C(MPI_File_write, fh, d, 6, MPI_DOUBLE, MPI_STATUS_IGNORE);        /* 48 */
    C(MPI_File_seek, fh, base + 1024, MPI_SEEK_SET);
    C(MPI_File_read, fh, rd, 6, MPI_DOUBLE, &st);                      /* 48 */
    CHECK(rd[5] == 6);

    C(MPI_File_write_at_all, fh, base + 2048, buf, 5, MPI_INT, &st);   /* 20, collective */
    C(MPI_File_read_at_all, fh, base + 2048, rbuf, 5, MPI_INT, &st);   /* 20, collective */
    C(MPI_File_seek, fh, base + 3000, MPI_SEEK_SET);
    C(MPI_File_write_all, fh, buf, 3, MPI_INT, &st);                   /* 12, collective */
    C(MPI_File_seek, fh, base + 3000, MPI_SEEK_SET);
    C(MPI_File_read_all, fh, rbuf, 3, MPI_INT, &st);                   /* 12, collective */

    C(MPI_File_iwrite_at, fh, base + 3500, buf, 7, MPI_INT, &rq);      /* 28, nonblocking */
    C(MPI_Wait, &rq, &st);
    C(MPI_File_iread_at, fh, base + 3500, rbuf, 7, MPI_INT, &rq);      /* 28 */
    C(MPI_Wait, &rq, MPI_STATUS_IGNORE);
    CHECK(rbuf[6] == buf[6]);
    C(MPI_File_seek, fh, base + 3600, MPI_SEEK_SET);
    C(MPI_File_iwrite, fh, buf, 2, MPI_INT, &rq);                      /* 8 */
    C(MPI_Wait, &rq, &st);
    C(MPI_File_seek, fh, base + 3600, MPI_SEEK_SET);
    C(MPI_File_iread, fh, rbuf, 2, MPI_INT, &rq);                      /* 8 */
    C(MPI_Wait, &rq, &st);

    C(MPI_Barrier, MPI_COMM_WORLD);
    C(MPI_File_read_at, fh, 1 << 20, rbuf, 10, MPI_INT, &st);          /* 40 asked, 0 done */
    int n = -1;
    C(MPI_Get_count, &st, MPI_INT, &n);
    CHECK(n == 0);
    C(MPI_File_close, &fh);
    expect_write(rank);
    MPI_Finalize();
    return 0;
}

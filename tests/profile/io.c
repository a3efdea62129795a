/* MPI-IO with known sizes, for check.py (test "io"). In the output directory
 * ($MPISCOPE_OUTPUT), every rank:
 *
 *   io-shared.dat, opened by all ranks (MPI_COMM_WORLD), at rank r's offsets:
 *     MPI_File_write_at_all   65536 bytes   collective
 *     MPI_File_write_at        1000 bytes   independent
 *     MPI_File_iwrite_at        300 bytes   independent, nonblocking
 *     MPI_File_write_all_begin/end  500 bytes  collective (split)
 *     then the same four reads back (read_at_all, read_at, iread_at,
 *     read_all_begin/end), and every byte is compared
 *   io-rank<r>.dat, this rank's own (MPI_COMM_SELF):
 *     MPI_File_write 4096 bytes twice, MPI_File_read 4096 bytes once
 *
 * Both files are deleted at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BIG = 65536, MID = 1000, SMALL = 300, SPLIT = 500, OWN = 4096 };

#define CHECK(x) do { if ((x) != MPI_SUCCESS) { fprintf(stderr, "%s failed\n", #x); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *dir = getenv("MPISCOPE_OUTPUT");
    if (!dir) dir = ".";
    char shared[4096], own[4096];
    snprintf(shared, sizeof shared, "%s/io-shared.dat", dir);
    snprintf(own, sizeof own, "%s/io-rank%d.dat", dir, r);

    char *out = malloc(BIG), *in = malloc(BIG);
    for (int i = 0; i < BIG; i++) out[i] = (char)(r * 31 + i);
    /* Offsets: the big blocks, then each rank's 1000, 300 and 500 bytes. */
    MPI_Offset big = (MPI_Offset)r * BIG, base = (MPI_Offset)n * BIG;
    MPI_Offset mid = base + (MPI_Offset)r * MID, small = base + (MPI_Offset)n * MID + r * SMALL;
    MPI_Offset split = base + (MPI_Offset)n * (MID + SMALL) + r * SPLIT;
    MPI_File fh;
    MPI_Status st;
    MPI_Request q;
    CHECK(MPI_File_open(MPI_COMM_WORLD, shared, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK(MPI_File_write_at_all(fh, big, out, BIG, MPI_BYTE, &st)); /* SITE:write_at_all */
    CHECK(MPI_File_write_at(fh, mid, out, MID, MPI_BYTE, MPI_STATUS_IGNORE)); /* SITE:write_at */
    CHECK(MPI_File_iwrite_at(fh, small, out, SMALL, MPI_BYTE, &q)); /* SITE:iwrite_at */
    CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(MPI_File_seek(fh, split, MPI_SEEK_SET));
    CHECK(MPI_File_write_all_begin(fh, out, SPLIT, MPI_BYTE));
    CHECK(MPI_File_write_all_end(fh, out, &st)); /* SITE:write_all_end */
    CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh));
    CHECK(MPI_File_read_at_all(fh, big, in, BIG, MPI_BYTE, &st)); /* SITE:read_at_all */
    int bad = memcmp(in, out, BIG) != 0;
    CHECK(MPI_File_read_at(fh, mid, in, MID, MPI_BYTE, &st)); /* SITE:read_at */
    bad |= memcmp(in, out, MID) != 0;
    CHECK(MPI_File_iread_at(fh, small, in, SMALL, MPI_BYTE, &q)); /* SITE:iread_at */
    CHECK(MPI_Wait(&q, &st));
    bad |= memcmp(in, out, SMALL) != 0;
    CHECK(MPI_File_seek(fh, split, MPI_SEEK_SET));
    CHECK(MPI_File_read_all_begin(fh, in, SPLIT, MPI_BYTE));
    CHECK(MPI_File_read_all_end(fh, in, &st)); /* SITE:read_all_end */
    bad |= memcmp(in, out, SPLIT) != 0;
    CHECK(MPI_File_close(&fh));

    CHECK(MPI_File_open(MPI_COMM_SELF, own, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK(MPI_File_write(fh, out, OWN, MPI_BYTE, &st)); /* SITE:write */
    CHECK(MPI_File_write(fh, out + OWN, OWN, MPI_BYTE, &st)); /* SITE:write2 */
    CHECK(MPI_File_seek(fh, OWN, MPI_SEEK_SET));
    CHECK(MPI_File_read(fh, in, OWN, MPI_BYTE, &st)); /* SITE:read */
    bad |= memcmp(in, out + OWN, OWN) != 0;
    CHECK(MPI_File_close(&fh));
    CHECK(MPI_File_delete(own, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0) CHECK(MPI_File_delete(shared, MPI_INFO_NULL));
    if (bad) fprintf(stderr, "rank %d: read back differs\n", r);
    free(out);
    free(in);
    MPI_Finalize();
    return bad;
}

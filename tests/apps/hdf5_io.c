/* Parallel HDF5 (Debian's libhdf5-openmpi-dev / libhdf5-mpich-dev) driving
 * MPI-IO the way applications do: every rank writes its slab of a 2-D
 * dataset with a collective transfer (H5FD_MPIO_COLLECTIVE: MPI_File_set_view
 * and MPI_File_write_at_all inside HDF5), adds an attribute, closes, reopens
 * the file read-only and reads back its neighbour's slab, independently, then
 * the whole dataset collectively. Rank 0 prints what was verified; any
 * mismatch is printed and makes the exit code 1.
 *   hdf5_io <file> <rows per rank> <columns>
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value(int row, int col) { return row * 1000.0 + col; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *name = argc > 1 ? argv[1] : "hdf5_io.h5";
    hsize_t rows = argc > 2 ? strtoull(argv[2], NULL, 10) : 64;
    hsize_t cols = argc > 3 ? strtoull(argv[3], NULL, 10) : 128;
    hsize_t dims[2] = {rows * (hsize_t)size, cols};
    long bad = 0;

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

    /* Write: each rank its slab of rows, collectively. */
    double *buf = malloc(rows * cols * sizeof *buf);
    for (hsize_t r = 0; r < rows; r++)
        for (hsize_t c = 0; c < cols; c++)
            buf[r * cols + c] = value((int)(rank * rows + r), (int)c);
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "field", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT);
    hsize_t start[2] = {rank * rows, 0}, count[2] = {rows, cols};
    hid_t fsel = H5Dget_space(dset);
    H5Sselect_hyperslab(fsel, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(2, count, NULL);
    herr_t w = H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, fsel, dxpl, buf);
    int nranks = size;
    hid_t aspace = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(dset, "ranks", H5T_NATIVE_INT, aspace, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &nranks);
    H5Aclose(attr);
    H5Sclose(aspace);
    H5Sclose(mem);
    H5Sclose(fsel);
    H5Sclose(space);
    H5Dclose(dset);
    H5Fclose(file);

    /* Read back: the next rank's slab independently, then everything collectively. */
    file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    dset = H5Dopen2(file, "field", H5P_DEFAULT);
    int next = (rank + 1) % size;
    start[0] = next * rows;
    fsel = H5Dget_space(dset);
    H5Sselect_hyperslab(fsel, H5S_SELECT_SET, start, NULL, count, NULL);
    mem = H5Screate_simple(2, count, NULL);
    herr_t r1 = H5Dread(dset, H5T_NATIVE_DOUBLE, mem, fsel, H5P_DEFAULT, buf);
    for (hsize_t r = 0; r < rows; r++)
        for (hsize_t c = 0; c < cols; c++)
            bad += buf[r * cols + c] != value((int)(next * rows + r), (int)c);
    H5Sclose(mem);
    H5Sclose(fsel);
    double *all = malloc(dims[0] * cols * sizeof *all);
    herr_t r2 = H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, all);
    double sum = 0;
    for (hsize_t r = 0; r < dims[0]; r++)
        for (hsize_t c = 0; c < cols; c++) {
            bad += all[r * cols + c] != value((int)r, (int)c);
            sum += all[r * cols + c];
        }
    int got = 0;
    attr = H5Aopen(dset, "ranks", H5P_DEFAULT);
    H5Aread(attr, H5T_NATIVE_INT, &got);
    H5Aclose(attr);
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(fapl);

    long allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("dataset %llu x %llu written collectively by %d ranks: %s\n",
               (unsigned long long)dims[0], (unsigned long long)dims[1], size,
               w < 0 ? "write failed" : "ok");
        printf("attribute ranks = %d\n", got);
        printf("read back: %s, %ld values wrong, sum %.1f\n",
               r1 < 0 || r2 < 0 ? "read failed" : "ok", allbad, sum);
    }
    free(buf);
    free(all);
    MPI_Finalize();
    return allbad != 0 || w < 0 || r1 < 0 || r2 < 0 || got != size;
}

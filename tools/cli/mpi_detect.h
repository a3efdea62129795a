/* Private to the mpiscope program. Which MPI a program or a launcher belongs to.
 *
 * The tool library exists once per MPI because the ABIs differ, so loading
 * the wrong one into a rank fails at best. The program's own DT_NEEDED list
 * is the most reliable witness; the launcher (what `mpirun` resolves to) is
 * the fallback for programs that are not ELF files (scripts, interpreters) or
 * do not link MPI directly.
 */
#ifndef MSC_CLI_MPI_DETECT_H
#define MSC_CLI_MPI_DETECT_H

#include <stddef.h>

typedef enum {
    MSC_MPI_UNKNOWN = 0,
    MSC_MPI_OPENMPI,
    MSC_MPI_MPICH,
} msc_mpi_t;

/* "openmpi", "mpich" (the names of the library folders and of --mpi), or
 * "unknown". */
const char *msc_mpi_name(msc_mpi_t mpi);

/* The inverse of msc_mpi_name for the two real MPIs; MSC_MPI_UNKNOWN else. */
msc_mpi_t msc_mpi_from_name(const char *name);

/* The MPI a shared library name (a DT_NEEDED entry such as "libmpi.so.40")
 * belongs to, or MSC_MPI_UNKNOWN for a library of no MPI. */
msc_mpi_t msc_mpi_of_library(const char *soname);

/* The MPI the ELF file at `path` is linked with. Writes the evidence or the
 * reason for not knowing (one phrase, e.g. "linked with libmpich.so.12") into
 * `why`. */
msc_mpi_t msc_mpi_of_program(const char *path, char *why, size_t whylen);

/* The MPI a launcher belongs to, from the name of the file `path` resolves to
 * (orterun, mpiexec.hydra, ...) and, failing that, from its DT_NEEDED list.
 * Writes the evidence into `why`. */
msc_mpi_t msc_mpi_of_launcher(const char *path, char *why, size_t whylen);

#endif

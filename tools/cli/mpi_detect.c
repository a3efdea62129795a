/* MPI identification by library and file names.
 *
 * Library names: Open MPI's C library is libmpi.so.40 (3.x to 5.x; .20 for
 * 2.x), its bindings libmpi_mpifh, libmpi_usempi*, libmpi_cxx, libmpi_java,
 * and its runtime libopen-rte / libopen-pal. MPICH ships libmpich*.so.12 as
 * built by Debian, but upstream MPICH and the MPICH-ABI family (Intel MPI,
 * MVAPICH, Cray MPICH) name theirs libmpi.so.12, libmpifort.so.12 and
 * libmpicxx.so.12, so the soname version 12 of libmpi means MPICH, not Open
 * MPI (whose 1.10 series also used 12, but is long gone).
 *
 * Launcher names: Open MPI's mpirun and mpiexec are links to orterun (prterun
 * from 5.0); MPICH's are links to mpiexec.hydra.
 */
#include "mpi_detect.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_needed.h"

const char *msc_mpi_name(msc_mpi_t mpi)
{
    switch (mpi) {
    case MSC_MPI_OPENMPI: return "openmpi";
    case MSC_MPI_MPICH: return "mpich";
    default: return "unknown";
    }
}

msc_mpi_t msc_mpi_from_name(const char *name)
{
    if (strcmp(name, "openmpi") == 0) return MSC_MPI_OPENMPI;
    if (strcmp(name, "mpich") == 0) return MSC_MPI_MPICH;
    return MSC_MPI_UNKNOWN;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

msc_mpi_t msc_mpi_of_library(const char *soname)
{
    const char *n = base_name(soname);
    if (starts_with(n, "libmpich")) return MSC_MPI_MPICH; /* libmpich, libmpichfort, libmpichcxx */
    if (starts_with(n, "libmpifort.so") || starts_with(n, "libmpicxx.so")) return MSC_MPI_MPICH;
    if (strcmp(n, "libmpi.so.12") == 0 || starts_with(n, "libmpi.so.12.")) return MSC_MPI_MPICH;
    if (strcmp(n, "libmpi.so") == 0 || starts_with(n, "libmpi.so.")) return MSC_MPI_OPENMPI;
    if (starts_with(n, "libmpi_mpifh") || starts_with(n, "libmpi_usempi") ||
        starts_with(n, "libmpi_cxx") || starts_with(n, "libmpi_java"))
        return MSC_MPI_OPENMPI;
    if (starts_with(n, "libopen-rte") || starts_with(n, "libopen-pal") ||
        starts_with(n, "libprrte"))
        return MSC_MPI_OPENMPI;
    return MSC_MPI_UNKNOWN;
}

/* Classifies `path` by its DT_NEEDED list. */
static msc_mpi_t by_needed(const char *path, char *why, size_t whylen)
{
    char err[512];
    char **needed = msc_elf_needed(path, err, sizeof err);
    if (!needed) {
        snprintf(why, whylen, "%s", err);
        return MSC_MPI_UNKNOWN;
    }
    msc_mpi_t found = MSC_MPI_UNKNOWN;
    const char *evidence = NULL;
    for (char **n = needed; *n; n++) {
        msc_mpi_t m = msc_mpi_of_library(*n);
        if (m == MSC_MPI_UNKNOWN) continue;
        if (found != MSC_MPI_UNKNOWN && m != found) {
            snprintf(why, whylen, "'%s' is linked with both %s and %s", path, evidence, *n);
            msc_elf_needed_free(needed);
            return MSC_MPI_UNKNOWN;
        }
        if (found == MSC_MPI_UNKNOWN) found = m, evidence = *n;
    }
    if (found != MSC_MPI_UNKNOWN)
        snprintf(why, whylen, "'%s' is linked with %s", path, evidence);
    else if (!needed[0])
        snprintf(why, whylen, "'%s' is linked statically or needs no library", path);
    else
        snprintf(why, whylen, "'%s' is linked with no MPI library", path);
    msc_elf_needed_free(needed);
    return found;
}

msc_mpi_t msc_mpi_of_program(const char *path, char *why, size_t whylen)
{
    return by_needed(path, why, whylen);
}

msc_mpi_t msc_mpi_of_launcher(const char *path, char *why, size_t whylen)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    const char *n = base_name(real);
    msc_mpi_t m = MSC_MPI_UNKNOWN;
    if (strcmp(n, "orterun") == 0 || strcmp(n, "prterun") == 0 || strstr(n, "openmpi"))
        m = MSC_MPI_OPENMPI;
    else if (strstr(n, "hydra") || strstr(n, "mpich"))
        m = MSC_MPI_MPICH;
    if (m != MSC_MPI_UNKNOWN) {
        snprintf(why, whylen, "the launcher '%s' is %s", path, real);
        return m;
    }
    char inner[PATH_MAX + 128];
    m = by_needed(real, inner, sizeof inner);
    snprintf(why, whylen, "the launcher %s: %s", path, inner);
    return m;
}

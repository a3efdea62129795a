/* Private to the mpiscope program. Where its tool libraries are.
 *
 * The program and the libraries keep the same layout relative to one prefix
 * in the build tree and once installed: <prefix>/bin/mpiscope and
 * <prefix>/<MSC_LIBDIR_REL>/<mpi>/libmpiscope.so (and check mode's
 * <prefix>/<MSC_LIBDIR_REL>/libmpiscope-heap.so). The program finds its
 * prefix from /proc/self/exe, so it needs no configuration and works from any
 * copy of the tree.
 */
#ifndef MSC_CLI_PATHS_H
#define MSC_CLI_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the absolute path of the tool library for MPI `mpi` ("openmpi",
 * "mpich") into `path`. Returns true when that file exists. */
bool msc_tool_library(const char *mpi, char *path, size_t pathlen);

/* The same for check mode's allocator interposer, which is the same for
 * every MPI: <prefix>/<MSC_LIBDIR_REL>/libmpiscope-heap.so. */
bool msc_heap_library(char *path, size_t pathlen);

#endif

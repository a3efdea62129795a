/* Tool library location: <directory of /proc/self/exe>/../<MSC_LIBDIR_REL>.
 * The kernel gives /proc/self/exe with symbolic links resolved, so a link to
 * the program from elsewhere (/usr/local/bin) still finds the real prefix.
 * realpath() folds the ".." of the library folder so that LD_PRELOAD and the
 * messages show a clean path; the file name stays libmpiscope.so (the link
 * the build and the installation make), not the versioned name it points to.
 * The build passes MSC_LIBDIR_REL (e.g. "lib/mpiscope"); see CMakeLists.txt.
 */
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MSC_LIBDIR_REL
#error "MSC_LIBDIR_REL must be defined by the build"
#endif

bool msc_tool_library(const char *mpi, char *path, size_t pathlen)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(path, pathlen, "<unknown: /proc/self/exe unreadable>/%s/%s/libmpiscope.so",
                 MSC_LIBDIR_REL, mpi);
        return false;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0; /* the bin directory */
    char dir[PATH_MAX + 256];
    snprintf(dir, sizeof dir, "%s/../%s/%s", exe, MSC_LIBDIR_REL, mpi);
    char real[PATH_MAX];
    if (realpath(dir, real)) {
        snprintf(path, pathlen, "%s/libmpiscope.so", real);
        return access(path, R_OK) == 0;
    }
    /* The folder is missing: show where it was looked for, without "..". */
    slash = strrchr(exe, '/');
    if (slash) *slash = 0; /* the prefix */
    snprintf(path, pathlen, "%s/%s/%s/libmpiscope.so", exe, MSC_LIBDIR_REL, mpi);
    return false;
}

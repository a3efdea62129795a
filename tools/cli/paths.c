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

/* <prefix>/<MSC_LIBDIR_REL>/<sub>/<file> ("" sub: the library folder itself). */
static bool library_path(const char *sub, const char *file, char *path, size_t pathlen)
{
    const char *sep = *sub ? "/" : "";
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(path, pathlen, "<unknown: /proc/self/exe unreadable>/%s%s%s/%s",
                 MSC_LIBDIR_REL, sep, sub, file);
        return false;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0; /* the bin directory */
    char dir[PATH_MAX + 256];
    snprintf(dir, sizeof dir, "%s/../%s%s%s", exe, MSC_LIBDIR_REL, sep, sub);
    char real[PATH_MAX];
    if (realpath(dir, real)) {
        snprintf(path, pathlen, "%s/%s", real, file);
        return access(path, R_OK) == 0;
    }
    /* The folder is missing: show where it was looked for, without "..". */
    slash = strrchr(exe, '/');
    if (slash) *slash = 0; /* the prefix */
    snprintf(path, pathlen, "%s/%s%s%s/%s", exe, MSC_LIBDIR_REL, sep, sub, file);
    return false;
}

bool msc_tool_library(const char *mpi, char *path, size_t pathlen)
{
    return library_path(mpi, "libmpiscope.so", path, pathlen);
}

bool msc_heap_library(char *path, size_t pathlen)
{
    return library_path("", "libmpiscope-heap.so", path, pathlen);
}

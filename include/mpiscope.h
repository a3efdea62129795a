/* mpiscope: the public C interface of the tool library.
 *
 * Programs never need this header: mpiscope records through the MPI
 * profiling interface. It is for programs (and tests) that want to ask the
 * tool what it has seen, from code linked with -lmpiscope or loaded under
 * `mpiscope run` (look the symbols up with dlsym(RTLD_DEFAULT, ...) there).
 */
#ifndef MPISCOPE_H
#define MPISCOPE_H

#ifdef __cplusplus
extern "C" {
#endif

#define MPISCOPE_VERSION_MAJOR 0
#define MPISCOPE_VERSION_MINOR 1
#define MPISCOPE_VERSION_PATCH 0

/* The version of the library in use, as "major.minor.patch". */
const char *mpiscope_version(void);

/* How many calls of the MPI function `name` (e.g. "MPI_Send") this process
 * has recorded so far, over all its threads and language bindings. Returns
 * -1 if the library has no wrapper of that name. */
long long mpiscope_calls(const char *name);

/* The output directory of the run, or "" when there is none (before MPI_Init,
 * MPISCOPE_MODE=none, or a directory that could not be created). */
const char *mpiscope_output_dir(void);

#ifdef __cplusplus
}
#endif

#endif

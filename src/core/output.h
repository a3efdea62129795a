/* Private to mpiscope. Files in the run's output directory.
 *
 * Files are written under a temporary name, created exclusively and without
 * following symbolic links, and renamed into place only when every byte has
 * reached the file system: a reader never finds a half-written file under
 * the final name. Failures are reported once and the caller carries on.
 */
#ifndef MSC_CORE_OUTPUT_H
#define MSC_CORE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    char final_path[4096 + 256];
    char temp_path[4096 + 256];
} msc_out_t;

/* Chooses and creates the output directory on world rank 0 and tells every
 * rank (collective over the private communicator). Leaves msc_g.outdir empty
 * if it cannot be created, after one message. */
void msc_output_setup(const char *program) __attribute__((visibility("hidden")));

/* Opens <outdir>/<name> for writing (name may contain an existing
 * subdirectory). false (after a message) on failure. */
bool msc_out_open(msc_out_t *o, const char *name) __attribute__((visibility("hidden")));

/* Flushes, closes and renames into place; false (after a message, and with
 * the temporary file removed) if anything failed, including a full disk. */
bool msc_out_close(msc_out_t *o) __attribute__((visibility("hidden")));

/* Files this process put into the output directory so far: msc_out_close
 * counts its own; a module that writes otherwise (the trace, through OTF2)
 * calls msc_output_wrote once it has. The closing "results in" line is
 * printed only when some rank wrote something. */
void msc_output_wrote(void) __attribute__((visibility("hidden")));
unsigned long msc_output_written(void) __attribute__((visibility("hidden")));

#endif

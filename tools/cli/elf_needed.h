/* Private to the mpiscope program. The DT_NEEDED entries of an ELF64 file.
 *
 * `mpiscope run` tells which MPI a program uses from the shared libraries it
 * was linked with, without running it and without readelf or ldd: it reads
 * the program headers, the PT_DYNAMIC segment and the dynamic string table
 * with pread(2), checking every offset against the file size, so a truncated
 * or hostile file yields an error rather than a crash.
 */
#ifndef MSC_CLI_ELF_NEEDED_H
#define MSC_CLI_ELF_NEEDED_H

#include <stddef.h>

/* Reads the DT_NEEDED names of the ELF64 file at `path` (an executable or a
 * shared library, of this machine's byte order). Returns a NULL-terminated
 * array of malloc'd strings (empty for a statically linked file), to be freed
 * with msc_elf_needed_free; or NULL with one sentence in `err` when the file
 * cannot be read or is not such a file. */
char **msc_elf_needed(const char *path, char *err, size_t errlen);

void msc_elf_needed_free(char **names);

#endif

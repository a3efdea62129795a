/* DT_NEEDED reader. The dynamic section is found through the program headers
 * (PT_DYNAMIC), not the section headers, because those may be stripped and
 * the loader never uses them either. DT_STRTAB holds a virtual address; it is
 * turned into a file offset through the PT_LOAD segment that contains it.
 * Sizes read from the file are capped so that a corrupt header cannot make us
 * allocate gigabytes.
 */
#include "elf_needed.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PHDRS 4096               /* program headers we are willing to read */
#define MAX_DYNAMIC (1u << 20)       /* bytes of dynamic section */
#define MAX_STRTAB (64u << 20)       /* bytes of dynamic string table */

/* Reads exactly `len` bytes at `off`, refusing ranges outside the file. */
static bool read_at(int fd, uint64_t file_size, uint64_t off, void *buf, size_t len)
{
    if (off > file_size || len > file_size - off) return false;
    char *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return true;
}

void msc_elf_needed_free(char **names)
{
    if (!names) return;
    for (char **n = names; *n; n++) free(*n);
    free(names);
}

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

char **msc_elf_needed(const char *path, char *err, size_t errlen)
{
    char **names = NULL;
    Elf64_Phdr *phdrs = NULL;
    Elf64_Dyn *dyn = NULL;
    char *strtab = NULL;
    uint64_t *needed = NULL;

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "'%s' is not a regular file", path);
        goto out;
    }
    uint64_t size = (uint64_t)st.st_size;

    Elf64_Ehdr eh;
    if (!read_at(fd, size, 0, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(err, errlen, "'%s' is not an ELF file", path);
        goto out;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
        snprintf(err, errlen, "'%s' is a 32-bit ELF file; only ELF64 files are read", path);
        goto out;
    }
    if (eh.e_ident[EI_DATA] != (host_is_little_endian() ? ELFDATA2LSB : ELFDATA2MSB)) {
        snprintf(err, errlen, "'%s' is an ELF file of the other byte order", path);
        goto out;
    }
    if (eh.e_phnum == 0) goto none; /* a relocatable object: nothing is needed */
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > MAX_PHDRS) {
        snprintf(err, errlen, "'%s' has malformed program headers", path);
        goto out;
    }
    phdrs = malloc((size_t)eh.e_phnum * sizeof *phdrs);
    if (!phdrs ||
        !read_at(fd, size, eh.e_phoff, phdrs, (size_t)eh.e_phnum * sizeof *phdrs)) {
        snprintf(err, errlen, "'%s' is truncated (program headers)", path);
        goto out;
    }

    const Elf64_Phdr *dynamic = NULL;
    for (int i = 0; i < eh.e_phnum; i++)
        if (phdrs[i].p_type == PT_DYNAMIC) dynamic = &phdrs[i];
    if (!dynamic) goto none; /* statically linked */
    if (dynamic->p_filesz > MAX_DYNAMIC) {
        snprintf(err, errlen, "'%s' has an implausibly large dynamic section", path);
        goto out;
    }
    size_t ndyn = (size_t)(dynamic->p_filesz / sizeof *dyn);
    dyn = malloc(ndyn ? ndyn * sizeof *dyn : 1);
    if (!dyn || !read_at(fd, size, dynamic->p_offset, dyn, ndyn * sizeof *dyn)) {
        snprintf(err, errlen, "'%s' is truncated (dynamic section)", path);
        goto out;
    }

    uint64_t strtab_addr = 0, strtab_size = 0;
    size_t nneeded = 0;
    needed = malloc((ndyn ? ndyn : 1) * sizeof *needed);
    if (!needed) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    bool have_strtab = false;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag == DT_NEEDED) needed[nneeded++] = dyn[i].d_un.d_val;
        else if (dyn[i].d_tag == DT_STRTAB) strtab_addr = dyn[i].d_un.d_ptr, have_strtab = true;
        else if (dyn[i].d_tag == DT_STRSZ) strtab_size = dyn[i].d_un.d_val;
    }
    names = calloc(nneeded + 1, sizeof *names);
    if (!names) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (nneeded == 0) goto out;
    if (!have_strtab || strtab_size == 0 || strtab_size > MAX_STRTAB) {
        snprintf(err, errlen, "'%s' has no usable dynamic string table", path);
        goto fail;
    }

    /* The string table's file offset, through the PT_LOAD segment holding it. */
    uint64_t strtab_off = UINT64_MAX;
    for (int i = 0; i < eh.e_phnum; i++) {
        const Elf64_Phdr *ph = &phdrs[i];
        if (ph->p_type == PT_LOAD && strtab_addr >= ph->p_vaddr &&
            strtab_addr - ph->p_vaddr < ph->p_filesz) {
            strtab_off = ph->p_offset + (strtab_addr - ph->p_vaddr);
            break;
        }
    }
    strtab = malloc((size_t)strtab_size);
    if (strtab_off == UINT64_MAX || !strtab ||
        !read_at(fd, size, strtab_off, strtab, (size_t)strtab_size)) {
        snprintf(err, errlen, "'%s' has a dynamic string table outside the file", path);
        goto fail;
    }
    for (size_t i = 0; i < nneeded; i++) {
        uint64_t at = needed[i];
        const char *end = at < strtab_size ? memchr(strtab + at, 0, strtab_size - at) : NULL;
        if (!end) {
            snprintf(err, errlen, "'%s' has a DT_NEEDED entry outside its string table", path);
            goto fail;
        }
        if (!(names[i] = strdup(strtab + at))) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    goto out;

none:
    if (!(names = calloc(1, sizeof *names))) snprintf(err, errlen, "out of memory");
    goto out;
fail:
    msc_elf_needed_free(names);
    names = NULL;
out:
    free(needed);
    free(strtab);
    free(dyn);
    free(phdrs);
    close(fd);
    return names;
}

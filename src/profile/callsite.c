/* Call-site resolution with elfutils libdwfl on the live process: the
 * /proc/self/maps report gives every loaded object with its load address,
 * and each module's DWARF line table (found next to the object or through
 * the debuginfo paths) gives file and line. The caller's line is that of the
 * call instruction, so the return address is moved back one byte before the
 * lookup. The resolver is opened once per report and closed after it.
 */
#include "callsite.h"

#include <elfutils/libdwfl.h>
#include <libunwind.h>
#include <stdlib.h>
#include <unistd.h>

struct msc_callsite_resolver {
    Dwfl *dwfl;
    Dwfl_Callbacks cb;
    char *debuginfo_path;
};

msc_callsite_resolver_t *msc_callsite_open(void)
{
    msc_callsite_resolver_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->cb.find_elf = dwfl_linux_proc_find_elf;
    r->cb.find_debuginfo = dwfl_standard_find_debuginfo;
    r->cb.debuginfo_path = &r->debuginfo_path;
    r->dwfl = dwfl_begin(&r->cb);
    if (!r->dwfl) {
        free(r);
        return NULL;
    }
    dwfl_report_begin(r->dwfl);
    int rc = dwfl_linux_proc_report(r->dwfl, getpid());
    if (dwfl_report_end(r->dwfl, NULL, NULL) != 0 || rc != 0) {
        dwfl_end(r->dwfl);
        free(r);
        return NULL;
    }
    return r;
}

bool msc_callsite_resolve(msc_callsite_resolver_t *r, const void *return_address,
                          msc_frame_t *out)
{
    out->module = "?";
    out->symbol = NULL;
    out->file = NULL;
    out->line = 0;
    out->offset = (uintptr_t)return_address;
    if (!r || !return_address) return false;
    Dwarf_Addr pc = (Dwarf_Addr)(uintptr_t)return_address - 1;
    Dwfl_Module *m = dwfl_addrmodule(r->dwfl, pc);
    if (!m) return false;
    Dwarf_Addr base = 0;
    const char *name = dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    if (name) out->module = name;
    out->offset = (uintptr_t)(pc + 1 - base);
    out->symbol = dwfl_module_addrname(m, pc);
    Dwfl_Line *line = dwfl_module_getsrc(m, pc);
    if (line) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        if (file) out->file = file, out->line = lineno;
    }
    return true;
}

void msc_callsite_close(msc_callsite_resolver_t *r)
{
    if (!r) return;
    dwfl_end(r->dwfl);
    free(r);
}

void msc_callsite_backtrace(void *site, void **pcs, int depth)
{
    void *buf[64];
    int n = unw_backtrace(buf, depth + 16 < 64 ? depth + 16 : 64);
    int start = -1;
    for (int i = 0; i < n; i++)
        if (buf[i] == site) {
            start = i;
            break;
        }
    pcs[0] = site;
    for (int i = 1; i < depth; i++) pcs[i] = start >= 0 && start + i < n ? buf[start + i] : NULL;
}

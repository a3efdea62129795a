/* Private to check mode: DWARF helpers shared by globals.c and
 * stackvars.c (libdw's types, which check.h does not include). */
#ifndef MSC_CHECK_DWARF_TYPES_H
#define MSC_CHECK_DWARF_TYPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>

#include "check.h"

/* The base type behind the type `t` (typedefs, qualifiers and array
 * dimensions peeled; *t becomes it): its DW_ATE_* encoding, bytes and name.
 * False for anything else (structures, pointers, enumerations) or a type
 * without encoding or size. */
bool chk_dwarf_base_type(Dwarf_Die *t, int *enc, int *size, const char **name) CHK_INTERNAL;
/* The layout of a type whose elements are structures (a struct, an array
 * of them, typedefs of either), built once and kept; NULL for any other
 * type, or one too large or irregular to judge (layout.c). */
const chk_layout_t *chk_dwarf_layout(Dwarf_Die *type) CHK_INTERNAL;

#endif

/* Private to mpiscope. A small JSON reader for profile.json, shared by the
 * tool library and the `mpiscope` program (no MPI, no dependencies).
 *
 * The whole text is parsed into a tree of nodes allocated in one arena that
 * msc_json_free releases. Input is untrusted (`mpiscope report` reads any
 * file): nesting is bounded, strings are checked for escapes and control
 * characters, numbers go through strtod, and any error gives NULL with a
 * message naming the byte offset. Integers that fit an int64 keep their
 * exact value next to the double.
 */
#ifndef MSC_PROFILE_PJSON_H
#define MSC_PROFILE_PJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { MSC_JNULL, MSC_JBOOL, MSC_JNUM, MSC_JSTR, MSC_JARR, MSC_JOBJ } msc_jtype_t;

typedef struct msc_json {
    msc_jtype_t type;
    const char *key;        /* member name inside an object, else NULL */
    const char *str;        /* MSC_JSTR: the decoded text (NUL-terminated) */
    double num;             /* MSC_JNUM, MSC_JBOOL (0/1) */
    int64_t i;              /* MSC_JNUM: exact value when is_int */
    bool is_int;
    struct msc_json *child; /* MSC_JARR, MSC_JOBJ: first element */
    struct msc_json *next;  /* next sibling */
    size_t n;               /* MSC_JARR, MSC_JOBJ: number of children */
} msc_json_t;

typedef struct msc_json_doc msc_json_doc_t;

/* Parses `len` bytes of `text`. NULL on error, with a message in err. */
msc_json_doc_t *msc_json_parse(const char *text, size_t len, char *err, size_t errlen);

/* The whole file at `path` (malloc'd, *len its bytes), or NULL if it cannot
 * be opened or read. */
char *msc_read_file(const char *path, size_t *len);
/* The parsed file `name` of directory `dir`, or NULL if it cannot be read
 * or parsed. */
msc_json_doc_t *msc_json_load(const char *dir, const char *name);
const msc_json_t *msc_json_root(const msc_json_doc_t *d);
void msc_json_free(msc_json_doc_t *d);

/* Member `key` of an object, or NULL. */
const msc_json_t *msc_json_get(const msc_json_t *obj, const char *key);
/* Number value of member `key` (0 if absent or not a number). */
double msc_json_num(const msc_json_t *obj, const char *key);
int64_t msc_json_int(const msc_json_t *obj, const char *key);
/* String value of member `key`, or `dflt`. */
const char *msc_json_str(const msc_json_t *obj, const char *key, const char *dflt);

#endif

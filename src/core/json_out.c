/* JSON string output (json_out.h): a byte loop over the string, escaping
 * only what JSON requires, so that names, paths and descriptions from
 * anywhere (the MPI library's own strings included) stay valid JSON. */
#include "json_out.h"

void msc_json_put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Prints every setting of src/core/settings.def, one line each:
 * "<name> <type>", type one of bool int size choice list string. The
 * settings-garbage test takes its list from here, so that a new setting is
 * tested the day it is added. */
#include <stdio.h>

#include "settings.h"

int main(void)
{
    static const char *const types[] = {
        [MSC_SETTING_BOOL] = "bool",     [MSC_SETTING_INT] = "int",
        [MSC_SETTING_SIZE] = "size",     [MSC_SETTING_CHOICE] = "choice",
        [MSC_SETTING_LIST] = "list",     [MSC_SETTING_STRING] = "string",
    };
    for (int i = 0; i < MSC_SET_COUNT; i++) {
        const msc_setting_desc_t *d = msc_setting_desc((msc_setting_id_t)i);
        printf("%s %s\n", d->name, types[d->type]);
    }
    return 0;
}

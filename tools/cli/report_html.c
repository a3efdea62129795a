#include "report_cli.h"
int msc_report_html(const char *dir, const char *profile_path, const msc_json_doc_t *ws,
                    const char *out_path)
{
    (void)dir, (void)profile_path, (void)ws, (void)out_path;
    return 1;
}

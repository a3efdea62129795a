/* Fuzz target: what `mpiscope report` and `mpiscope diff` do with the files
 * of a result directory. The input is one JSON text, used as:
 *   - profile.json: the JSON reader (src/profile/pjson.c), then the text
 *     renderer (src/profile/render.c) with each sort order, and the HTML
 *     report (tools/cli/report_html.c);
 *   - waitstates.json: the wait-state text (tools/cli/waitstate_render.c)
 *     and its HTML section;
 *   - two ranks' profile.rank<R>.incomplete.json of a run cut short: the
 *     partial merge (render.c);
 *   - both sides of `mpiscope diff` (tools/cli/diff.c).
 * A text that parses but holds odd values (wrong types, negative or huge
 * numbers, missing members) must give a report or a message, never a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "pjson.h"
#include "render.h"
#include "report_cli.h"

static char dir[64], profile[128], rank0[128], rank1[128], html[128];
static FILE *devnull;

static void check(int ok)
{
    if (!ok) abort();
}

static void put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    check(f != NULL);
    check(fwrite(data, 1, size, f) == size || size == 0);
    check(fclose(f) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(dir, sizeof dir, "/tmp/mpiscope-fuzz-report-%ld", (long)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    check(system(cmd) == 0);
    snprintf(profile, sizeof profile, "%s/p/profile.json", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/p %s/partial", dir, dir);
    check(system(cmd) == 0);
    snprintf(rank0, sizeof rank0, "%s/partial/profile.rank0.incomplete.json", dir);
    snprintf(rank1, sizeof rank1, "%s/partial/profile.rank1.incomplete.json", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    devnull = fopen("/dev/null", "w");
    check(devnull != NULL);
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256] = "";
    msc_json_doc_t *doc = msc_json_parse((const char *)data, size, err, sizeof err);
    if (!doc) {
        check(*err != 0);
        return 0;
    }
    const msc_json_t *root = msc_json_root(doc);
    check(root != NULL);
    msc_render_opts_t opts = msc_render_defaults();
    for (int s = MSC_SORT_TIME; s <= MSC_SORT_NAME; s++) {
        opts.sort = (msc_sort_t)s;
        opts.limit = s == MSC_SORT_NAME ? 0 : 2;
        msc_profile_render(devnull, root, &opts);
    }
    msc_waitstates_render(devnull, root, 0);
    msc_waitstates_render(devnull, root, 1);

    put(profile, data, size);
    msc_report_html(NULL, profile, doc, html);
    msc_report_html(NULL, NULL, doc, html);
    char *diff_argv[] = {profile, profile, NULL};
    msc_cmd_diff(2, diff_argv);

    put(rank0, data, size);
    put(rank1, data, size);
    char partial[128];
    snprintf(partial, sizeof partial, "%s/partial", dir);
    msc_profile_render_partial(devnull, devnull, partial, &opts);
    msc_json_free(doc);
    return 0;
}

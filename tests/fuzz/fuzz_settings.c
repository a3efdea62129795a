/* Fuzz target: the settings parser (src/core/settings.c).
 *
 * The first byte picks what is fuzzed. Even: msc_setting_parse for the
 * setting the second byte names (ids past the table included), with the
 * rest as the value. Odd: msc_settings_load over an environment made of the
 * rest, one NAME=VALUE per line, set with setenv and passed as envp too.
 * Besides the sanitizers, each call is held to its contract: a refused
 * value gives a message naming the setting, an accepted one is kept as
 * given, and load reports exactly as many problems as it counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

enum { MAX_VARS = 64 };

static void check(int ok)
{
    if (!ok) abort();
}

static void fuzz_parse(unsigned id, const char *text)
{
    msc_setting_value_t v;
    char err[MSC_SETTING_MAX_STRING + 256] = "";
    const msc_setting_desc_t *d = msc_setting_desc((msc_setting_id_t)id);
    if (msc_setting_parse((msc_setting_id_t)id, text, &v, err, sizeof err)) {
        check(d != NULL && v.given && strcmp(v.str, text) == 0);
        if (d->type == MSC_SETTING_INT || d->type == MSC_SETTING_SIZE)
            check(v.num >= d->lo && v.num <= d->hi);
    } else {
        check(*err != 0);
        check(!d || strstr(err, d->name) != NULL);
    }
}

typedef struct {
    int calls;
} reports_t;

static void count_report(const char *message, void *arg)
{
    check(strstr(message, "MPISCOPE_") != NULL);
    ((reports_t *)arg)->calls++;
}

static void fuzz_load(char *text)
{
    static char *set_names[MAX_VARS];
    static int nset;
    for (int i = 0; i < nset; i++) {
        unsetenv(set_names[i]);
        free(set_names[i]);
    }
    nset = 0;
    for (int i = 0; i < MSC_SET_COUNT; i++) unsetenv(msc_setting_desc((msc_setting_id_t)i)->name);

    char *envp[MAX_VARS + 1];
    int n = 0;
    for (char *line = text, *next; line && n < MAX_VARS; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        envp[n++] = line;
        char *eq = strchr(line, '=');
        if (!eq || eq == line) continue;
        char *name = strndup(line, (size_t)(eq - line));
        if (!name) continue;
        if (setenv(name, eq + 1, 1) == 0)
            set_names[nset++] = name;
        else
            free(name);
    }
    envp[n] = NULL;
    static msc_settings_t s;
    reports_t r = {0};
    int problems = msc_settings_load(&s, envp, count_report, &r);
    check(problems == r.calls);
    problems = msc_settings_load(&s, envp, NULL, NULL);
    check(problems == r.calls);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    char *text = malloc(size - 1);
    if (!text) return 0;
    memcpy(text, data + 2, size - 2);
    text[size - 2] = 0;
    if (data[0] % 2 == 0)
        fuzz_parse(data[1] % (MSC_SET_COUNT + 2), text);
    else
        fuzz_load(text);
    free(text);
    return 0;
}

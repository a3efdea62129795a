/* The what-if options that `mpiscope replay` and mpiscope-analyze share:
 *   --latency L     seconds, or with a unit: 5us, 1.5ms, 0 (default 0)
 *   --bandwidth B   bytes per second, with an optional K, M or G (×1000)
 *                   or Ki, Mi, Gi (×1024) and an optional "B/s"; 0 or inf:
 *                   infinite (default)
 *   --scale S       RANKS:FACTOR (RANKS: all, 3, 0-3, 0,2,5-7) or
 *                   region:NAME:FACTOR (the user region NAME and what it
 *                   encloses); repeatable, the factors multiply
 *   --timeline 0|1  compute the HTML page's timeline too (not a what-if option)
 *   --window A:B    the timeline's exact calls in [A, B] ns after the start only
 * A bad value is an error with a message naming the option and what it
 * takes (the caller exits 2).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static int bad(char *err, size_t errlen, const char *opt, const char *val, const char *takes)
{
    snprintf(err, errlen, "%s takes %s, not '%s'", opt, takes, val);
    return -1;
}

static bool number(const char *s, double *v, char **end)
{
    errno = 0;
    *v = strtod(s, end);
    return *end != s && errno == 0 && isfinite(*v) && *v >= 0;
}

static int add_rule(msc_an_opts_t *o, msc_an_scale_t r)
{
    msc_an_scale_t *n = realloc((void *)o->scale, (o->nscale + 1) * sizeof *n);
    if (!n) return -1;
    n[o->nscale++] = r;
    o->scale = n;
    return 0;
}

int msc_an_parse_option(const char *opt, const char *val, msc_an_opts_t *o, char *err,
                        size_t errlen)
{
    double v;
    char *end;
    if (!strcmp(opt, "--latency")) {
        if (!number(val, &v, &end)) return bad(err, errlen, opt, val, "a time such as 5us, 1ms or 2e-6");
        double unit = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "ms") ? 1e-3
                    : !strcmp(end, "us") ? 1e-6 : !strcmp(end, "ns") ? 1e-9 : -1;
        if (unit < 0) return bad(err, errlen, opt, val, "a time such as 5us, 1ms or 2e-6");
        o->latency_s = v * unit;
        o->whatif = true;
        return 1;
    }
    if (!strcmp(opt, "--bandwidth")) {
        if (!strcmp(val, "inf")) {
            o->bandwidth_Bps = 0;
            o->whatif = true;
            return 1;
        }
        if (!number(val, &v, &end)) return bad(err, errlen, opt, val, "bytes per second such as 1G, 500MB/s or inf");
        double unit = 1;
        if (*end == 'K' || *end == 'M' || *end == 'G') {
            bool bin = end[1] == 'i';
            int e = *end == 'K' ? 1 : *end == 'M' ? 2 : 3;
            unit = pow(bin ? 1024.0 : 1000.0, e);
            end += bin ? 2 : 1;
        }
        if (*end && strcmp(end, "B/s") && strcmp(end, "B"))
            return bad(err, errlen, opt, val, "bytes per second such as 1G, 500MB/s or inf");
        o->bandwidth_Bps = v * unit;
        o->whatif = true;
        return 1;
    }
    if (!strcmp(opt, "--timeline")) {
        if (strcmp(val, "0") && strcmp(val, "1")) return bad(err, errlen, opt, val, "0 or 1");
        o->timeline = val[0] == '1';
        return 1;
    }
    if (!strcmp(opt, "--window")) { /* ns after the run's start: A:B, A < B */
        char *e1, *e2;
        unsigned long long a = strtoull(val, &e1, 10), b = 0;
        if (e1 == val || *e1 != ':' || val[0] == '-' || e1[1] == '-' ||
            ((b = strtoull(e1 + 1, &e2, 10)), e2 == e1 + 1 || *e2) || b <= a)
            return bad(err, errlen, opt, val, "FROM:TO in ns after the run's start, FROM < TO");
        o->window = true, o->window_from_ns = a, o->window_to_ns = b;
        return 1;
    }
    if (!strcmp(opt, "--scale")) {
        const char *takes = "RANKS:FACTOR (RANKS: all, 3, 0-3 or 0,2,5-7) or region:NAME:FACTOR";
        const char *colon = strrchr(val, ':');
        double f;
        if (!colon || !number(colon + 1, &f, &end) || *end) return bad(err, errlen, opt, val, takes);
        if (!strncmp(val, "region:", 7)) {
            size_t n = (size_t)(colon - (val + 7));
            if (!n) return bad(err, errlen, opt, val, takes);
            char *name = strndup(val + 7, n);
            if (!name || add_rule(o, (msc_an_scale_t){0, INT32_MAX, name, f}) != 0)
                return bad(err, errlen, opt, val, "memory");
        } else if (!strncmp(val, "all:", 4)) {
            if (add_rule(o, (msc_an_scale_t){0, INT32_MAX, NULL, f}) != 0)
                return bad(err, errlen, opt, val, "memory");
        } else {
            for (const char *p = val; p < colon;) {
                char *e1;
                long lo = strtol(p, &e1, 10), hi = lo;
                if (e1 == p || lo < 0) return bad(err, errlen, opt, val, takes);
                if (*e1 == '-') {
                    const char *q = e1 + 1;
                    hi = strtol(q, &e1, 10);
                    if (e1 == q || hi < lo) return bad(err, errlen, opt, val, takes);
                }
                if (e1 != colon && *e1 != ',') return bad(err, errlen, opt, val, takes);
                if (lo > INT32_MAX || hi > INT32_MAX ||
                    add_rule(o, (msc_an_scale_t){(int32_t)lo, (int32_t)hi, NULL, f}) != 0)
                    return bad(err, errlen, opt, val, takes);
                p = *e1 == ',' ? e1 + 1 : e1;
            }
        }
        o->whatif = true;
        return 1;
    }
    return 0;
}

void msc_an_opts_free(msc_an_opts_t *o)
{
    for (size_t k = 0; k < o->nscale; k++) free((void *)o->scale[k].region);
    free((void *)o->scale);
    o->scale = NULL, o->nscale = 0;
}

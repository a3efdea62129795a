/* stderr messages. A small fixed set of "once" keys is remembered in a
 * mutex-protected array; messages are formatted into one buffer and written
 * with a single write(2) so that lines from ranks and threads do not
 * interleave mid-line.
 */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int log_rank = -1;
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *once_keys[64];
static int once_count;

void msc_log_set_rank(int rank)
{
    log_rank = rank;
}

static void vwarn(const char *fmt, va_list ap)
{
    char buf[2048];
    int n = log_rank >= 0 ? snprintf(buf, sizeof buf, "mpiscope[%d]: ", log_rank)
                          : snprintf(buf, sizeof buf, "mpiscope: ");
    n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
    (void)w;
}

void msc_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarn(fmt, ap);
    va_end(ap);
}

void msc_warn_once(const char *key, const char *fmt, ...)
{
    pthread_mutex_lock(&once_lock);
    for (int i = 0; i < once_count; i++) {
        if (once_keys[i] == key || strcmp(once_keys[i], key) == 0) {
            pthread_mutex_unlock(&once_lock);
            return;
        }
    }
    if (once_count < (int)(sizeof once_keys / sizeof once_keys[0])) once_keys[once_count++] = key;
    pthread_mutex_unlock(&once_lock);
    va_list ap;
    va_start(ap, fmt);
    vwarn(fmt, ap);
    va_end(ap);
}

bool msc_log_is_speaker(void)
{
    if (log_rank >= 0) return log_rank == 0;
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v) return atoi(v) == 0;
    }
    return true;
}

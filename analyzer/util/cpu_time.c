#define _POSIX_C_SOURCE 200809L
#include "util/cpu_time.h"

#include <time.h>

double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

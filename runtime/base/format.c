#include "clparity/format.h"

#include <math.h>
#include <stdio.h>

void cp_fmt_bytes(unsigned long long b, bool small, char *buf, size_t len)
{
    if (b >= (1ULL << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (double)(1ULL << 30));
    else if (!small || b >= (1ULL << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ULL << 20));
    else if (b >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(buf, len, "%llu B", b);
}

void cp_fmt_ms(double sec, char *buf, size_t len)
{
    double ms = 1e3 * sec;
    int digits = 3;
    if (ms > 0.0 && ms < 0.1) { /* three significant digits: 0.0420 has 4 decimals */
        digits = 2 - (int)floor(log10(ms));
        digits = digits > 12 ? 12 : digits;
    }
    snprintf(buf, len, "%.*f", digits, ms);
}

void cp_fmt_secs(double sec, char *buf, size_t len)
{
    if (sec >= 0.1) {
        snprintf(buf, len, "%.3f s", sec);
        return;
    }
    char ms[32];
    cp_fmt_ms(sec, ms, sizeof ms);
    snprintf(buf, len, "%s ms", ms);
}

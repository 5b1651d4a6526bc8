/* Formatting numbers for people: shared by the device list, the memory checks and the reports,
 * so it sits below them all (base layer: no other module of the library is called from it). */
#ifndef CLPARITY_FORMAT_H
#define CLPARITY_FORMAT_H

#include "clparity/export.h"

#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

/* "1.50 GiB" at or above 1 GiB, else "12.5 MiB". With small, below 1 MiB: "3.0 KiB", and
 * below 1 KiB: "512 B". */
void cp_fmt_bytes(unsigned long long b, bool small, char *buf, size_t len);

/* A time of sec seconds in milliseconds, as every table prints one: "12.345" (three decimals)
 * from 0.1 ms up, below it at least three significant digits ("0.000420", never "0.000");
 * "0.000" for zero. The unit stays ms, so the tables' "ms" headers stay true. */
void cp_fmt_ms(double sec, char *buf, size_t len);

/* A duration for a line of text: "1.234 s" from 0.1 s up, below it cp_fmt_ms's digits in ms
 * ("0.312 ms", "0.00420 ms"), never "0.000 s". */
void cp_fmt_secs(double sec, char *buf, size_t len);

CP_API_END

#endif

/* Crossovers between two timed series over a grid (sweep's summary), kept apart from the
 * command so that a unit test can feed it made-up times. */
#ifndef CLPARITY_XOVER_H
#define CLPARITY_XOVER_H

#include <stdbool.h>
#include <stddef.h>

struct xover {
    long at, after; /* the first point of the new order, and the last common point before it */
    int faster;     /* 0: series a, 1: series b */
};

/* ta and tb are the two series' median times at npts grid points x (in grid order); a negative
 * or non-finite time means the series has no result there. noise[p] (NULL: none) says that the
 * two are within noise at point p (cp_speed_within_noise): such a point counts as a tie. Walks
 * the common points in order and records in out (room for npts) every point where the faster
 * one changes; a tie keeps the order before it. *first is the faster at the first common point
 * that is not a tie (-1: none). Returns the number of common points. */
size_t xover_find(const double *ta, const double *tb, const bool *noise, const long *x, size_t npts,
                  struct xover *out, size_t *n, int *first);

#endif

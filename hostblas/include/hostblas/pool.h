/* Internal, not installed: hostblas's thread pool outside an engine (hostblas/pool.c), shared
 * by hostblas/ (host:exact's and host:f64's training) and runtime/ (train's per-step
 * measurements) as `#include "hostblas/pool.h"`, as hostblas/cr.h is.
 *
 * host_max_threads: CLPARITY_HOST_THREADS, else the cores (at most 16). host_pool_new starts n
 * threads (fewer where the system refuses some; *out NULL where fewer than 2 are left, and for
 * n < 2), unpinned. host_pool_task runs fn(arg, p, id, n) on threads 0 to n - 1 (the caller is
 * 0; n at most the pool's) and returns when all have; with no pool or n < 2 the caller runs
 * fn(arg, NULL, 0, 1). Inside fn, host_pool_sync(p, n) is a barrier of the n. */
#ifndef CLPARITY_HOSTBLAS_POOL_H
#define CLPARITY_HOSTBLAS_POOL_H

struct host_pool;
typedef void (*pool_task_fn)(void *arg, struct host_pool *p, int id, int n);
int host_max_threads(int *n);
int host_pool_new(int n, struct host_pool **out);
int host_pool_size(const struct host_pool *p);
void host_pool_task(struct host_pool *p, int n, pool_task_fn fn, void *arg);
void host_pool_sync(struct host_pool *p, int n);
void host_pool_free(struct host_pool *p);
/* The process's shared pool (for callers in one thread, one after another): *out the pool of the
 * host's threads (at least n), NULL for n < 2 or where fewer than 2 threads start; each
 * host_pool_shared that gave a pool is matched by one host_pool_unshare. Run at most n threads
 * of it: host_pool_task(p, n, ...). */
int host_pool_shared(int n, struct host_pool **out);
void host_pool_unshare(struct host_pool *p);

#endif

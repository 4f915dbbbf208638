/* gst-cudafilters kernel library: the worker threads of the CPU backend.
 *
 * One pool for the whole process (plain C and pthreads, no GStreamer):
 * the C references split a frame into parts (bands of rows, groups of
 * channels) and cf_parallel_for () runs the parts on the calling thread and
 * on the pool's workers. Every caller shares the same workers: elements of
 * several pipelines, the batch tool's jobs, the staging copies of
 * device.h's cf_image_copy_threads ().
 *
 * The split never depends on how many threads take the parts, nor on which
 * thread takes which: a function gives the same bytes with 1, 2, 3 or all
 * the cores. Its parts are chosen from the thread count (usually one part
 * per thread), and every part writes its own output rows (or its own
 * partial result, merged exactly afterwards).
 *
 * The caller always works on its own job's parts until none is left, then
 * waits only for the parts workers already took; so a call finishes even
 * when no worker is free (or none could be made), and a part may itself
 * call cf_parallel_for () (from a worker too) without deadlock.
 */
#ifndef CF_THREADS_H
#define CF_THREADS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads (the caller and the workers) a call uses, and so the
 * most workers the pool ever has plus one. */
#define CF_PARALLEL_MAX_THREADS 256

/* The cores the process may run on (its CPU affinity), at least 1. */
int cf_parallel_cores (void);

/* The threads a call asking for @n_threads uses: 0 (or less) means all
 * the cores (cf_parallel_cores ()); at most CF_PARALLEL_MAX_THREADS. */
int cf_parallel_threads (int n_threads);

/* Runs @fn (@data, part) for each part 0 .. @n_parts - 1, at most
 * cf_parallel_threads (@n_threads) of them at once: the calling thread and
 * workers of the pool, which grows (up to CF_PARALLEL_MAX_THREADS - 1
 * workers) to serve the largest count asked for. Returns when every part is
 * done. Parts must not depend on each other's order. With 1 thread or
 * 1 part, or when no worker thread can be made, the caller runs every part
 * itself, in order. Safe from several threads at once and from inside a
 * part. */
void cf_parallel_for (int n_threads, int n_parts,
    void (*fn) (void *data, int part), void *data);

/* The first item of part @part when @n items are split into @n_parts
 * contiguous parts of sizes differing by one at most: part p covers
 * [cf_parallel_split (n, n_parts, p), cf_parallel_split (n, n_parts,
 * p + 1)). @part may be @n_parts (giving @n). */
static inline int
cf_parallel_split (int n, int n_parts, int part)
{
  return (int) ((int64_t) n * part / n_parts);
}

/* The parts to cut @n rows (or other items) into for @n_threads threads:
 * one per thread, never more than @n, at least 1. */
static inline int
cf_parallel_parts (int n_threads, int n)
{
  const int t = cf_parallel_threads (n_threads);

  return n < 1 ? 1 : t < n ? t : n;
}

#ifdef __cplusplus
}
#endif
#endif /* CF_THREADS_H */

/* Helpers shared by the benchmark programs: the result table (stdout and
 * CSV), random bytes, medians, and the pipeline runs (appsrc pushing buffers
 * from the element's proposed pool, counted at the sink). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

/* Benchmarks may exit: every CUDA call goes through this. */
#define CHECK_CUDA(call) do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, \
          cudaGetErrorName (err_), cudaGetErrorString (err_)); \
      exit (1); \
    } \
  } while (0)

#define ROW_FORMAT "%-8s %-28s %-5s %-19s %-8s %10s %10s %8s %9s  %s\n"

/* Enqueues a one-thread kernel that keeps @stream busy for @microseconds,
 * so that the host can queue a batch of timed launches behind it
 * (bench-gpu.cu). */
#ifdef __cplusplus
extern "C"
gboolean run_pipeline (const char *element, const char *out_caps,
    GstCaps * caps, gboolean use_pool, int frames, int held,
    double bytes_per_frame, GRand * rand, PipeResult * r);

/* Checks that a CUDA device works and that @element (unless NULL) exists,
 * and opens @csv_path (unless NULL) as bench_csv; FALSE, having said why on
 * stderr, otherwise. */
gboolean bench_open (const char *prog, const char *element,
    const char *csv_path);

#endif
cudaError_t bench_gpu_sleep (unsigned int microseconds, cudaStream_t stream);

extern FILE *bench_csv;         /* the CSV copy of the table, or NULL */
extern int bench_exit_status;   /* 2 once a check or a run failed */

/* Prints the table's header, and the CSV's with @meta's (name, value)
 * pairs as rows of section "meta". */
void table_header (const char *const meta[][2], guint n_meta);
/* One row; negative numbers print as "-". */
void row (const char *section, const char *name, const char *format,
    const char *size, const char *data, double median_us, double min_us,
    double gbps, double fps, const char *note);
int cmp_double (const void *a, const void *b);
void fill_random (GRand * rand, uint8_t * p, size_t n);
/* @given, else `git rev-parse --short HEAD`, else "unknown". */
gchar *git_commit (const gchar * given);

typedef struct {
  double fps, gbps;
  char note[160];
} PipeResult;

gboolean fail (PipeResult * r, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
void add_counter (GstElement * pipeline, const char *name, gint * counter);
gboolean bus_error (GstMessage * msg, PipeResult * r);
gboolean wait_count (GstBus * bus, gint * counter, gint target, PipeResult * r);
/* POOL_BUFFERS buffers from the pool the element downstream of @src
 * proposes for @caps, filled with random bytes. */
#define POOL_BUFFERS 8
gboolean pool_buffers (GstElement * src, GstCaps * caps, guint size,
    GstBuffer ** bufs, GstBufferPool ** pool, PipeResult * r);
gboolean buffer_is_pinned (GstBuffer * buf);
gboolean push_copy (GstElement * src, GstBuffer * buf, guint64 n,
    PipeResult * r);

gboolean run_pipeline (const char *element, const char *out_caps,
    GstCaps * caps, gboolean use_pool, int frames, int held,
    double bytes_per_frame, GRand * rand, PipeResult * r);

/* Checks that a CUDA device works and that @element (unless NULL) exists,
 * and opens @csv_path (unless NULL) as bench_csv; FALSE, having said why on
 * stderr, otherwise. */
gboolean bench_open (const char *prog, const char *element,
    const char *csv_path);

#endif

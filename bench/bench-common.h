/* Helpers shared by the benchmark programs: the result table (stdout and
 * CSV), random bytes, medians, the pipeline runs (appsrc pushing buffers
 * from the element's proposed pool, counted at the sink), device frame sets
 * checked against a host reference, and the PCIe ceiling. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "format.h"
#include "bench-gpu.h"

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

extern FILE *bench_csv;         /* the CSV copy of the table, or NULL */
extern int bench_exit_status;   /* 2 once a check or a run failed */
/* Set before bench_open () (a program's --cpu-only): only the CPU rows
 * run, so no CUDA device is needed; bench_start () then fills @prop with
 * "none" and leaves CUDA alone. */
extern gboolean bench_cpu_only;

/* The host CPU's model name (/proc/cpuinfo), or "unknown"; freed with
 * g_free (). */
gchar *bench_cpu_name (void);

/* Prints the table's header, and the CSV's with @meta's (name, value)
 * pairs as rows of section "meta". */
void table_header (const char *const meta[][2], guint n_meta);
/* The same for a table of another shape: ten columns printed with @format
 * (printf, ten %s), @csv_cols the CSV's header line. */
void bench_table_header (const char *format, const char *const cols[10],
    const char *csv_cols, const char *const meta[][2], guint n_meta);
/* One row of such a table: stdout, and the CSV ("-" empty there). */
void bench_table_row (const char *format, const char *const f[10]);
/* Parses the command line with @entries and GStreamer's options; FALSE
 * (and a line on stderr naming @prog) on an error. */
gboolean bench_parse_options (const char *prog, const char *description,
    const GOptionEntry * entries, int *argc, char ***argv);
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
  /* run_pipeline (): the memory of each element's output as negotiated,
   * from appsrc to the last element before fakesink (capsfilters left out),
   * e.g. "system > CUDA > system"; empty when the run stopped before */
  char memories[96];
} PipeResult;

gboolean fail (PipeResult * r, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
void add_counter (GstElement * pipeline, const char *name, gint * counter);
gboolean bus_error (GstMessage * msg, PipeResult * r);
gboolean wait_count (GstBus * bus, gint * counter, gint target, PipeResult * r);
/* POOL_BUFFERS buffers from the pool the element downstream of @src
 * proposes for @caps (a GstCudaBufferPool for CUDA memory caps). */
#define POOL_BUFFERS 8
gboolean pool_buffers (GstElement * src, GstCaps * caps, guint size,
    GstBuffer ** bufs, GstBufferPool ** pool, PipeResult * r);
gboolean buffer_is_pinned (GstBuffer * buf);
/* The caps feature of frames in CUDA memory (GStreamer's
 * GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY; the benchmarks do not link
 * gstreamer-cuda), and whether @caps (its first structure) has it. */
#define BENCH_CAPS_FEATURE_CUDA_MEMORY "memory:CUDAMemory"
gboolean caps_in_cuda_memory (const GstCaps * caps);
/* Whether @buf's first memory is GStreamer's CUDA memory. */
gboolean buffer_is_cuda (GstBuffer * buf);
gboolean push_copy (GstElement * src, GstBuffer * buf, guint64 n,
    PipeResult * r);

/* appsrc ! @element ! [@out_caps !] fakesink; @element is named "el" (the
 * counter of frames in, and where the caps and the pool come from) unless
 * it says "name=el" itself, as the first element of a chain must. The
 * elements of gst-cudafilters on CUDA offer CUDA memory first: @out_caps
 * says which memory the last one gives fakesink (which takes anything),
 * "video/x-raw" for system memory, "video/x-raw(memory:CUDAMemory)" for
 * frames that stay on the GPU. @caps in CUDA memory (@use_pool needed):
 * frames from the GstCudaBufferPool the element proposes (the note says
 * "CUDA memory"), after one frame in system memory that negotiates. */
gboolean run_pipeline (const char *element, const char *out_caps,
    GstCaps * caps, gboolean use_pool, int frames, int held,
    double bytes_per_frame, GRand * rand, PipeResult * r);

/* The stream the timed work goes on; bench_start () makes it. */
extern cudaStream_t bench_stream;

/* Selects device 0, makes bench_stream and the timing events, and prints
 * the header lines of a run of @prog (title, date, commit, device,
 * GStreamer); the date, commit (@commit_opt, else git's) and GStreamer
 * version are returned for the CSV, the device's properties in @prop. */
void bench_start (const char *prog, gboolean quick, const gchar * commit_opt,
    struct cudaDeviceProp *prop, gchar ** date, gchar ** commit,
    gchar ** gst_version);
/* Frees what bench_start () made. */
void bench_finish (void);

typedef struct {
  double median_us, min_us;
  gboolean host_bound;          /* the host did not stay ahead of the GPU */
} Timing;

/* Work i of a timed series, queued on bench_stream. */
typedef cudaError_t (*BenchLaunch) (const void *work, int i);

/* Times @iters calls of @launch one by one, an event pair around each, call
 * i on work i % @n, after @warmup untimed ones. With @queue_ahead each
 * batch is queued behind a GPU sleep, so the host's launch overhead never
 * shows as idle GPU time inside a pair (flagged if the host was not done
 * queueing when the sleep ended). */
Timing time_launches (BenchLaunch launch, const void *work, int n,
    int warmup, int iters, gboolean queue_ahead);
/* The same calls back to back: one event pair around each batch of calls
 * queued behind a GPU sleep, the time per call (bench-common.c). */
Timing time_back_to_back (BenchLaunch launch, const void *work, int n,
    int warmup, int iters);
/* "; HOST-BOUND ..." when @t is, else "". */
const char *timing_flag (Timing t);

/* Checks that a CUDA device works and that @element (unless NULL) exists,
 * and opens @csv_path (unless NULL) as bench_csv; FALSE, having said why on
 * stderr, otherwise. */
gboolean bench_open (const char *prog, const char *element,
    const char *csv_path);

/* @n frames of one format and size in one device allocation, planes
 * 256-byte aligned with dense rows; @host holds one frame with the same
 * layout (the reference's input or output). */
typedef struct {
  CfFormat format;
  int width, height, n;
  size_t offset[CF_MAX_PLANES], pitch[CF_MAX_PLANES];
  size_t stride;                /* bytes from one frame to the next */
  size_t bytes;                 /* sample bytes of a frame: what GB/s counts */
  uint8_t *d_base, *host;
} BenchFrames;

/* Lays @fs out (n = 0, nothing allocated). */
void bench_frames_layout (BenchFrames * fs, CfFormat format, int width,
    int height);
/* How many (source, destination) pairs to rotate over so that L2 cannot
 * hold them: at least 4, and together 3 times @l2_bytes. */
int bench_frames_pairs (const BenchFrames * src, const BenchFrames * dst,
    size_t l2_bytes);
/* Allocates @n zeroed device frames and the host frame. */
void bench_frames_alloc (BenchFrames * fs, int n);
void bench_frames_free (BenchFrames * fs);
/* Uploads random bytes, each frame its own; the host frame keeps the last
 * frame's. */
void bench_frames_fill_random (BenchFrames * fs, GRand * rand);
/* Frame @i of @fs, or the host frame for @i < 0. */
CfImage bench_frames_image (const BenchFrames * fs, int i);
/* Queues a device-to-device copy of @bytes from frame @i of @src to frame
 * @i of @dst on bench_stream, both moved back as needed to stay inside
 * their allocations (the memory ceiling of a kernel). */
cudaError_t bench_frames_copy (const BenchFrames * src,
    const BenchFrames * dst, int i, size_t bytes);
/* Downloads frame @i of @fs (after the work queued on bench_stream) and
 * compares the samples of its planes with the host frame: @note gets "OK"
 * or "MISMATCH: ..."; returns how many bytes differ. */
size_t bench_frames_check (const BenchFrames * fs, int i, char *note,
    size_t note_size);

/* The PCIe ceiling of a pipeline: an upload of @up bytes and a download of
 * @down bytes between pinned host memory and the device, alone and at the
 * same time on two streams (what frames in flight overlap), as rows
 * "pinned h2d @up_name", "pinned d2h @down_name" and both overlapped, of
 * @format and @size; frames/s is what the pipeline could reach if the
 * copies were all it did. Returns the median µs of the overlapped pair. */
double bench_transfers (const char *format, const char *size, size_t up,
    const char *up_name, size_t down, const char *down_name, int iters);
/* The overlapped pair alone, printing nothing: its median µs. */
double bench_overlapped_us (size_t up, size_t down, int iters);

/* Prints the "plugin:" header line of @element (its plugin's file and the
 * frames-in-flight default, which goes to @default_fif when it has one) or,
 * when there is no such element, where the plugin should be. FALSE then. */
gboolean bench_plugin_line (const char *element, guint * default_fif);

#endif

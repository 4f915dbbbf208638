/* bench-stats: how fast cudastats is, and against what.
 *
 * kernel    GPU time of one cf_stats_cuda () launch on a frame already in
 *           device memory (a CUDA event pair around each launch), random and
 *           constant frames, rotating over enough frames that L2 cannot hold
 *           them; the same for the CUB peer (cub-stats.h). Checks that the
 *           kernel equals cf_stats_cpu () and that CUB equals the kernel.
 * copy      pinned (and pageable) host<->device copies of a 4K RGBA frame.
 * pipeline  appsrc ! cudastats ! fakesink: frames/s from the first push to
 *           EOS, buffers from the element's proposed (pinned) pool or from
 *           malloc, frames-in-flight 1..4.
 * cpu       the CPU backend, and videoanalyse (gst-plugins-bad) as CPU peer.
 *
 * Run with the plugin on GST_PLUGIN_PATH; --help lists the options.
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "format.h"
#include "stats.h"
#include "cub-stats.h"
#include "ceilings.h"

#define CHECK_CUDA(call) do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, \
          cudaGetErrorName (err_), cudaGetErrorString (err_)); \
      exit (1); \
    } \
  } while (0)

#define W4K 3840
#define H4K 2160
#define BATCH 50                /* timed launches queued behind one GPU sleep */
#define SLEEP_US 10000          /* ... long enough for the host to queue them */
#define POOL_BUFFERS 8          /* K: buffers the pipelines push in turn */

static gboolean opt_quick, opt_no_pipeline, opt_no_kernel;
static gint opt_frames, opt_iters;
static gchar *opt_csv, *opt_commit;

static GOptionEntry entries[] = {
  {"quick", 0, 0, G_OPTION_ARG_NONE, &opt_quick, "Few iterations (smoke test, not for reporting)", NULL},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames, "Frames per pipeline run (default 600, --quick 40)", "N"},
  {"iterations", 0, 0, G_OPTION_ARG_INT, &opt_iters, "Timed launches per kernel row (default 200, --quick 20)", "N"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv, "Also write the rows as CSV to FILE", "FILE"},
  {"commit", 0, 0, G_OPTION_ARG_STRING, &opt_commit, "Commit to print (default: git rev-parse --short HEAD)", "REV"},
  {"no-pipeline", 0, 0, G_OPTION_ARG_NONE, &opt_no_pipeline, "Skip the GStreamer sections", NULL},
  {"no-kernel", 0, 0, G_OPTION_ARG_NONE, &opt_no_kernel, "Skip the kernel and copy sections", NULL},
  {NULL}
};

static FILE *csv;
static int exit_status;         /* 2 when a check or a run failed */
static cudaStream_t stream;
static cudaEvent_t events[2 * BATCH];

/* ---------------------------------------------------------------- rows */

static void
csv_field (const char *s, gboolean last)
{
  fputc ('"', csv);
  for (; *s; s++) {
    if (*s == '"')
      fputc ('"', csv);
    fputc (*s, csv);
  }
  fputs (last ? "\"\n" : "\",", csv);
}

/* One line of the table and of the CSV; negative numbers are left empty. */
static void
row (const char *section, const char *name, const char *format,
    const char *size, const char *data, double median_us, double min_us,
    double gbps, double fps, const char *note)
{
  const double x[4] = { median_us, min_us, gbps, fps };
  const char *f[10] = { section, name, format, size, data };
  char b[4][32];

  for (int i = 0; i < 4; i++) {
    if (x[i] < 0 || isnan (x[i]))
      strcpy (b[i], "-");
    else
      snprintf (b[i], sizeof (b[i]), "%.1f", x[i]);
    f[5 + i] = b[i];
  }
  f[9] = note;
  printf ("%-8s %-28s %-5s %-9s %-8s %10s %10s %8s %9s  %s\n", f[0], f[1],
      f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]);
  fflush (stdout);
  if (csv) {
    for (int i = 0; i < 10; i++)
      csv_field (strcmp (f[i], "-") ? f[i] : "", i == 9);
    fflush (csv);
  }
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* ------------------------------------------------------- device frames */

/* @n frames of one format in one allocation, planes 256-byte aligned with
 * dense rows; @host holds one frame with the same layout. */
typedef struct {
  CfFormat format;
  int width, height, n;
  size_t offset[CF_MAX_PLANES], pitch[CF_MAX_PLANES];
  size_t stride;                /* bytes from one frame to the next */
  size_t bytes;                 /* sample bytes of a frame: what GB/s counts */
  uint8_t *d_base, *host;
} FrameSet;

static void
frameset_init (FrameSet * fs, CfFormat format, int width, int height,
    size_t l2_bytes)
{
  memset (fs, 0, sizeof (*fs));
  fs->format = format;
  fs->width = width;
  fs->height = height;
  for (int p = 0; p < cf_format_info (format)->n_planes; p++) {
    const size_t plane = cf_plane_row_bytes (format, p, width)
        * cf_plane_height (format, p, height);
    fs->offset[p] = fs->stride;
    fs->pitch[p] = cf_plane_row_bytes (format, p, width);
    fs->bytes += plane;
    fs->stride += (plane + 255) & ~(size_t) 255;
  }
  /* at least 4 frames, and together 3 times the L2 */
  fs->n = MAX (4, (int) ((3 * l2_bytes + fs->stride - 1) / fs->stride));
  CHECK_CUDA (cudaMalloc ((void **) &fs->d_base, fs->n * fs->stride));
  fs->host = g_malloc (fs->stride);
}

/* Frame @i of @fs, or the host copy for @i < 0. */
static CfImage
frame_image (const FrameSet * fs, int i)
{
  CfImage img = { fs->format, fs->width, fs->height };
  uint8_t *base = i < 0 ? fs->host : fs->d_base + i * fs->stride;

  for (int p = 0; p < cf_format_info (fs->format)->n_planes; p++) {
    img.data[p] = base + fs->offset[p];
    img.pitch[p] = fs->pitch[p];
  }
  return img;
}

static void
fill_random (GRand * rand, uint8_t * p, size_t n)
{
  for (size_t i = 0; i < n; i += 4) {
    guint32 r = g_rand_int (rand);
    memcpy (p + i, &r, MIN (4, n - i));
  }
}

/* Uploads random frames (each its own bytes) or one solid colour to every
 * frame; the host copy is left holding the last frame. */
static void
frameset_fill (FrameSet * fs, GRand * rand, gboolean random)
{
  static const uint8_t colour[CF_MAX_CHANNELS] = { 200, 100, 50, 255 };
  const CfFormatInfo *info = cf_format_info (fs->format);

  for (int p = 0; !random && p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    const size_t n = fs->pitch[p] * cf_plane_height (fs->format, p, fs->height);
    for (size_t i = 0; i < n; i++)
      fs->host[fs->offset[p] + i] = colour[l->channel[i % l->pixel_bytes] & 3];
  }
  for (int f = 0; f < fs->n; f++) {
    if (random)
      fill_random (rand, fs->host, fs->stride);
    CHECK_CUDA (cudaMemcpy (fs->d_base + f * fs->stride, fs->host, fs->stride,
            cudaMemcpyHostToDevice));
  }
}

/* -------------------------------------------------------------- timing */

typedef struct {
  enum { WORK_KERNEL, WORK_CUB, WORK_COPY, WORK_READ, WORK_ATOMICS } what;
  FrameSet *fs;
  void *d_ws;                   /* kernel */
  CfStats *d_result;
  CubStats *cub;                /* CUB */
  unsigned int parts;
  void *dst, *src;              /* copy */
  size_t bytes;
  enum cudaMemcpyKind kind;
  unsigned int *d_sink;         /* ceilings */
} Work;

static cudaError_t
launch (Work * w, int frame)
{
  CfImage img;

  if (w->what == WORK_COPY)
    return cudaMemcpyAsync (w->dst, w->src, w->bytes, w->kind, stream);
  if (w->what == WORK_ATOMICS)
    return ceiling_atomics (cf_format_info (w->fs->format)->n_channels,
        w->bytes, w->d_sink, stream);
  img = frame_image (w->fs, frame);
  if (w->what == WORK_READ)
    return ceiling_read (&img, w->d_sink, stream);
  if (w->what == WORK_CUB)
    return cub_stats_run (w->cub, &img, w->parts, stream);
  return cf_stats_cuda (&img, w->d_ws, w->d_result, stream);
}

typedef struct {
  double median_us, min_us;
  gboolean host_bound;          /* the host did not stay ahead of the GPU */
} Timing;

/* Times @iters launches one by one, an event pair around each, launch i on
 * frame i % @n_frames. With @queue_ahead each batch is queued behind a GPU
 * sleep, so the host's launch overhead never shows as idle GPU time inside
 * a pair (flagged if the host was not done queueing when the sleep ended). */
static Timing
time_launches (Work * w, int n_frames, int warmup, int iters,
    gboolean queue_ahead)
{
  double *us = g_new (double, iters);
  Timing t = { 0 };

  for (int k = 0; k < warmup; k++)
    CHECK_CUDA (launch (w, k % n_frames));
  CHECK_CUDA (cudaStreamSynchronize (stream));
  for (int i = 0; i < iters;) {
    const int n = MIN (BATCH, iters - i);
    gint64 start;

    if (queue_ahead)
      CHECK_CUDA (bench_gpu_sleep (SLEEP_US, stream));
    start = g_get_monotonic_time ();
    for (int j = 0; j < n; j++) {
      CHECK_CUDA (cudaEventRecord (events[2 * j], stream));
      CHECK_CUDA (launch (w, (warmup + i + j) % n_frames));
      CHECK_CUDA (cudaEventRecord (events[2 * j + 1], stream));
    }
    if (queue_ahead && g_get_monotonic_time () - start > SLEEP_US * 9 / 10)
      t.host_bound = TRUE;
    CHECK_CUDA (cudaStreamSynchronize (stream));
    for (int j = 0; j < n; j++, i++) {
      float ms;
      CHECK_CUDA (cudaEventElapsedTime (&ms, events[2 * j], events[2 * j + 1]));
      us[i] = 1000.0 * ms;
    }
  }
  qsort (us, iters, sizeof (double), cmp_double);
  t.median_us = iters % 2 ? us[iters / 2] : (us[iters / 2 - 1] + us[iters / 2]) / 2;
  t.min_us = us[0];
  g_free (us);
  return t;
}

static void
timing_row (const char *section, const char *name, const FrameSet * fs,
    const char *data, Timing t, const char *note)
{
  char size[32], buf[160];

  snprintf (size, sizeof (size), "%dx%d", fs->width, fs->height);
  snprintf (buf, sizeof (buf), "%s%s", note,
      t.host_bound ? "; HOST-BOUND: launch gaps may be timed" : "");
  row (section, name, cf_format_info (fs->format)->name, size, data,
      t.median_us, t.min_us, fs->bytes / (t.median_us * 1e3), -1, buf);
}

/* ---------------------------------------------------------- the kernel */

static void
check_row (const char *what, const FrameSet * fs, const char *data,
    const CfStats * a, const CfStats * b)
{
  char size[32], why[96] = "OK";

  if (a->n_channels != b->n_channels)
    snprintf (why, sizeof (why), "MISMATCH: n_channels %u != %u",
        a->n_channels, b->n_channels);
  for (unsigned int c = 0; c < a->n_channels && !strcmp (why, "OK"); c++) {
    const char *field = a->min[c] != b->min[c] ? "min"
        : a->max[c] != b->max[c] ? "max"
        : a->count[c] != b->count[c] ? "count"
        : a->sum[c] != b->sum[c] ? "sum"
        : a->sum_sq[c] != b->sum_sq[c] ? "sum_sq"
        : memcmp (a->histogram[c], b->histogram[c],
        sizeof (a->histogram[c])) ? "histogram" : NULL;
    if (field)
      snprintf (why, sizeof (why), "MISMATCH: channel %u %s", c, field);
  }
  if (strcmp (why, "OK"))
    exit_status = 2;
  snprintf (size, sizeof (size), "%dx%d", fs->width, fs->height);
  row ("check", what, cf_format_info (fs->format)->name, size, data, -1, -1,
      -1, -1, why);
}

static void
bench_kernel_case (CfFormat format, int width, int height, size_t l2_bytes,
    GRand * rand, int iters, int warmup)
{
  static const struct {
    unsigned int parts;
    const char *name, *note;
  } cub_rows[] = {
    {CUB_STATS_ALL, "cub hist+reduce", "peer: histogram, then reduction"},
    {CUB_STATS_HISTOGRAM | CUB_STATS_DERIVE, "cub hist+derive",
        "peer: histogram, then moments from its bins"},
    {CUB_STATS_HISTOGRAM, "cub histogram only", "part of both peers"},
    {CUB_STATS_REDUCE, "cub reduce only", "per-channel min/max/sum/sum_sq"},
  };
  FrameSet fs;
  Work w = { WORK_KERNEL, &fs };
  CfStats gpu, ref;
  char note[64];

  frameset_init (&fs, format, width, height, l2_bytes);
  CHECK_CUDA (cudaMalloc (&w.d_ws, cf_stats_workspace_bytes ()));
  CHECK_CUDA (cf_stats_workspace_init (w.d_ws, stream));
  CHECK_CUDA (cudaMalloc ((void **) &w.d_result, sizeof (CfStats)));
  CHECK_CUDA (cub_stats_setup (format, width, height, &w.cub));
  CHECK_CUDA (cudaMalloc ((void **) &w.d_sink, sizeof (unsigned int)));

  for (int random = 1; random >= 0; random--) {
    const char *data = random ? "random" : "constant";
    CfImage img;

    frameset_fill (&fs, rand, random);
    /* honesty checks on the last frame, which the host copy holds */
    w.what = WORK_KERNEL;
    CHECK_CUDA (launch (&w, fs.n - 1));
    CHECK_CUDA (cudaMemcpyAsync (&gpu, w.d_result, sizeof (gpu),
            cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA (cudaStreamSynchronize (stream));
    img = frame_image (&fs, -1);
    cf_stats_cpu (&img, &ref);
    check_row ("kernel == cf_stats_cpu", &fs, data, &gpu, &ref);
    w.what = WORK_CUB;
    for (guint k = 0; k < 2; k++) {
      w.parts = cub_rows[k].parts;
      CHECK_CUDA (launch (&w, fs.n - 1));
      CHECK_CUDA (cub_stats_read (w.cub, &ref));
      snprintf (note, sizeof (note), "%s == kernel", cub_rows[k].name);
      check_row (note, &fs, data, &ref, &gpu);
    }

    w.what = WORK_KERNEL;
    snprintf (note, sizeof (note), "1 launch; %d frames rotated", fs.n);
    timing_row ("kernel", "cudastats kernel", &fs, data,
        time_launches (&w, fs.n, warmup, iters, TRUE), note);
    w.what = WORK_CUB;
    for (guint k = 0; k < G_N_ELEMENTS (cub_rows); k++) {
      w.parts = cub_rows[k].parts;
      timing_row ("peer", cub_rows[k].name, &fs, data,
          time_launches (&w, fs.n, warmup, iters, TRUE), cub_rows[k].note);
    }
    if (random) {
      /* the two limits of the kernel, in the same run */
      const CfFormatInfo *fi = cf_format_info (format);
      unsigned long long samples = 0;
      for (int p = 0; p < fi->n_planes; p++)
        samples += (unsigned long long) cf_plane_width (format, p, width) *
            cf_plane_height (format, p, height) *
            (fi->plane[p].pixel_bytes / fi->plane[p].sample_bytes);
      w.what = WORK_READ;
      timing_row ("ceiling", "read frame only", &fs, data,
          time_launches (&w, fs.n, warmup, iters, TRUE),
          "16-byte loads, checksum; no histogram");
      w.what = WORK_ATOMICS;
      w.bytes = samples;
      snprintf (note, sizeof (note), "%llu shared atomics, no loads",
          samples);
      timing_row ("ceiling", "shared atomics only", &fs, data,
          time_launches (&w, fs.n, warmup, iters, TRUE), note);
    }
  }
  cub_stats_free (w.cub);
  CHECK_CUDA (cudaFree (w.d_sink));
  CHECK_CUDA (cudaFree (w.d_result));
  CHECK_CUDA (cudaFree (w.d_ws));
  CHECK_CUDA (cudaFree (fs.d_base));
  g_free (fs.host);
}

static void
bench_copies (GRand * rand, int iters)
{
  const size_t bytes = (size_t) W4K * H4K * 4;
  FrameSet fs = { CF_FORMAT_RGBA, W4K, H4K, .bytes = bytes };
  Work w = { WORK_COPY, .bytes = bytes };
  void *pinned, *pageable = g_malloc (bytes), *dev;

  CHECK_CUDA (cudaMallocHost (&pinned, bytes));
  CHECK_CUDA (cudaMalloc (&dev, bytes));
  fill_random (rand, pinned, bytes);
  fill_random (rand, pageable, bytes);
  CHECK_CUDA (cudaMemcpy (dev, pinned, bytes, cudaMemcpyHostToDevice));
  for (int k = 0; k < 3; k++) {
    void *host = k < 2 ? pinned : pageable;

    w.kind = k == 1 ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
    w.dst = k == 1 ? host : dev;
    w.src = k == 1 ? dev : host;
    timing_row ("copy", k == 1 ? "device->host" : "host->device", &fs,
        k < 2 ? "pinned" : "malloc", time_launches (&w, 1, 2, iters, FALSE),
        "cudaMemcpyAsync of one 4K RGBA frame");
  }
  CHECK_CUDA (cudaFreeHost (pinned));
  CHECK_CUDA (cudaFree (dev));
  g_free (pageable);
}

/* ------------------------------------------------------------ pipeline */

typedef struct {
  const char *element;          /* with its properties */
  const char *format;
  gboolean pool;                /* buffers from the element's proposed pool */
  int frames, in_flight;
} PipeCase;

typedef struct {
  double fps, gbps;
  char note[128];
} PipeResult;

static gboolean fail (PipeResult * r, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* Notes the failure of a run; returns FALSE. */
static gboolean
fail (PipeResult * r, const char *fmt, ...)
{
  va_list args;

  strcpy (r->note, "FAILED: ");
  va_start (args, fmt);
  vsnprintf (r->note + 8, sizeof (r->note) - 8, fmt, args);
  va_end (args);
  exit_status = 2;
  return FALSE;
}

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer counter)
{
  g_atomic_int_inc ((gint *) counter);
  return GST_PAD_PROBE_OK;
}

static void
add_counter (GstElement * pipeline, const char *name, gint * counter)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, "sink");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, counter, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static gboolean
bus_error (GstMessage * msg, PipeResult * r)
{
  GError *err = NULL;

  gst_message_parse_error (msg, &err, NULL);
  fail (r, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return FALSE;
}

/* Waits until *@counter >= @target; FALSE on an error message or after 30 s. */
static gboolean
wait_count (GstBus * bus, gint * counter, gint target, PipeResult * r)
{
  gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
  GstMessage *msg;

  while (g_atomic_int_get (counter) < target) {
    if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)))
      return bus_error (msg, r);
    if (g_get_monotonic_time () > end)
      return fail (r, "stalled (%d of %d frames)", g_atomic_int_get (counter), target);
    g_usleep (500);
  }
  return TRUE;
}

/* Sets up and activates the pool that the element proposes for @caps (an
 * ALLOCATION query from appsrc's pad) and acquires @bufs from it. */
static gboolean
pool_buffers (GstElement * src, GstCaps * caps, guint size, GstBuffer ** bufs,
    GstBufferPool ** pool, PipeResult * r)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  GstStructure *config;
  guint pool_size = 0, min = 0, max = 0;
  gboolean ok = FALSE;

  gst_allocation_params_init (&params);
  if (!gst_pad_peer_query (pad, query) || !gst_query_get_n_allocation_pools (query))
    goto out;
  gst_query_parse_nth_allocation_pool (query, 0, pool, &pool_size, &min, &max);
  if (!*pool)
    goto out;
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  config = gst_buffer_pool_get_config (*pool);
  /* no maximum: we hold POOL_BUFFERS at once, which a small one would block */
  gst_buffer_pool_config_set_params (config, caps, MAX (pool_size, size), min, 0);
  if (allocator)
    gst_buffer_pool_config_set_allocator (config, allocator, &params);
  if (gst_buffer_pool_has_option (*pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  /* a refused config comes back amended: take that one */
  if (!gst_buffer_pool_set_config (*pool, config)
      && !gst_buffer_pool_set_config (*pool, gst_buffer_pool_get_config (*pool)))
    fail (r, "the proposed pool refused its config");
  else if (!gst_buffer_pool_set_active (*pool, TRUE))
    fail (r, "could not activate the proposed pool");
  else
    ok = TRUE;
  for (int i = 0; ok && i < POOL_BUFFERS; i++)
    if (gst_buffer_pool_acquire_buffer (*pool, &bufs[i], NULL) != GST_FLOW_OK)
      ok = fail (r, "could not acquire %d buffers from the pool", POOL_BUFFERS);
out:
  if (!*pool)
    fail (r, "the element proposed no buffer pool (ALLOCATION query)");
  if (allocator)
    gst_object_unref (allocator);
  gst_object_unref (pad);
  gst_query_unref (query);
  return ok;
}

/* Whether CUDA knows @buf's memory as page-locked host memory. */
static gboolean
buffer_is_pinned (GstBuffer * buf)
{
  struct cudaPointerAttributes attr;
  GstMapInfo map;
  gboolean pinned = FALSE;

  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    pinned = cudaPointerGetAttributes (&attr, map.data) == cudaSuccess
        && attr.type == cudaMemoryTypeHost;
    cudaGetLastError ();
    gst_buffer_unmap (buf, &map);
  }
  return pinned;
}

/* Pushes a shallow copy of @buf: the same (pinned) memory in a buffer of its
 * own, so that a PTS is never written into a buffer still in flight. */
static gboolean
push_copy (GstElement * src, GstBuffer * buf, guint64 n, PipeResult * r)
{
  GstBuffer *b = gst_buffer_copy (buf);
  GstFlowReturn ret;

  GST_BUFFER_PTS (b) = n * (GST_SECOND / 30);
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  if ((ret = gst_app_src_push_buffer (GST_APP_SRC (src), b)) != GST_FLOW_OK)
    return fail (r, "push returned %s", gst_flow_get_name (ret));
  return TRUE;
}

static gboolean
run_pipeline (const PipeCase * pc, GRand * rand, PipeResult * r)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! %s name=el ! "
      "fakesink name=sink sync=false enable-last-sample=false", pc->element);
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      pc->format, "width", G_TYPE_INT, W4K, "height", G_TYPE_INT, H4K,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  GstElement *pipeline, *src = NULL;
  GstBufferPool *pool = NULL;
  GstBuffer *bufs[POOL_BUFFERS] = { NULL };
  GstVideoInfo info;
  GstMessage *msg;
  GstBus *bus = NULL;
  GError *err = NULL;
  gint entered = 0, out = 0, out0;
  guint64 pushed = 0;
  gint64 t0, elapsed_us;
  gboolean ok = FALSE;

  r->fps = r->gbps = -1;
  r->note[0] = '\0';
  gst_video_info_from_caps (&info, caps);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (err) {
    fail (r, "%s", err->message);
    g_error_free (err);
    goto done;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  /* an unbounded queue: a push never blocks (nor hangs on an error
   * downstream) and the element never waits for input */
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, "block", FALSE,
      "max-bytes", (guint64) 0, NULL);
  add_counter (pipeline, "el", &entered);
  add_counter (pipeline, "sink", &out);
  bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fail (r, "could not start the pipeline");
    goto done;
  }

  /* one malloc'ed frame negotiates the caps: only a negotiated element
   * answers the ALLOCATION query */
  bufs[0] = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (bufs[0], 0, 0x80, info.size);
  if (!push_copy (src, bufs[0], pushed++, r) || !wait_count (bus, &entered, 1, r))
    goto done;
  gst_buffer_replace (&bufs[0], NULL);
  if (pc->pool && !pool_buffers (src, caps, info.size, bufs, &pool, r))
    goto done;
  for (int i = 0; i < POOL_BUFFERS; i++) {
    GstMapInfo map;
    if (!bufs[i])
      bufs[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (bufs[i], &map, GST_MAP_WRITE);
    fill_random (rand, map.data, map.size);
    gst_buffer_unmap (bufs[i], &map);
  }
  {
    /* what the element gets: push_copy () shares the memory, unless it is
     * marked NO_SHARE (as does the element's own gst_buffer_make_writable) */
    GstBuffer *copy = gst_buffer_copy (bufs[0]);
    snprintf (r->note, sizeof (r->note), "%s%s", buffer_is_pinned (copy) ?
        "pinned" : "not pinned", gst_buffer_peek_memory (copy, 0) ==
        gst_buffer_peek_memory (bufs[0], 0) ? "" : " (a copy re-allocates)");
    gst_buffer_unref (copy);
  }

  /* warm up; what is still in flight then comes out in the timed window,
   * which counts the frames that come out */
  for (int i = 0; i < POOL_BUFFERS; i++)
    if (!push_copy (src, bufs[i], pushed++, r))
      goto done;
  if (!wait_count (bus, &out, (gint) pushed - pc->in_flight, r))
    goto done;

  out0 = g_atomic_int_get (&out);
  t0 = g_get_monotonic_time ();
  for (int i = 0; i < pc->frames; i++)
    if (!push_copy (src, bufs[i % POOL_BUFFERS], pushed++, r))
      goto done;
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  elapsed_us = g_get_monotonic_time () - t0;
  if (!msg) {
    fail (r, "no EOS within 600 s");
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    bus_error (msg, r);
  } else {
    r->fps = (g_atomic_int_get (&out) - out0) * 1e6 / elapsed_us;
    r->gbps = r->fps * info.size / 1e9;
    gst_message_unref (msg);
    ok = TRUE;
  }

done:
  if (pipeline)
    gst_element_set_state (pipeline, GST_STATE_NULL);
  for (int i = 0; i < POOL_BUFFERS; i++)
    gst_buffer_replace (&bufs[i], NULL);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  if (bus)
    gst_object_unref (bus);
  if (src)
    gst_object_unref (src);
  if (pipeline)
    gst_object_unref (pipeline);
  gst_caps_unref (caps);
  return ok;
}

static void
pipeline_row (const char *section, const char *name, const PipeCase * pc,
    double fps, double gbps, const char *note, const char *extra)
{
  char buf[256];

  snprintf (buf, sizeof (buf), "%s%s%s; %d frames", note,
      *note && *extra ? "; " : "", extra, pc->frames);
  row (section, name, pc->format, "3840x2160", pc->pool ? "pool" : "malloc",
      -1, -1, gbps, fps, buf);
}

static void
bench_pipelines (GRand * rand, int frames, int cpu_frames)
{
  static const char *formats[] = { "RGBA", "NV12" };
  static const char *cpu_element = "cudastats backend=cpu frames-in-flight=1 post-messages=false";
  const PipeCase cpu[] = {
    {cpu_element, "RGBA", FALSE, cpu_frames, 1},
    {cpu_element, "I420", FALSE, cpu_frames, 1},
    {"videoanalyse message=false", "I420", FALSE, cpu_frames, 1},
  };
  GstElementFactory *va = gst_element_factory_find ("videoanalyse");
  char name[64], element[128], extra[64];
  PipeResult r;

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (int pool = 1; pool >= 0; pool--) {
      PipeCase pc = { element, formats[f], pool, frames, 1 };
      double fps1 = -1, best = -1, best_gbps = -1;
      int best_n = 0;

      for (int n = 1; n <= 4; n++) {
        snprintf (element, sizeof (element), "cudastats backend=cuda "
            "frames-in-flight=%d post-messages=false", n);
        pc.in_flight = n;
        run_pipeline (&pc, rand, &r);
        if (n == 1)
          fps1 = r.fps;
        if (r.fps > best) {
          best = r.fps;
          best_gbps = r.gbps;
          best_n = n;
        }
        snprintf (name, sizeof (name), "cudastats cuda fif=%d", n);
        extra[0] = '\0';
        if (fps1 > 0 && r.fps > 0)
          snprintf (extra, sizeof (extra), "x%.2f vs fif=1", r.fps / fps1);
        pipeline_row ("pipeline", name, &pc, r.fps, r.gbps, r.note, extra);
      }
      if (fps1 > 0 && best > 0) {
        snprintf (name, sizeof (name), "best: fif=%d", best_n);
        snprintf (extra, sizeof (extra), "x%.2f vs fif=1", best / fps1);
        pipeline_row ("pipeline", name, &pc, best, best_gbps, "", extra);
      }
    }
  }

  /* CPU: our CPU backend, and videoanalyse (luma mean and variance only) */
  for (guint k = 0; k < G_N_ELEMENTS (cpu); k++) {
    const char *name = k < 2 ? "cudastats cpu" : "videoanalyse (cpu peer)";
    const char *extra = k < 2 ? "" : "luma mean/variance only, no histogram";

    if (k == 2 && !va) {
      pipeline_row ("cpu", name, &cpu[k], -1, -1, "skipped: videoanalyse "
          "(gst-plugins-bad, videosignal) is not installed", "");
      continue;
    }
    run_pipeline (&cpu[k], rand, &r);
    pipeline_row ("cpu", name, &cpu[k], r.fps, r.gbps, r.note, extra);
  }
  if (va)
    gst_object_unref (va);
}

/* -------------------------------------------------------------- main */

static gchar *
git_commit (void)
{
  gchar *out = NULL, *err = NULL;
  gint status;

  if (opt_commit)
    return g_strdup (opt_commit);
  if (g_spawn_command_line_sync ("git rev-parse --short HEAD", &out, &err,
          &status, NULL) && WIFEXITED (status) && !WEXITSTATUS (status)
      && out && *g_strstrip (out))
    goto done;
  g_free (out);
  out = g_strdup ("unknown");
done:
  g_free (err);
  return out;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx;
  GError *err = NULL;
  struct cudaDeviceProp prop;
  GstElement *element = NULL;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version;
  int n_devices = 0, driver = 0, runtime = 0;
  int iters, warmup, frames;
  cudaError_t cerr;

  ctx = g_option_context_new ("- time the cudastats kernel, its CUB peer and the element");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "bench-stats: %s\n", err->message);
    return 1;
  }
  g_option_context_free (ctx);
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_frames > 0 ? opt_frames : opt_quick ? 40 : 600;

  cerr = cudaGetDeviceCount (&n_devices);
  if (cerr != cudaSuccess || n_devices == 0) {
    fprintf (stderr, "bench-stats: no usable CUDA device (%s: %s); this "
        "benchmark needs one\n", cudaGetErrorName (cerr), cudaGetErrorString (cerr));
    return 1;
  }
  if (!opt_no_pipeline && !(element = gst_element_factory_make ("cudastats", NULL))) {
    fprintf (stderr, "bench-stats: no cudastats element: put the plugin's "
        "directory on GST_PLUGIN_PATH (e.g. GST_PLUGIN_PATH=%s), or pass "
        "--no-pipeline\n", CF_PLUGIN_BUILD_DIR);
    return 1;
  }
  if (opt_csv && !(csv = fopen (opt_csv, "w"))) {
    fprintf (stderr, "bench-stats: cannot write %s\n", opt_csv);
    return 1;
  }
  CHECK_CUDA (cudaSetDevice (0));
  CHECK_CUDA (cudaGetDeviceProperties (&prop, 0));
  CHECK_CUDA (cudaDriverGetVersion (&driver));
  CHECK_CUDA (cudaRuntimeGetVersion (&runtime));
  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (int i = 0; i < 2 * BATCH; i++)
    CHECK_CUDA (cudaEventCreate (&events[i]));

  {
    GDateTime *now = g_date_time_new_now_local ();
    date = g_date_time_format (now, "%Y-%m-%d %H:%M:%S %Z");
    g_date_time_unref (now);
  }
  commit = git_commit ();
  gst_version = gst_version_string ();
  printf ("gst-cudafilters bench-stats%s\n", opt_quick ? " --quick (smoke test: do not report)" : "");
  printf ("date:      %s\ncommit:    %s\n", date, commit);
  printf ("device:    %s (sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB), driver %d, runtime %d\n",
      prop.name, prop.major, prop.minor, prop.multiProcessorCount,
      prop.l2CacheSize / 1048576.0, prop.totalGlobalMem / 1073741824.0, driver, runtime);
  printf ("gstreamer: %s\n", gst_version);
  if (element) {
    GstPlugin *plugin = gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE
        (gst_element_get_factory (element)));
    printf ("cudastats: %s\n", plugin ? gst_plugin_get_filename (plugin) : "?");
    if (plugin)
      gst_object_unref (plugin);
    gst_object_unref (element);
  }
  printf ("kernel/peer/copy: GPU time of each launch (CUDA event pair), %d timed "
      "after %d warm-up; GB/s = frame bytes / median\n"
      "pipeline/cpu: wall clock from the first push to EOS; GB/s = frames/s x frame bytes\n",
      iters, warmup);
  printf ("\n%-8s %-28s %-5s %-9s %-8s %10s %10s %8s %9s  %s\n", "section",
      "case", "fmt", "size", "data", "median_us", "min_us", "GB/s", "frames/s", "note");
  if (csv) {
    const char *meta[][2] = { {"date", date}, {"commit", commit},
      {"device", prop.name}, {"gstreamer", gst_version} };
    fputs ("section,case,format,size,data,median_us,min_us,gbps,fps,note\n", csv);
    for (guint i = 0; i < G_N_ELEMENTS (meta); i++) {
      fprintf (csv, "\"meta\",\"%s\",,,,,,,,", meta[i][0]);
      csv_field (meta[i][1], TRUE);
    }
  }

  if (!opt_no_kernel) {
    bench_kernel_case (CF_FORMAT_RGBA, 1920, 1080, prop.l2CacheSize, rand, iters, warmup);
    bench_kernel_case (CF_FORMAT_RGBA, W4K, H4K, prop.l2CacheSize, rand, iters, warmup);
    bench_kernel_case (CF_FORMAT_NV12, W4K, H4K, prop.l2CacheSize, rand, iters, warmup);
    bench_copies (rand, opt_quick ? 5 : 50);
  }
  if (!opt_no_pipeline)
    bench_pipelines (rand, frames, MAX (frames / 10, opt_quick ? 4 : 10));

  if (exit_status)
    printf ("\nbench-stats: a check or a run FAILED (see the notes)\n");
  if (csv)
    fclose (csv);
  for (int i = 0; i < 2 * BATCH; i++)
    CHECK_CUDA (cudaEventDestroy (events[i]));
  CHECK_CUDA (cudaStreamDestroy (stream));
  g_rand_free (rand);
  g_free (date);
  g_free (commit);
  g_free (gst_version);
  return exit_status;
}

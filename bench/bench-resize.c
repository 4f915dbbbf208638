/* bench-resize: how fast cudaresize is, and against what.
 *
 * kernel    GPU time of one cf_resize_cuda () call (the kernels it chooses)
 *           on frames already in device memory, 4K->1080p, 1080p->4K and
 *           1080p->720p, RGBA and NV12 (MPEG-2 chroma siting), every
 *           method; random frames, rotating over enough source/destination
 *           pairs that L2 cannot hold them. Each method is first checked
 *           equal to cf_resize_cpu (), byte for byte (check rows).
 * ceiling   per size and format: a device-to-device copy of (source +
 *           destination) / 2 bytes, which moves as many bytes as reading the
 *           source and writing the destination once: the memory floor.
 *           Where a method reads less than the whole source (nearest, and
 *           taps on pixel centres without antialiasing, as at 3x), also
 *           "d2d copy of <method>'s sectors": a copy of (the source sectors
 *           its taps take + the destination) / 2 bytes (traffic_bytes ()),
 *           which moves as many bytes as the method must: a reference for
 *           its traffic, not a strict floor (a copy reads and writes equal
 *           halves; a downscale mostly reads, and its writes can stay in
 *           L2 while it runs). Then "<method>'s traffic alone": one kernel
 *           (bench_gpu_traffic ()) that reads the input rows the taps take
 *           (16-byte loads, from the first column taken to the last) and
 *           writes the destination, with no arithmetic: what a plain
 *           streaming kernel (one block a row) takes to move those bytes
 *           once. A reference, not a lower bound over all kernels: another
 *           shape (persistent blocks, more loads in flight) may move them
 *           faster. "frame traffic alone" is the same for the whole
 *           source, every size and format.
 * pipeline  appsrc (4K RGBA) ! cudaresize ! video/x-raw (1080p, system
 *           memory) ! fakesink, buffers from the element's proposed
 *           (pinned) pool, frames-in-flight 1 and the default: frames/s
 *           from the first timed push to EOS.
 *           Beside them, the PCIe ceiling: the upload and the download alone
 *           and overlapped, from and to pinned memory.
 * cpu       the same with videoscale and with cudaresize backend=cpu, from
 *           malloc'ed buffers, each on all the cores (n-threads = CPU
 *           cores; cudaresize's 0) and on one thread (n-threads=1).
 *           --cpu-only runs these rows alone, without a CUDA device.
 *
 * Kernel rows line up with npp-resize-peer's (join on case, fmt, size).
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

#include "bench-common.h"

#include "format.h"
#include "resize.h"
#include "cub-stats.h"          /* bench_gpu_sleep () */


static gboolean opt_quick, opt_no_pipeline, opt_no_kernel, opt_cpu_only;
static gint opt_frames, opt_iters;
static gchar *opt_csv, *opt_commit, *opt_size, *opt_format;

static GOptionEntry entries[] = {
  {"quick", 0, 0, G_OPTION_ARG_NONE, &opt_quick, "Few iterations (smoke test, not for reporting)", NULL},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames, "Frames per GPU and videoscale pipeline run (default 600, --quick 40; cudaresize backend=cpu runs 1/20 of it)", "N"},
  {"iterations", 0, 0, G_OPTION_ARG_INT, &opt_iters, "Timed launches per kernel row (default 200, --quick 20)", "N"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv, "Also write the rows as CSV to FILE", "FILE"},
  {"commit", 0, 0, G_OPTION_ARG_STRING, &opt_commit, "Commit to print (default: git rev-parse --short HEAD)", "REV"},
  {"no-pipeline", 0, 0, G_OPTION_ARG_NONE, &opt_no_pipeline, "Skip the GStreamer sections", NULL},
  {"no-kernel", 0, 0, G_OPTION_ARG_NONE, &opt_no_kernel, "Skip the kernel and ceiling section", NULL},
  {"cpu-only", 0, 0, G_OPTION_ARG_NONE, &opt_cpu_only, "Only the cpu rows (videoscale, backend=cpu): no CUDA device needed", NULL},
  {"size", 0, 0, G_OPTION_ARG_STRING, &opt_size, "Only this size in the kernel section, as the rows print it (e.g. 3840x2160>1920x1080); one not in the table is timed alone", "WxH>WxH"},
  {"format", 0, 0, G_OPTION_ARG_STRING, &opt_format, "Only this format in the kernel section (RGBA, NV12, GRAY8)", "FORMAT"},
  {NULL}
};

static const char *method_names[CF_RESIZE_METHOD_COUNT] = {
  "nearest", "bilinear", "bicubic", "lanczos", "area"
};


/* ---------------------------------------------------------------- rows */
/* csv_field (), row () and cmp_double () are bench-stats.c's, with a wider
 * size column; npp-resize-peer.cu prints the same layout. */

/* -------------------------------------------------------------- timing */

typedef struct {
  enum { WORK_RESIZE, WORK_COPY, WORK_TRAFFIC } what;
  const BenchFrames *src, *dst; /* pair i: source frame i, destination i */
  const CfResizeDevicePlan *d_plan;
  void *d_ws;
  size_t copy_bytes;            /* ceiling */
  const BenchSpan *d_spans;     /* ceiling: bench_gpu_traffic ()'s */
  int n_spans;
  unsigned int *d_sink;
} Work;

static cudaError_t
launch (const void *work, int i)
{
  const Work *w = work;
  CfImage src, dst;

  if (w->what == WORK_COPY)
    return bench_frames_copy (w->src, w->dst, i, w->copy_bytes);
  if (w->what == WORK_TRAFFIC)
    return bench_gpu_traffic (w->src->d_base + i * w->src->stride,
        w->dst->d_base + i * w->dst->stride, w->d_spans, w->n_spans,
        w->d_sink, bench_stream);
  src = bench_frames_image (w->src, i);
  dst = bench_frames_image (w->dst, i);
  return cf_resize_cuda (w->d_plan, &src, &dst, w->d_ws, bench_stream);
}

/* ------------------------------------------------------------ kernel */

static void
timing_row (const char *section, const char *name, const Work * w,
    const char *size, Timing t, const char *note)
{
  char buf[192];

  snprintf (buf, sizeof (buf), "%s%s", note, timing_flag (t));
  row (section, name, cf_format_info (w->src->format)->name, size, "random",
      t.median_us, t.min_us,
      (w->src->bytes + w->dst->bytes) / (t.median_us * 1e3), -1, buf);
}

/* A method's name in the tables: "bilinear", or "bilinear aa-off" for
 * antialias off. */
static const char *
method_label (const CfResizePlan * plan, char *buf, size_t n)
{
  snprintf (buf, n, "%s%s", method_names[plan->method],
      plan->antialias ? "" : " aa-off");
  return buf;
}

/* Marks in @col and @row the input columns and rows of plane @p of @src
 * that some non-zero weight of @plan takes, all of them for @plan NULL
 * (g_free () both). */
static void
taken (const CfResizePlan * plan, const BenchFrames * src, int p,
    uint8_t ** col, uint8_t ** row)
{
  const int in_w = cf_plane_width (src->format, p, src->width);
  const int in_h = cf_plane_height (src->format, p, src->height);

  *col = g_malloc0 (in_w);
  *row = g_malloc0 (in_h);
  if (!plan) {
    memset (*col, 1, in_w);
    memset (*row, 1, in_h);
    return;
  }
  const CfResizeAxis *ax = &plan->x[p], *ay = &plan->y[p];

  for (int i = 0; i < ax->out_size; i++)
    for (int t = 0; t < ax->taps; t++)
      if (ax->weights[(size_t) i * ax->taps + t])
        (*col)[ax->first[i] + t] = 1;
  for (int i = 0; i < ay->out_size; i++)
    for (int t = 0; t < ay->taps; t++)
      if (ay->weights[(size_t) i * ay->taps + t])
        (*row)[ay->first[i] + t] = 1;
}

/* The bytes @plan's scaling must move at the least: every 32-byte
 * sector of @src (laid out as bench_frames_layout () does) that holds a
 * sample some non-zero weight takes, and the whole destination. */
static size_t
traffic_bytes (const CfResizePlan * plan, const BenchFrames * src,
    const BenchFrames * dst)
{
  const CfFormatInfo *info = cf_format_info (plan->format);
  const size_t n_sectors = (src->stride + 31) / 32;
  uint8_t *sector = g_malloc0 (n_sectors);
  size_t total = 0;

  for (int p = 0; p < info->n_planes; p++) {
    const int pb = info->plane[p].pixel_bytes;
    uint8_t *col, *row;

    taken (plan, src, p, &col, &row);
    for (int y = 0; y < plan->y[p].in_size; y++)
      for (int x = 0; row[y] && x < plan->x[p].in_size; x++)
        if (col[x])
          for (int b = 0; b < pb; b++)
            sector[(src->offset[p] + y * src->pitch[p] + (size_t) x * pb + b)
                / 32] = 1;
    g_free (col);
    g_free (row);
  }
  for (size_t k = 0; k < n_sectors; k++)
    total += 32 * sector[k];
  g_free (sector);
  return MIN (total, src->bytes) + dst->bytes;
}

/* The spans bench_gpu_traffic () moves for @plan: of each input row some
 * weight takes, the 16-byte vectors from its first column taken to its
 * last; every destination row; the reads and writes interleaved in the
 * order a kernel going down the picture would move them. NULL where a
 * plane's rows do not start on 16 bytes. @read_bytes: what the reads
 * cover, first to last column taken rounded out to 16 bytes in each row
 * taken: up to 16 bytes less than traffic_bytes ()'s sectors at each end
 * of a row, more where whole sectors between are not taken. @plan NULL:
 * every input row, whole. */
static BenchSpan *
traffic_spans (const CfResizePlan * plan, const BenchFrames * src,
    const BenchFrames * dst, int *n_spans, size_t *read_bytes)
{
  const CfFormatInfo *info = cf_format_info (src->format);
  GArray *reads = g_array_new (FALSE, FALSE, sizeof (BenchSpan));
  GArray *writes = g_array_new (FALSE, FALSE, sizeof (BenchSpan));
  BenchSpan *spans = NULL;

  *read_bytes = 0;
  for (int p = 0; p < info->n_planes; p++) {
    const int pb = info->plane[p].pixel_bytes;
    const int in_w = cf_plane_width (src->format, p, src->width);
    const int in_h = cf_plane_height (src->format, p, src->height);
    const int out_h = cf_plane_height (dst->format, p, dst->height);
    const size_t out_row = (size_t) cf_plane_width (dst->format, p,
        dst->width) * pb;
    uint8_t *col, *row;
    int lo = -1, hi = -1;

    if ((src->offset[p] | src->pitch[p] | dst->offset[p] | dst->pitch[p]) % 16)
      goto out;
    taken (plan, src, p, &col, &row);
    for (int x = 0; x < in_w; x++)
      if (col[x]) {
        lo = lo < 0 ? x : lo;
        hi = x;
      }
    for (int y = 0; lo >= 0 && y < in_h; y++)
      if (row[y]) {
        const size_t a = ((size_t) lo * pb) & ~(size_t) 15;
        const size_t b = ((size_t) (hi + 1) * pb + 15) & ~(size_t) 15;
        const BenchSpan sp = { src->offset[p] + y * src->pitch[p] + a,
          (uint32_t) ((b - a) / 16), 0 };
        g_array_append_val (reads, sp);
        *read_bytes += b - a;
      }
    for (int y = 0; y < out_h; y++) {
      const BenchSpan sp = { dst->offset[p] + y * dst->pitch[p],
        (uint32_t) ((out_row + 15) / 16), 1 };
      g_array_append_val (writes, sp);
    }
    g_free (col);
    g_free (row);
  }
  /* merged by their place in the frame: read i of n at i / n */
  *n_spans = reads->len + writes->len;
  spans = g_new (BenchSpan, *n_spans);
  for (guint i = 0, j = 0, k = 0; k < (guint) * n_spans; k++) {
    const gboolean read = j == writes->len || (i < reads->len &&
        (guint64) i * writes->len <= (guint64) j * reads->len);
    spans[k] = read ? g_array_index (reads, BenchSpan, i++) :
        g_array_index (writes, BenchSpan, j++);
  }
out:
  g_array_free (reads, TRUE);
  g_array_free (writes, TRUE);
  return spans;
}

/* A ceiling row: bench_gpu_traffic () of traffic_spans (@plan) on @w's
 * frames (nothing where a plane's rows do not start on 16 bytes). */
static void
traffic_row (const CfResizePlan * plan, const Work * w, const char *name,
    const char *size, int n, int warmup, int iters)
{
  Work c = *w;
  size_t read_bytes, sb;
  BenchSpan *spans = traffic_spans (plan, w->src, w->dst, &c.n_spans,
      &read_bytes);
  char note[192];

  if (!spans)
    return;
  sb = c.n_spans * sizeof (BenchSpan);
  c.what = WORK_TRAFFIC;
  CHECK_CUDA (cudaMalloc ((void **) &c.d_spans, sb));
  CHECK_CUDA (cudaMalloc ((void **) &c.d_sink, sizeof (unsigned int)));
  CHECK_CUDA (cudaMemcpy ((void *) c.d_spans, spans, sb,
          cudaMemcpyHostToDevice));
  snprintf (note, sizeof (note), "one kernel: reads %.1f MB (%s, 16-byte "
      "loads), writes the %.1f MB destination; %d pairs rotated",
      read_bytes / 1e6, plan ? "the input rows its taps take" : "the source",
      w->dst->bytes / 1e6, n);
  timing_row ("ceiling", name, &c, size,
      time_launches (launch, &c, n, warmup, iters, TRUE), note);
  CHECK_CUDA (cudaFree ((void *) c.d_spans));
  CHECK_CUDA (cudaFree (c.d_sink));
  g_free (spans);
}

/* Scales the last pair on the GPU and compares the destination, byte for
 * byte, with cf_resize_cpu () of the source's host copy. */
static void
check_method (const CfResizePlan * plan, const char *name, const Work * w,
    const char *size)
{
  const BenchFrames *dst = w->dst;
  const int last = dst->n - 1;
  CfImage s = bench_frames_image (w->src, -1), r = bench_frames_image (dst, -1);
  char note[128];

  CHECK_CUDA (launch (w, last));
  memset (dst->host, 0, dst->stride);
  if (cf_resize_cpu (plan, &s, &r) != 0)
    snprintf (note, sizeof (note), "MISMATCH: cf_resize_cpu () failed");
  else
    bench_frames_check (dst, last, note, sizeof (note));
  if (strcmp (note, "OK"))
    bench_exit_status = 2;
  row ("check", name,
      cf_format_info (dst->format)->name, size, "random", -1, -1, -1, -1,
      note);
}

static void
bench_kernel_case (CfFormat format, int in_w, int in_h, int out_w, int out_h,
    size_t l2_bytes, GRand * rand, int iters, int warmup)
{
  BenchFrames src, dst;
  Work w = { WORK_RESIZE, &src, &dst };
  char size[40], note[160];
  int n;

  snprintf (size, sizeof (size), "%dx%d>%dx%d", in_w, in_h, out_w, out_h);
  /* --format (--size chose the sizes, main ()) */
  if (opt_format &&
      g_ascii_strcasecmp (opt_format, cf_format_info (format)->name) != 0)
    return;
  bench_frames_layout (&src, format, in_w, in_h);
  bench_frames_layout (&dst, format, out_w, out_h);
  n = bench_frames_pairs (&src, &dst, l2_bytes);
  bench_frames_alloc (&src, n);
  bench_frames_alloc (&dst, n);
  bench_frames_fill_random (&src, rand);

  /* every method antialiased, then those antialiasing changes without it
   * (NPP's filters: their own support at any scale) */
  for (int i = 0; i < 2 * CF_RESIZE_METHOD_COUNT; i++) {
    const int m = i % CF_RESIZE_METHOD_COUNT;
    const int antialias = i < CF_RESIZE_METHOD_COUNT;
    CfResizePlan plan;
    CfResizeDevicePlan *d_plan = NULL;
    char label[48];
    int direct_plane = -1;      /* the first plane AUTO scales directly */
    size_t ws;

    if (!antialias && (m == CF_RESIZE_NEAREST || m == CF_RESIZE_AREA))
      continue;
    if (cf_resize_plan_init (&plan, format, m, antialias, in_w, in_h, out_w,
            out_h, TRUE, FALSE) != 0) {
      fprintf (stderr, "bench-resize: no %s plan for %s %s\n",
          method_names[m], cf_format_info (format)->name, size);
      exit (1);
    }
    /* the kernels AUTO takes, then, where it takes the direct kernel for
     * a plane, the one it replaced (rows named after that plane's kernel,
     * "bilinear (fused)") */
    for (int k = 0; k < 2; k++) {
      const CfResizeKernels kernels = k ? CF_RESIZE_KERNELS_FUSED :
          CF_RESIZE_KERNELS_AUTO;
      char name[64];

      CHECK_CUDA (cf_resize_device_plan_new (&plan, kernels, &d_plan));
      if (k && direct_plane >= 0) {
        snprintf (name, sizeof (name), "%s (%s)",
            method_label (&plan, label, sizeof (label)),
            cf_resize_device_plan_describe (d_plan, direct_plane));
      } else if (k) {
        cf_resize_device_plan_free (d_plan);
        break;
      } else {
        const int n_planes = cf_format_info (format)->n_planes;

        method_label (&plan, name, sizeof (name));
        for (int p = n_planes - 1; p >= 0; p--)
          if (strncmp (cf_resize_device_plan_describe (d_plan, p),
                  "direct", 6) == 0)
            direct_plane = p;
      }
      ws = cf_resize_device_plan_workspace_bytes (d_plan);
      w.d_ws = NULL;
      if (ws)
        CHECK_CUDA (cudaMalloc (&w.d_ws, ws));
      w.d_plan = d_plan;
      check_method (&plan, name, &w, size);
      snprintf (note, sizeof (note), "%s; taps x %d, y %d; workspace %.1f MB; "
          "%d pairs rotated", cf_resize_device_plan_describe (d_plan, 0),
          plan.x[0].taps, plan.y[0].taps, ws / 1e6, n);
      timing_row ("kernel", name, &w, size,
          time_launches (launch, &w, n, warmup, iters, TRUE), note);
      if (w.d_ws)
        CHECK_CUDA (cudaFree (w.d_ws));
      cf_resize_device_plan_free (d_plan);
    }
    /* the method's own traffic, where it reads less than the source */
    const size_t traffic = traffic_bytes (&plan, &src, &dst);
    if (traffic < src.bytes + dst.bytes) {
      Work c = w;
      char name[80];

      c.what = WORK_COPY;
      c.copy_bytes = traffic / 2;
      snprintf (name, sizeof (name), "d2d copy of %s's sectors",
          method_label (&plan, label, sizeof (label)));
      snprintf (note, sizeof (note), "cudaMemcpyAsync D2D of %.1f MB = "
          "(the source sectors its taps take, %.1f MB, + the destination) "
          "/ 2; %d pairs rotated", c.copy_bytes / 1e6,
          (traffic - dst.bytes) / 1e6, n);
      timing_row ("ceiling", name, &c, size,
          time_launches (launch, &c, n, warmup, iters, TRUE), note);
      snprintf (name, sizeof (name), "%s's traffic alone",
          method_label (&plan, label, sizeof (label)));
      traffic_row (&plan, &w, name, size, n, warmup, iters);
    }
    cf_resize_plan_clear (&plan);
  }

  traffic_row (NULL, &w, "frame traffic alone", size, n, warmup, iters);
  w.what = WORK_COPY;
  w.copy_bytes = (src.bytes + dst.bytes) / 2;
  snprintf (note, sizeof (note), "cudaMemcpyAsync D2D of (src+dst)/2 = "
      "%.1f MB; %d pairs rotated", w.copy_bytes / 1e6, n);
  timing_row ("ceiling", "d2d copy", &w, size,
      time_launches (launch, &w, n, warmup, iters, TRUE), note);
  bench_frames_free (&src);
  bench_frames_free (&dst);
}

/* ------------------------------------------------------------ pipeline */
typedef struct {
  gchar *element;               /* with its properties */
  gboolean pool;                /* buffers from the element's proposed pool */
  int frames, in_flight;
} PipeCase;

#define IN_W 3840
#define IN_H 2160
#define OUT_W 1920
#define OUT_H 1080

static gboolean
run_case (const PipeCase * pc, GRand * rand, PipeResult * r)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", "width", G_TYPE_INT, IN_W, "height", G_TYPE_INT, IN_H,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  /* no caps feature: system memory out, which the PCIe ceiling assumes */
  gchar *out_caps = g_strdup_printf ("video/x-raw,width=%d,height=%d", OUT_W,
      OUT_H);
  gboolean ok = run_pipeline (pc->element, out_caps, caps, pc->pool,
      pc->frames, pc->in_flight, (double) (IN_W * IN_H + OUT_W * OUT_H) * 4,
      rand, r);

  g_free (out_caps);
  gst_caps_unref (caps);
  return ok;
}

/* Per method: cudaresize on CUDA at frames-in-flight 1 and at the default,
 * from its pinned pool (not with --cpu-only); videoscale and the CPU
 * backend on every core, then on one thread. */
static void
bench_pipelines (GRand * rand, int frames, int cpu_frames, guint default_fif)
{
  static const char *methods[] = { "bilinear", "lanczos" };
  const guint cores = g_get_num_processors ();
  GstElementFactory *vs = gst_element_factory_find ("videoscale");
  char size[40], name[64], note[320];

  snprintf (size, sizeof (size), "%dx%d>%dx%d", IN_W, IN_H, OUT_W, OUT_H);
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
    for (int k = opt_cpu_only ? 2 : 0; k < 6; k++) {
      /* k 2, 3: every core; 4, 5: one thread */
      const guint threads = k < 4 ? cores : 1;
      const gboolean ours = k == 3 || k == 5;
      PipeCase pc = { NULL, k < 2, ours ? cpu_frames : frames,
        k == 1 ? (int) default_fif : 1 };
      PipeResult r;

      if (k < 2) {
        pc.element = g_strdup_printf ("cudaresize method=%s backend=cuda "
            "frames-in-flight=%d", methods[m], pc.in_flight);
        snprintf (name, sizeof (name), "cudaresize %s fif=%d%s", methods[m],
            pc.in_flight, k ? "*" : "");
      } else if (!ours) {
        pc.element = g_strdup_printf ("videoscale method=%s n-threads=%u",
            methods[m], threads);
        snprintf (name, sizeof (name), "videoscale %s x%u", methods[m],
            threads);
      } else {
        pc.element = g_strdup_printf ("cudaresize method=%s backend=cpu "
            "n-threads=%u", methods[m], threads);
        snprintf (name, sizeof (name), "cudaresize cpu %s x%u", methods[m],
            threads);
      }
      if (k >= 2 && !ours && !vs) {
        row ("cpu", name, "RGBA", size, "malloc", -1, -1, -1, -1,
            "skipped: videoscale (gst-plugins-base) is not installed");
      } else {
        run_case (&pc, rand, &r);
        snprintf (note, sizeof (note), "%s; %s%s; %d frames", r.note,
            pc.element, k == 1 ? " (* the default)" : k < 2 || ours ? "" :
            m ? " (envelope 2: Lanczos-2)" : " (2 taps: no widening)",
            pc.frames);
        row (k < 2 ? "pipeline" : "cpu", name, "RGBA", size,
            pc.pool ? "pool" : "malloc", -1, -1, r.gbps, r.fps, note);
      }
      g_free (pc.element);
    }
  }
  if (vs)
    gst_object_unref (vs);
}

/* -------------------------------------------------------------- main */

int
main (int argc, char **argv)
{
  typedef struct {
    int in_w, in_h, out_w, out_h;
  } Size;
  static const Size sizes[] = {
    {3840, 2160, 1920, 1080}, {1920, 1080, 3840, 2160}, {1920, 1080, 1280, 720},
    {3840, 2160, 1280, 720},
  };
  Size custom;
  const Size *size_list = sizes;
  guint n_sizes = G_N_ELEMENTS (sizes);
  /* RGBA: the peers' format; NV12: its luma (1-byte pixels) and chroma
   * pairs; GRAY8: the luma alone */
  static const CfFormat formats[] = { CF_FORMAT_RGBA, CF_FORMAT_NV12,
    CF_FORMAT_GRAY8
  };
  struct cudaDeviceProp prop;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version, *cores;
  int iters, warmup, frames;
  guint default_fif = 2;

  if (!bench_parse_options ("bench-resize", "- time the cudaresize kernel, its memory "
      "ceiling, the element and videoscale", entries, &argc, &argv))
    return 1;
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_frames > 0 ? opt_frames : opt_quick ? 40 : 600;
  if (opt_size) {
    int d[4] = { 0, 0, 0, 0 };
    char end, canon[64];

    /* as the rows print it, each side 1 to 16384 */
    if (sscanf (opt_size, "%5dx%5d>%5dx%5d%c", &d[0], &d[1], &d[2], &d[3],
            &end) == 4)
      snprintf (canon, sizeof (canon), "%dx%d>%dx%d", d[0], d[1], d[2],
          d[3]);
    else
      canon[0] = '\0';
    if (strcmp (canon, opt_size) != 0 || d[0] < 1 || d[1] < 1 || d[2] < 1
        || d[3] < 1 || d[0] > 16384 || d[1] > 16384 || d[2] > 16384 ||
        d[3] > 16384) {
      fprintf (stderr, "bench-resize: --size %s is not WxH>WxH, each 1 to "
          "16384 without signs, spaces or leading zeros\n", opt_size);
      return 1;
    }
    /* that size alone, in the table or not */
    custom.in_w = d[0];
    custom.in_h = d[1];
    custom.out_w = d[2];
    custom.out_h = d[3];
    size_list = &custom;
    n_sizes = 1;
  }

  bench_cpu_only = opt_cpu_only;
  if (!bench_open ("bench-resize", opt_no_pipeline ? NULL : "cudaresize", opt_csv))
    return 1;
  bench_start ("bench-resize", opt_quick, opt_commit, &prop, &date, &commit,
      &gst_version);
  cores = g_strdup_printf ("%u", g_get_num_processors ());
  printf ("cpu cores: %s\n", cores);
  if (!opt_no_pipeline)
    bench_plugin_line ("cudaresize", &default_fif);
  printf ("kernel/ceiling: GPU time of each call (CUDA event pair), %d timed "
      "after %d warm-up; GB/s = (source + destination bytes) / median\n"
      "pipeline/cpu: 4K RGBA in, 1080p out; wall clock from the first timed "
      "push to EOS; GB/s = frames/s x (input + output frame bytes)\n",
      iters, warmup);
  {
    const char *const meta[][2] = { {"date", date}, {"commit", commit},
      {"device", prop.name}, {"gstreamer", gst_version}, {"cpu_cores", cores} };
    table_header (meta, G_N_ELEMENTS (meta));
  }

  if (!opt_no_kernel && !opt_cpu_only)
    for (guint s = 0; s < n_sizes; s++)
      for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
        bench_kernel_case (formats[f], size_list[s].in_w, size_list[s].in_h,
            size_list[s].out_w, size_list[s].out_h, prop.l2CacheSize, rand,
            iters, warmup);
  if (!opt_no_pipeline) {
    char size[40];

    snprintf (size, sizeof (size), "%dx%d>%dx%d", IN_W, IN_H, OUT_W, OUT_H);
    if (!opt_cpu_only)
      bench_transfers ("RGBA", size, (size_t) IN_W * IN_H * 4, "4K",
          (size_t) OUT_W * OUT_H * 4, "1080p", MAX (iters / 4, 10));
    bench_pipelines (rand, frames, MAX (frames / 20, opt_quick ? 3 : 10),
        default_fif);
  }

  if (bench_exit_status)
    printf ("\nbench-resize: a check or a run FAILED (see the notes)\n");
  if (bench_csv)
    fclose (bench_csv);
  bench_finish ();
  /* the strings go with the process */
  g_rand_free (rand);
  return bench_exit_status;
}

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
 * pipeline  appsrc (4K RGBA) ! cudaresize ! 1080p ! fakesink, buffers from
 *           the element's proposed (pinned) pool, frames-in-flight 1 and
 *           the default: frames/s from the first timed push to EOS.
 *           Beside them, the PCIe ceiling: the upload and the download alone
 *           and overlapped, from and to pinned memory.
 * cpu       the same with videoscale (n-threads = CPU cores) and with
 *           cudaresize backend=cpu, from malloc'ed buffers.
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


static gboolean opt_quick, opt_no_pipeline, opt_no_kernel;
static gint opt_frames, opt_iters;
static gchar *opt_csv, *opt_commit;

static GOptionEntry entries[] = {
  {"quick", 0, 0, G_OPTION_ARG_NONE, &opt_quick, "Few iterations (smoke test, not for reporting)", NULL},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames, "Frames per GPU and videoscale pipeline run (default 600, --quick 40; cudaresize backend=cpu runs 1/20 of it)", "N"},
  {"iterations", 0, 0, G_OPTION_ARG_INT, &opt_iters, "Timed launches per kernel row (default 200, --quick 20)", "N"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv, "Also write the rows as CSV to FILE", "FILE"},
  {"commit", 0, 0, G_OPTION_ARG_STRING, &opt_commit, "Commit to print (default: git rev-parse --short HEAD)", "REV"},
  {"no-pipeline", 0, 0, G_OPTION_ARG_NONE, &opt_no_pipeline, "Skip the GStreamer sections", NULL},
  {"no-kernel", 0, 0, G_OPTION_ARG_NONE, &opt_no_kernel, "Skip the kernel and ceiling section", NULL},
  {NULL}
};

static const char *method_names[CF_RESIZE_METHOD_COUNT] = {
  "nearest", "bilinear", "bicubic", "lanczos", "area"
};


/* ---------------------------------------------------------------- rows */
/* csv_field (), row () and cmp_double () are bench-stats.c's, with a wider
 * size column; npp-resize-peer.cu prints the same layout. */

/* ------------------------------------------------------- device frames */

/* @n frames of one format and size in one allocation, planes 256-byte
 * aligned with dense rows; @host holds one frame with the same layout. */
typedef struct {
  CfFormat format;
  int width, height, n;
  size_t offset[CF_MAX_PLANES], pitch[CF_MAX_PLANES];
  size_t stride;                /* bytes from one frame to the next */
  size_t bytes;                 /* sample bytes of a frame: what GB/s counts */
  uint8_t *d_base, *host;
} FrameSet;

/* Lays @fs out; the caller allocates it once it knows n. */
static void
frameset_layout (FrameSet * fs, CfFormat format, int width, int height)
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

/* -------------------------------------------------------------- timing */

typedef struct {
  enum { WORK_RESIZE, WORK_COPY } what;
  const FrameSet *src, *dst;    /* pair i: source frame i, destination i */
  const CfResizeDevicePlan *d_plan;
  void *d_ws;
  size_t copy_bytes;            /* ceiling */
} Work;

static cudaError_t
launch (const void *work, int i)
{
  const Work *w = work;
  CfImage src, dst;

  if (w->what == WORK_COPY) {
    /* from pair i's start, kept inside the allocations */
    const size_t s = MIN (i * w->src->stride,
        w->src->n * w->src->stride - w->copy_bytes);
    const size_t d = MIN (i * w->dst->stride,
        w->dst->n * w->dst->stride - w->copy_bytes);
    return cudaMemcpyAsync (w->dst->d_base + d, w->src->d_base + s,
        w->copy_bytes, cudaMemcpyDeviceToDevice, bench_stream);
  }
  src = frame_image (w->src, i);
  dst = frame_image (w->dst, i);
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

/* Scales the last pair on the GPU and compares the destination, byte for
 * byte, with cf_resize_cpu () of the source's host copy. */
static void
check_method (const CfResizePlan * plan, const Work * w, const char *size)
{
  const FrameSet *dst = w->dst;
  const int last = dst->n - 1;
  uint8_t *gpu = g_malloc (dst->stride);
  CfImage s = frame_image (w->src, -1), r = frame_image (dst, -1);
  size_t bad = 0, first = 0;
  char note[128] = "OK";

  CHECK_CUDA (launch (w, last));
  CHECK_CUDA (cudaMemcpyAsync (gpu, dst->d_base + last * dst->stride,
          dst->stride, cudaMemcpyDeviceToHost, bench_stream));
  CHECK_CUDA (cudaStreamSynchronize (bench_stream));
  memset (dst->host, 0, dst->stride);
  if (cf_resize_cpu (plan, &s, &r) != 0)
    snprintf (note, sizeof (note), "MISMATCH: cf_resize_cpu () failed");
  for (int p = 0; !strcmp (note, "OK") && p < CF_MAX_PLANES && r.data[p]; p++)
    for (size_t k = dst->offset[p], e = k + dst->pitch[p] *
        cf_plane_height (dst->format, p, dst->height); k < e; k++)
      if (gpu[k] != dst->host[k] && !bad++)
        first = k;
  if (bad)
    snprintf (note, sizeof (note), "MISMATCH: %zu bytes differ, the first "
        "%zu bytes into the frame", bad, first);
  if (strcmp (note, "OK"))
    bench_exit_status = 2;
  row ("check", method_names[plan->method], cf_format_info (dst->format)->name,
      size, "random", -1, -1, -1, -1, note);
  g_free (gpu);
}

static void
bench_kernel_case (CfFormat format, int in_w, int in_h, int out_w, int out_h,
    size_t l2_bytes, GRand * rand, int iters, int warmup)
{
  FrameSet src, dst;
  Work w = { WORK_RESIZE, &src, &dst };
  char size[40], note[160];
  int n;

  snprintf (size, sizeof (size), "%dx%d>%dx%d", in_w, in_h, out_w, out_h);
  frameset_layout (&src, format, in_w, in_h);
  frameset_layout (&dst, format, out_w, out_h);
  /* at least 4 pairs, and together 3 times the L2 */
  n = src.n = dst.n = MAX (4, (int) ((3 * l2_bytes + src.stride + dst.stride
              - 1) / (src.stride + dst.stride)));
  CHECK_CUDA (cudaMalloc ((void **) &src.d_base, n * src.stride));
  CHECK_CUDA (cudaMalloc ((void **) &dst.d_base, n * dst.stride));
  CHECK_CUDA (cudaMemset (dst.d_base, 0, n * dst.stride));
  src.host = g_malloc (src.stride);
  dst.host = g_malloc (dst.stride);
  /* each source its own bytes; the host copy keeps the last one's */
  for (int f = 0; f < n; f++) {
    fill_random (rand, src.host, src.stride);
    CHECK_CUDA (cudaMemcpy (src.d_base + f * src.stride, src.host, src.stride,
            cudaMemcpyHostToDevice));
  }

  for (int m = 0; m < CF_RESIZE_METHOD_COUNT; m++) {
    CfResizePlan plan;
    CfResizeDevicePlan *d_plan = NULL;
    size_t ws;

    if (cf_resize_plan_init (&plan, format, m, in_w, in_h, out_w, out_h,
            TRUE, FALSE) != 0) {
      fprintf (stderr, "bench-resize: no %s plan for %s %s\n",
          method_names[m], cf_format_info (format)->name, size);
      exit (1);
    }
    CHECK_CUDA (cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_AUTO,
            &d_plan));
    ws = cf_resize_device_plan_workspace_bytes (d_plan);
    w.d_ws = NULL;
    if (ws)
      CHECK_CUDA (cudaMalloc (&w.d_ws, ws));
    w.d_plan = d_plan;
    check_method (&plan, &w, size);
    snprintf (note, sizeof (note), "%s; taps x %d, y %d; workspace %.1f MB; "
        "%d pairs rotated", cf_resize_device_plan_describe (d_plan, 0),
        plan.x[0].taps, plan.y[0].taps, ws / 1e6, n);
    timing_row ("kernel", method_names[m], &w, size,
        time_launches (launch, &w, n, warmup, iters, TRUE), note);
    if (w.d_ws)
      CHECK_CUDA (cudaFree (w.d_ws));
    cf_resize_device_plan_free (d_plan);
    cf_resize_plan_clear (&plan);
  }

  w.what = WORK_COPY;
  w.copy_bytes = (src.bytes + dst.bytes) / 2;
  snprintf (note, sizeof (note), "cudaMemcpyAsync D2D of (src+dst)/2 = "
      "%.1f MB; %d pairs rotated", w.copy_bytes / 1e6, n);
  timing_row ("ceiling", "d2d copy", &w, size,
      time_launches (launch, &w, n, warmup, iters, TRUE), note);
  CHECK_CUDA (cudaFree (src.d_base));
  CHECK_CUDA (cudaFree (dst.d_base));
  g_free (src.host);
  g_free (dst.host);
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
 * from its pinned pool; videoscale on every core; the CPU backend. */
static void
bench_pipelines (GRand * rand, int frames, int cpu_frames, guint default_fif)
{
  static const char *methods[] = { "bilinear", "lanczos" };
  const guint cores = g_get_num_processors ();
  GstElementFactory *vs = gst_element_factory_find ("videoscale");
  char size[40], name[64], note[320];

  snprintf (size, sizeof (size), "%dx%d>%dx%d", IN_W, IN_H, OUT_W, OUT_H);
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
    for (int k = 0; k < 4; k++) {
      PipeCase pc = { NULL, k < 2, k == 3 ? cpu_frames : frames,
        k == 1 ? (int) default_fif : 1 };
      PipeResult r;

      if (k < 2) {
        pc.element = g_strdup_printf ("cudaresize method=%s backend=cuda "
            "frames-in-flight=%d", methods[m], pc.in_flight);
        snprintf (name, sizeof (name), "cudaresize %s fif=%d%s", methods[m],
            pc.in_flight, k ? "*" : "");
      } else if (k == 2) {
        pc.element = g_strdup_printf ("videoscale method=%s n-threads=%u",
            methods[m], cores);
        snprintf (name, sizeof (name), "videoscale %s x%u", methods[m], cores);
      } else {
        pc.element = g_strdup_printf ("cudaresize method=%s backend=cpu",
            methods[m]);
        snprintf (name, sizeof (name), "cudaresize cpu %s", methods[m]);
      }
      if (k == 2 && !vs) {
        row ("cpu", name, "RGBA", size, "malloc", -1, -1, -1, -1,
            "skipped: videoscale (gst-plugins-base) is not installed");
      } else {
        run_case (&pc, rand, &r);
        snprintf (note, sizeof (note), "%s; %s%s; %d frames", r.note,
            pc.element, k == 1 ? " (* the default)" : k != 2 ? "" : m ?
            " (envelope 2: Lanczos-2)" : " (2 taps: no widening)", pc.frames);
        row (k < 2 ? "pipeline" : "cpu", name, "RGBA", size,
            pc.pool ? "pool" : "malloc", -1, -1, r.gbps, r.fps, note);
      }
      g_free (pc.element);
    }
  }
  if (vs)
    gst_object_unref (vs);
}

/* ------------------------------------------------------------ transfers */

/* The PCIe ceiling of the pipeline rows: a 4K RGBA upload and a 1080p
 * download between pinned host memory and the device, alone and at the
 * same time on two streams (what frames in flight overlap); frames/s is
 * what the pipeline could reach if the copies were all it did. */
static void
bench_transfers (int iters)
{
  const size_t up = (size_t) IN_W * IN_H * 4, down = (size_t) OUT_W * OUT_H * 4;
  cudaStream_t s2;
  cudaEvent_t e[3];
  void *h_up, *h_down, *d_up, *d_down;
  double *t = g_new (double, iters);
  char size[40];

  snprintf (size, sizeof (size), "%dx%d>%dx%d", IN_W, IN_H, OUT_W, OUT_H);
  CHECK_CUDA (cudaHostAlloc (&h_up, up, cudaHostAllocPortable));
  CHECK_CUDA (cudaHostAlloc (&h_down, down, cudaHostAllocPortable));
  CHECK_CUDA (cudaMalloc (&d_up, up));
  CHECK_CUDA (cudaMalloc (&d_down, down));
  CHECK_CUDA (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  for (int i = 0; i < 3; i++)
    CHECK_CUDA (cudaEventCreate (&e[i]));
  memset (h_up, 0x5a, up);
  for (int what = 0; what < 3; what++) {
    static const char *const names[] = { "pinned h2d 4K",
      "pinned d2h 1080p", "pinned h2d + d2h overlapped"
    };
    char note[160];

    for (int i = -3; i < iters; i++) {
      float ms;

      CHECK_CUDA (cudaEventRecord (e[0], bench_stream));
      if (what != 1)
        CHECK_CUDA (cudaMemcpyAsync (d_up, h_up, up, cudaMemcpyHostToDevice,
                bench_stream));
      if (what == 1)
        CHECK_CUDA (cudaMemcpyAsync (h_down, d_down, down,
                cudaMemcpyDeviceToHost, bench_stream));
      if (what == 2) {
        CHECK_CUDA (cudaStreamWaitEvent (s2, e[0], 0));
        CHECK_CUDA (cudaMemcpyAsync (h_down, d_down, down,
                cudaMemcpyDeviceToHost, s2));
        CHECK_CUDA (cudaEventRecord (e[2], s2));
        CHECK_CUDA (cudaStreamWaitEvent (bench_stream, e[2], 0));
      }
      CHECK_CUDA (cudaEventRecord (e[1], bench_stream));
      CHECK_CUDA (cudaEventSynchronize (e[1]));
      CHECK_CUDA (cudaEventElapsedTime (&ms, e[0], e[1]));
      if (i >= 0)
        t[i] = ms * 1e3;
    }
    qsort (t, iters, sizeof (double), cmp_double);
    snprintf (note, sizeof (note), "cudaMemcpyAsync, %s; frames/s: one "
        "frame's copies per median", what == 2 ? "two streams" : "one stream");
    row ("ceiling", names[what], "RGBA", size, "pinned", t[iters / 2], t[0],
        (what == 0 ? up : what == 1 ? down : up + down) / (t[iters / 2] * 1e3),
        1e6 / t[iters / 2], note);
  }
  for (int i = 0; i < 3; i++)
    CHECK_CUDA (cudaEventDestroy (e[i]));
  CHECK_CUDA (cudaStreamDestroy (s2));
  CHECK_CUDA (cudaFreeHost (h_up));
  CHECK_CUDA (cudaFreeHost (h_down));
  CHECK_CUDA (cudaFree (d_up));
  CHECK_CUDA (cudaFree (d_down));
  g_free (t);
}

/* -------------------------------------------------------------- main */

int
main (int argc, char **argv)
{
  static const struct {
    int in_w, in_h, out_w, out_h;
  } sizes[] = {
    {3840, 2160, 1920, 1080}, {1920, 1080, 3840, 2160}, {1920, 1080, 1280, 720},
  };
  static const CfFormat formats[] = { CF_FORMAT_RGBA, CF_FORMAT_NV12 };
  GOptionContext *ctx;
  GError *err = NULL;
  struct cudaDeviceProp prop;
  GstElement *element = NULL;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version, *cores;
  int iters, warmup, frames;
  guint default_fif = 2;

  ctx = g_option_context_new ("- time the cudaresize kernel, its memory "
      "ceiling, the element and videoscale");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "bench-resize: %s\n", err->message);
    return 1;
  }
  g_option_context_free (ctx);
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_frames > 0 ? opt_frames : opt_quick ? 40 : 600;

  if (!bench_open ("bench-resize", opt_no_pipeline ? NULL : "cudaresize", opt_csv))
    return 1;
  if (!opt_no_pipeline)
    element = gst_element_factory_make ("cudaresize", NULL);
  bench_start ("bench-resize", opt_quick, opt_commit, &prop, &date, &commit,
      &gst_version);
  cores = g_strdup_printf ("%u", g_get_num_processors ());
  printf ("cpu cores: %s\n", cores);
  if (element) {
    GstPlugin *plugin = gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE
        (gst_element_get_factory (element)));
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS
        (element), "frames-in-flight");
    if (ps && G_IS_PARAM_SPEC_UINT (ps))
      default_fif = G_PARAM_SPEC_UINT (ps)->default_value;
    printf ("plugin:    %s (frames-in-flight default %u)\n",
        plugin ? gst_plugin_get_filename (plugin) : "?", default_fif);
    g_clear_object (&plugin);
    gst_object_unref (element);
  }
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

  if (!opt_no_kernel)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
        bench_kernel_case (formats[f], sizes[s].in_w, sizes[s].in_h,
            sizes[s].out_w, sizes[s].out_h, prop.l2CacheSize, rand, iters,
            warmup);
  if (!opt_no_pipeline) {
    bench_transfers (MAX (iters / 4, 10));
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

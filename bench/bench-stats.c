/* bench-stats: how fast cudastats is, and against what.
 *
 * kernel    GPU time of one cf_stats_cuda () launch on a frame already in
 *           device memory (a CUDA event pair around each launch), random and
 *           constant frames, rotating over enough frames that L2 cannot hold
 *           them; the same for the CUB peer (cub-stats.h), which takes RGBA
 *           and NV12 (the 4K I420 row has none). Checks that the kernel
 *           equals cf_stats_cpu () and that CUB equals the kernel.
 * copy      pinned (and pageable) host<->device copies of a 4K RGBA frame.
 * pipeline  appsrc ! cudastats ! video/x-raw ! fakesink (system memory in
 *           and out): frames/s from the first push to EOS, buffers from the
 *           element's proposed (pinned) pool or from malloc,
 *           frames-in-flight 1..4.
 * cpu       the CPU backend on all the cores (n-threads=0) and on one thread,
 *           and videoanalyse (gst-plugins-bad, one thread) as CPU peer.
 *           --cpu-only runs these rows alone, without a CUDA device.
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
#include "bench-common.h"
#include "cub-stats.h"
#include "ceilings.h"


#define W4K 3840
#define H4K 2160

static gboolean opt_quick, opt_no_pipeline, opt_no_kernel, opt_cpu_only;
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
  {"cpu-only", 0, 0, G_OPTION_ARG_NONE, &opt_cpu_only, "Only the cpu rows (backend=cpu, videoanalyse): no CUDA device needed", NULL},
  {NULL}
};


/* ---------------------------------------------------------------- rows */

/* ------------------------------------------------------- device frames */

/* bench-common's frame sets: at least 4 frames, and together 3 times the
 * L2. */
typedef BenchFrames FrameSet;

static void
frameset_init (FrameSet * fs, CfFormat format, int width, int height,
    size_t l2_bytes)
{
  bench_frames_layout (fs, format, width, height);
  bench_frames_alloc (fs, MAX (4, (int) ((3 * l2_bytes + fs->stride - 1) /
              fs->stride)));
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
launch (const void *work, int frame)
{
  const Work *w = work;
  CfImage img;

  if (w->what == WORK_COPY)
    return cudaMemcpyAsync (w->dst, w->src, w->bytes, w->kind, bench_stream);
  if (w->what == WORK_ATOMICS)
    return ceiling_atomics (cf_format_info (w->fs->format)->n_channels,
        w->bytes, w->d_sink, bench_stream);
  img = bench_frames_image (w->fs, frame);
  if (w->what == WORK_READ)
    return ceiling_read (&img, w->d_sink, bench_stream);
  if (w->what == WORK_CUB)
    return cub_stats_run (w->cub, &img, w->parts, bench_stream);
  return cf_stats_cuda (&img, w->d_ws, w->d_result, bench_stream);
}

static void
timing_row (const char *section, const char *name, const FrameSet * fs,
    const char *data, Timing t, const char *note)
{
  char size[32], buf[160];

  snprintf (size, sizeof (size), "%dx%d", fs->width, fs->height);
  snprintf (buf, sizeof (buf), "%s%s", note, timing_flag (t));
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
    bench_exit_status = 2;
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
  CHECK_CUDA (cf_stats_workspace_init (w.d_ws, bench_stream));
  CHECK_CUDA (cudaMalloc ((void **) &w.d_result, sizeof (CfStats)));
  /* other formats have no peer rows */
  if (cub_stats_takes (format))
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
            cudaMemcpyDeviceToHost, bench_stream));
    CHECK_CUDA (cudaStreamSynchronize (bench_stream));
    img = bench_frames_image (&fs, -1);
    cf_stats_cpu (&img, &ref);
    check_row ("kernel == cf_stats_cpu", &fs, data, &gpu, &ref);
    w.what = WORK_CUB;
    for (guint k = 0; w.cub && k < 2; k++) {
      w.parts = cub_rows[k].parts;
      CHECK_CUDA (launch (&w, fs.n - 1));
      CHECK_CUDA (cub_stats_read (w.cub, &ref));
      snprintf (note, sizeof (note), "%s == kernel", cub_rows[k].name);
      check_row (note, &fs, data, &ref, &gpu);
    }

    w.what = WORK_KERNEL;
    snprintf (note, sizeof (note), "1 launch; %d frames rotated", fs.n);
    timing_row ("kernel", "cudastats kernel", &fs, data,
        time_launches (launch, &w, fs.n, warmup, iters, TRUE), note);
    w.what = WORK_CUB;
    for (guint k = 0; w.cub && k < G_N_ELEMENTS (cub_rows); k++) {
      w.parts = cub_rows[k].parts;
      timing_row ("peer", cub_rows[k].name, &fs, data,
          time_launches (launch, &w, fs.n, warmup, iters, TRUE), cub_rows[k].note);
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
          time_launches (launch, &w, fs.n, warmup, iters, TRUE),
          "16-byte loads, checksum; no histogram");
      w.what = WORK_ATOMICS;
      w.bytes = samples;
      snprintf (note, sizeof (note), "%llu shared atomics, no loads",
          samples);
      timing_row ("ceiling", "shared atomics only", &fs, data,
          time_launches (launch, &w, fs.n, warmup, iters, TRUE), note);
    }
  }
  cub_stats_free (w.cub);
  CHECK_CUDA (cudaFree (w.d_sink));
  CHECK_CUDA (cudaFree (w.d_result));
  CHECK_CUDA (cudaFree (w.d_ws));
  bench_frames_free (&fs);
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
        k < 2 ? "pinned" : "malloc", time_launches (launch, &w, 1, 2, iters, FALSE),
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

static gboolean
run_case (const PipeCase * pc, GRand * rand, PipeResult * r)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      pc->format, "width", G_TYPE_INT, W4K, "height", G_TYPE_INT, H4K,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  GstVideoInfo info;
  gboolean ok;

  gst_video_info_from_caps (&info, caps);
  /* system memory out, as these rows always measured: on CUDA the element
   * would otherwise hand fakesink its upload, in CUDA memory */
  ok = run_pipeline (pc->element, "video/x-raw", caps, pc->pool, pc->frames,
      pc->in_flight, info.size, rand, r);
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
  static const char *formats[] = { "RGBA", "NV12", "YUY2" };
  static const char *cpu_all = "cudastats backend=cpu frames-in-flight=1 "
      "post-messages=false n-threads=0";
  static const char *cpu_one = "cudastats backend=cpu frames-in-flight=1 "
      "post-messages=false n-threads=1";
  const PipeCase cpu[] = {
    {cpu_all, "RGBA", FALSE, cpu_frames, 1},
    {cpu_all, "I420", FALSE, cpu_frames, 1},
    {cpu_one, "RGBA", FALSE, cpu_frames, 1},
    {cpu_one, "I420", FALSE, cpu_frames, 1},
    {"videoanalyse message=false", "I420", FALSE, cpu_frames, 1},
  };
  GstElementFactory *va = gst_element_factory_find ("videoanalyse");
  char name[64], element[128], extra[64];
  PipeResult r;

  for (guint f = 0; !opt_cpu_only && f < G_N_ELEMENTS (formats); f++) {
    for (int pool = 1; pool >= 0; pool--) {
      PipeCase pc = { element, formats[f], pool, frames, 1 };
      double fps1 = -1, best = -1, best_gbps = -1;
      int best_n = 0;

      for (int n = 1; n <= 4; n++) {
        snprintf (element, sizeof (element), "cudastats backend=cuda "
            "frames-in-flight=%d post-messages=false", n);
        pc.in_flight = n;
        run_case (&pc, rand, &r);
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
    const gboolean peer = k == G_N_ELEMENTS (cpu) - 1;
    const char *extra = peer ? "luma mean/variance only, no histogram" : "";

    if (peer)
      snprintf (name, sizeof (name), "videoanalyse (cpu peer)");
    else
      snprintf (name, sizeof (name), "cudastats cpu x%u",
          k < 2 ? g_get_num_processors () : 1);
    if (peer && !va) {
      pipeline_row ("cpu", name, &cpu[k], -1, -1, "skipped: videoanalyse "
          "(gst-plugins-bad, videosignal) is not installed", "");
      continue;
    }
    run_case (&cpu[k], rand, &r);
    pipeline_row ("cpu", name, &cpu[k], r.fps, r.gbps, r.note, extra);
  }
  if (va)
    gst_object_unref (va);
}

/* -------------------------------------------------------------- main */

int
main (int argc, char **argv)
{
  struct cudaDeviceProp prop;
  GstElement *element = NULL;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version;
  int iters, warmup, frames;

  if (!bench_parse_options ("bench-stats", "- time the cudastats kernel, its CUB peer and the element", entries, &argc, &argv))
    return 1;
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_frames > 0 ? opt_frames : opt_quick ? 40 : 600;

  bench_cpu_only = opt_cpu_only;
  if (!bench_open ("bench-stats", opt_no_pipeline ? NULL : "cudastats", opt_csv))
    return 1;
  if (!opt_no_pipeline)
    element = gst_element_factory_make ("cudastats", NULL);
  bench_start ("bench-stats", opt_quick, opt_commit, &prop, &date, &commit,
      &gst_version);
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
  {
    const char *const meta[][2] = { {"date", date}, {"commit", commit},
      {"device", prop.name}, {"gstreamer", gst_version} };
    table_header (meta, G_N_ELEMENTS (meta));
  }

  if (!opt_no_kernel && !opt_cpu_only) {
    bench_kernel_case (CF_FORMAT_RGBA, 1920, 1080, prop.l2CacheSize, rand, iters, warmup);
    bench_kernel_case (CF_FORMAT_RGBA, W4K, H4K, prop.l2CacheSize, rand, iters, warmup);
    bench_kernel_case (CF_FORMAT_NV12, W4K, H4K, prop.l2CacheSize, rand, iters, warmup);
    bench_kernel_case (CF_FORMAT_I420, W4K, H4K, prop.l2CacheSize, rand, iters, warmup);
    bench_copies (rand, opt_quick ? 5 : 50);
  }
  if (!opt_no_pipeline)
    bench_pipelines (rand, frames, MAX (frames / 10, opt_quick ? 4 : 10));

  if (bench_exit_status)
    printf ("\nbench-stats: a check or a run FAILED (see the notes)\n");
  if (bench_csv)
    fclose (bench_csv);
  bench_finish ();
  g_rand_free (rand);
  g_free (date);
  g_free (commit);
  g_free (gst_version);
  return bench_exit_status;
}

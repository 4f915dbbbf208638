/* bench-overlay: what the statistics overlay (cudastatsoverlay) costs per
 * frame, beside the statistics it draws.
 *
 * kernel    GPU time of one cf_overlay_cuda () call (an event pair around
 *           each; the "back to back" rows: batches of calls queued one after
 *           the other, the batch's time per call), in place on frames
 *           already in device memory, rotating over enough frames that L2
 *           cannot hold them, nor their panels; random frames, each with its statistics
 *           (cf_stats_cuda (), computed once before). The element's
 *           defaults: the panel 0.3 x 0.35 of the frame in the top-left
 *           corner at opacity 0.6, the colour histogram, the text on; zebra
 *           off, then on at level 235 (a pass over every luma pixel). Then
 *           cf_stats_cuda () alone and cf_stats_cuda () + cf_overlay_cuda ()
 *           back to back on the same frame (what cudastats !
 *           cudastatsoverlay does on the GPU), and the overlay's added time
 *           relative to the statistics. RGBA and NV12, 1080p and 4K. Each
 *           overlay configuration is first checked equal to
 *           cf_overlay_cpu () (with cf_stats_cpu ()'s statistics), byte for
 *           byte (check rows). GB/s counts one read of the frame where the
 *           statistics are computed; the overlay alone touches the panel
 *           (and, with zebra, the luma plane), so it has none.
 * ceiling   the PCIe ceiling of the pipelines: the upload and the download
 *           of a 4K and of a 1080p RGBA frame from and to pinned memory,
 *           alone and overlapped.
 * pipeline  appsrc (4K, then 1080p RGBA) ! ELEMENTS ! fakesink, buffers from
 *           the first element's proposed (pinned) pool, frames-in-flight at
 *           its default, backend=cuda: cudastats alone, cudastatsoverlay
 *           alone (it computes the statistics itself), and cudastats !
 *           cudastatsoverlay (the overlay takes them from the meta); then a
 *           note with the overlay's added time per frame relative to
 *           cudastats alone. Issue target on the H100: at most 10%.
 *
 * Run with the plugin on GST_PLUGIN_PATH; --help lists the options.
 */
#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"

#include "format.h"
#include "overlay.h"
#include "stats.h"

static gboolean opt_quick, opt_no_pipeline, opt_no_kernel;
static gint opt_frames, opt_iters;
static gchar *opt_csv, *opt_commit;

static GOptionEntry entries[] = {
  {"quick", 0, 0, G_OPTION_ARG_NONE, &opt_quick,
      "Few iterations (smoke test, not for reporting)", NULL},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames,
      "Frames per pipeline run (default 600, --quick 40)", "N"},
  {"iterations", 0, 0, G_OPTION_ARG_INT, &opt_iters,
      "Timed launches per kernel row (default 200, --quick 20)", "N"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv,
      "Also write the rows as CSV to FILE", "FILE"},
  {"commit", 0, 0, G_OPTION_ARG_STRING, &opt_commit,
      "Commit to print (default: git rev-parse --short HEAD)", "REV"},
  {"no-pipeline", 0, 0, G_OPTION_ARG_NONE, &opt_no_pipeline,
      "Skip the GStreamer sections", NULL},
  {"no-kernel", 0, 0, G_OPTION_ARG_NONE, &opt_no_kernel,
      "Skip the kernel and check section", NULL},
  {NULL}
};

#define W4K 3840
#define H4K 2160
#define ZEBRA_LEVEL 235
/* what the text shows as the frame rate: its cost does not depend on it */
#define FPS_X10 299
/* the target: the overlay adds at most this to cudastats' time */
#define TARGET_PERCENT 10.0

/* The kernel rows of one format and size. */
typedef struct
{
  BenchFrames fs;               /* drawn on in place */
  uint8_t *original;            /* the host frame as uploaded */
  CfStats *d_stats;             /* one per frame */
  CfStats h_stats;              /* of the host frame, cf_stats_cpu () */
  void *d_ws;                   /* cf_stats_cuda ()'s workspace */
  char size[32];
  int iters, warmup;
} Case;

typedef enum
{
  WORK_OVERLAY,
  WORK_STATS,
  WORK_BOTH
} WorkKind;

typedef struct
{
  WorkKind kind;
  const Case *c;
  const CfOverlayPlan *plan;
} Work;

static cudaError_t
launch (const void *work, int i)
{
  const Work *w = work;
  CfImage img = bench_frames_image (&w->c->fs, i);
  cudaError_t err = cudaSuccess;

  if (w->kind != WORK_OVERLAY)
    err = cf_stats_cuda (&img, w->c->d_ws, &w->c->d_stats[i], bench_stream);
  if (err == cudaSuccess && w->kind != WORK_STATS)
    err = cf_overlay_cuda (w->plan, &img, &w->c->d_stats[i], FPS_X10,
        bench_stream);
  return err;
}

/* The element's defaults (gstcudastatsoverlay.c) for @w x @h, zebra
 * optional. */
static void
default_params (CfOverlayParams * p, int w, int h, gboolean zebra)
{
  memset (p, 0, sizeof (*p));
  p->corner = CF_OVERLAY_TOP_LEFT;
  p->panel_width = (int) (0.3 * w + 0.5);
  p->panel_height = (int) (0.35 * h + 0.5);
  p->inset = MIN (w, h) / 60;
  p->opacity = (int) (0.6 * 255 + 0.5);
  p->channels = CF_OVERLAY_CHANNELS_RGB;
  p->show_text = TRUE;
  p->zebra = zebra;
  p->zebra_level = ZEBRA_LEVEL;
}

static void
case_open (Case * c, CfFormat format, int width, int height, size_t l2_bytes,
    GRand * rand, int iters, int warmup)
{
  CfImage host;
  int n;

  memset (c, 0, sizeof (*c));
  snprintf (c->size, sizeof (c->size), "%dx%d", width, height);
  c->iters = iters;
  c->warmup = warmup;
  bench_frames_layout (&c->fs, format, width, height);
  /* enough frames that L2 cannot hold their panels either (the overlay
   * rows touch only the panel: about 0.3 x 0.35 of the frame) */
  n = bench_frames_pairs (&c->fs, &c->fs, l2_bytes);
  n = MAX (n, (int) (3 * l2_bytes / (c->fs.bytes * 0.3 * 0.35)) + 1);
  bench_frames_alloc (&c->fs, n);
  bench_frames_fill_random (&c->fs, rand);
  c->original = g_memdup2 (c->fs.host, c->fs.stride);
  host = bench_frames_image (&c->fs, -1);
  if (cf_stats_cpu (&host, &c->h_stats) != 0) {
    fprintf (stderr, "bench-overlay: cf_stats_cpu () failed on %s %s\n",
        cf_format_info (format)->name, c->size);
    exit (1);
  }
  CHECK_CUDA (cudaMalloc ((void **) &c->d_stats, n * sizeof (CfStats)));
  CHECK_CUDA (cudaMalloc (&c->d_ws, cf_stats_workspace_bytes ()));
  CHECK_CUDA (cf_stats_workspace_init (c->d_ws, bench_stream));
  {
    Work w = { WORK_STATS, c, NULL };

    for (int i = 0; i < n; i++)
      CHECK_CUDA (launch (&w, i));
  }
  CHECK_CUDA (cudaStreamSynchronize (bench_stream));
}

static void
case_close (Case * c)
{
  CHECK_CUDA (cudaFree (c->d_stats));
  CHECK_CUDA (cudaFree (c->d_ws));
  bench_frames_free (&c->fs);
  g_free (c->original);
}

/* Draws with @plan on the last frame, restored to what was uploaded, and
 * on the host frame with cf_overlay_cpu (); a check row of @name. */
static void
case_check (Case * c, const char *name, const CfOverlayPlan * plan)
{
  const int last = c->fs.n - 1;
  Work w = { WORK_OVERLAY, c, plan };
  CfImage host = bench_frames_image (&c->fs, -1);
  char note[256];

  memcpy (c->fs.host, c->original, c->fs.stride);
  CHECK_CUDA (cudaMemcpyAsync (c->fs.d_base + last * c->fs.stride,
          c->original, c->fs.stride, cudaMemcpyHostToDevice, bench_stream));
  CHECK_CUDA (launch (&w, last));
  if (cf_overlay_cpu (plan, &host, &c->h_stats, FPS_X10) != 0)
    snprintf (note, sizeof (note), "MISMATCH: cf_overlay_cpu () failed");
  else
    bench_frames_check (&c->fs, last, note, sizeof (note));
  if (strcmp (note, "OK"))
    bench_exit_status = 2;
  row ("check", name, cf_format_info (c->fs.format)->name, c->size, "random",
      -1, -1, -1, -1, note);
}

static Timing
case_time (Case * c, const char *name, WorkKind kind,
    const CfOverlayPlan * plan, const char *extra)
{
  Work w = { kind, c, plan };
  Timing t = time_launches (launch, &w, c->fs.n, c->warmup, c->iters, TRUE);
  char note[320];

  snprintf (note, sizeof (note), "%s%s%d frames rotated%s", extra,
      *extra ? "; " : "", c->fs.n, timing_flag (t));
  row ("kernel", name, cf_format_info (c->fs.format)->name, c->size,
      "random", t.median_us, t.min_us, kind == WORK_OVERLAY ? -1 :
      c->fs.bytes / (t.median_us * 1e3), -1, note);
  {
    /* the same calls back to back, as frames follow each other in a
     * stream: what one frame adds to the GPU's time */
    Timing b = time_back_to_back (launch, &w, c->fs.n, c->warmup, c->iters);
    gchar *name_b = g_strdup_printf ("%s, back to back", name);

    snprintf (note, sizeof (note), "per call of batches of calls back to "
        "back%s", timing_flag (b));
    row ("kernel", name_b, cf_format_info (c->fs.format)->name, c->size,
        "random", b.median_us, b.min_us, kind == WORK_OVERLAY ? -1 :
        c->fs.bytes / (b.median_us * 1e3), -1, note);
    g_free (name_b);
  }
  return t;
}

static void
bench_case (CfFormat format, int width, int height, size_t l2_bytes,
    GRand * rand, int iters, int warmup)
{
  CfOverlayPlan plan[2];
  Timing t_overlay, t_stats, t_both;
  char note[256];
  Case c;

  case_open (&c, format, width, height, l2_bytes, rand, iters, warmup);
  for (int zebra = 0; zebra < 2; zebra++) {
    CfOverlayParams p;

    default_params (&p, width, height, zebra);
    if (cf_overlay_plan_init (&plan[zebra], format, width, height, &p) != 0) {
      fprintf (stderr, "bench-overlay: no plan for %s %s\n",
          cf_format_info (format)->name, c.size);
      exit (1);
    }
  }
  snprintf (note, sizeof (note), "panel %dx%d, text scale %d",
      plan[0].panel_width, plan[0].panel_height, plan[0].scale);
  case_check (&c, "overlay", &plan[0]);
  case_check (&c, "overlay zebra", &plan[1]);
  t_overlay = case_time (&c, "overlay", WORK_OVERLAY, &plan[0], note);
  case_time (&c, "overlay zebra", WORK_OVERLAY, &plan[1], "zebra-level=235");
  t_stats = case_time (&c, "stats", WORK_STATS, NULL, "cf_stats_cuda ()");
  t_both = case_time (&c, "stats + overlay", WORK_BOTH, &plan[0],
      "cf_stats_cuda () then cf_overlay_cuda ()");
  snprintf (note, sizeof (note), "the overlay adds %.1f us to the stats' "
      "%.1f us: %+.1f%% (overlay alone %.1f us)",
      t_both.median_us - t_stats.median_us, t_stats.median_us,
      100 * (t_both.median_us - t_stats.median_us) / t_stats.median_us,
      t_overlay.median_us);
  row ("kernel", "added: overlay vs stats", cf_format_info (format)->name,
      c.size, "random", -1, -1, -1, -1, note);
  case_close (&c);
}

static void
bench_kernels (size_t l2_bytes, GRand * rand, int iters, int warmup)
{
  static const struct
  {
    CfFormat format;
    int width, height;
  } cases[] = {
    {CF_FORMAT_RGBA, 1920, 1080}, {CF_FORMAT_RGBA, W4K, H4K},
    {CF_FORMAT_NV12, 1920, 1080}, {CF_FORMAT_NV12, W4K, H4K},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    bench_case (cases[k].format, cases[k].width, cases[k].height, l2_bytes,
        rand, iters, warmup);
}

/* ------------------------------------------------------------ pipeline */

#define STATS_ELEMENT "cudastats backend=cuda post-messages=false"
#define OVERLAY_ELEMENT "cudastatsoverlay backend=cuda"

/* The three pipelines at @width x @height RGBA: cudastats, cudastatsoverlay,
 * both; then the added time of the overlay. */
static void
bench_pipelines (int width, int height, GRand * rand, int frames,
    guint stats_fif, guint overlay_fif, gboolean have_elements)
{
  static const char *names[] = { "cudastats", "cudastatsoverlay",
    "cudastats ! cudastatsoverlay"
  };
  static const char *elements[] = { STATS_ELEMENT, OVERLAY_ELEMENT,
    STATS_ELEMENT " name=el ! " OVERLAY_ELEMENT
  };
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  const double bytes = (double) width * height * 4;
  double fps[G_N_ELEMENTS (names)];
  char size[32], note[320];

  snprintf (size, sizeof (size), "%dx%d", width, height);
  for (guint k = 0; k < G_N_ELEMENTS (names); k++) {
    /* frames the elements may hold */
    const int held = k == 0 ? (int) stats_fif : k == 1 ? (int) overlay_fif :
        (int) (stats_fif + overlay_fif);
    PipeResult r = { -1, -1 };

    if (!have_elements)
      fail (&r, "no cudastats or cudastatsoverlay element (is the plugin on "
          "GST_PLUGIN_PATH?)");
    else
      /* system memory out, as these rows have always measured (the
       * GPU-resident rows are bench-pipelines') */
      run_pipeline (elements[k], "video/x-raw", caps, TRUE, frames, held,
          bytes, rand, &r);
    fps[k] = r.fps;
    snprintf (note, sizeof (note), "%s; %s; %d frames", r.note, elements[k],
        frames);
    row ("pipeline", names[k], "RGBA", size, "pool", -1, -1, r.gbps, r.fps,
        note);
  }
  if (fps[0] > 0 && fps[2] > 0) {
    const double t_stats = 1e6 / fps[0], t_both = 1e6 / fps[2];
    const double added = 100 * (t_both - t_stats) / t_stats;

    snprintf (note, sizeof (note), "cudastats ! cudastatsoverlay takes %.1f "
        "us/frame, cudastats %.1f: the overlay adds %.1f us, %+.1f%% "
        "(target <= %.0f%%: %s)", t_both, t_stats, t_both - t_stats, added,
        TARGET_PERCENT, added <= TARGET_PERCENT ? "met" : "NOT met");
  } else {
    snprintf (note, sizeof (note), "no added time: a run failed");
  }
  row ("pipeline", "added: overlay vs stats", "RGBA", size, "pool", -1, -1,
      -1, -1, note);
  gst_caps_unref (caps);
}

/* -------------------------------------------------------------- main */

int
main (int argc, char **argv)
{
  struct cudaDeviceProp prop;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version;
  int iters, warmup, frames;
  guint stats_fif = 2, overlay_fif = 2;
  gboolean have_elements = FALSE;

  if (!bench_parse_options ("bench-overlay", "- time the cudastatsoverlay "
          "kernel beside cudastats', and the elements", entries, &argc, &argv))
    return 1;
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_frames > 0 ? opt_frames : opt_quick ? 40 : 600;

  /* a missing element fails the pipeline rows only */
  if (!bench_open ("bench-overlay", NULL, opt_csv))
    return 1;
  bench_start ("bench-overlay", opt_quick, opt_commit, &prop, &date, &commit,
      &gst_version);
  if (!opt_no_pipeline) {
    have_elements = bench_plugin_line ("cudastats", &stats_fif);
    have_elements = bench_plugin_line ("cudastatsoverlay", &overlay_fif)
        && have_elements;
  }
  printf ("kernel: GPU time of each call (CUDA event pair), %d timed after %d "
      "warm-up; GB/s = frame bytes / median where the statistics are "
      "computed\npipeline: RGBA in and out, backend=cuda, frames-in-flight "
      "default; wall clock from the first timed push to EOS; GB/s = "
      "frames/s x frame bytes\n", iters, warmup);
  {
    const char *const meta[][2] = { {"date", date}, {"commit", commit},
    {"device", prop.name}, {"gstreamer", gst_version}
    };
    table_header (meta, G_N_ELEMENTS (meta));
  }

  if (!opt_no_kernel)
    bench_kernels (prop.l2CacheSize, rand, iters, warmup);
  if (!opt_no_pipeline) {
    bench_transfers ("RGBA", "3840x2160", (size_t) W4K * H4K * 4, "4K",
        (size_t) W4K * H4K * 4, "4K", MAX (iters / 4, 10));
    bench_transfers ("RGBA", "1920x1080", (size_t) 1920 * 1080 * 4, "1080p",
        (size_t) 1920 * 1080 * 4, "1080p", MAX (iters / 4, 10));
    bench_pipelines (W4K, H4K, rand, frames, stats_fif, overlay_fif,
        have_elements);
    bench_pipelines (1920, 1080, rand, frames, stats_fif, overlay_fif,
        have_elements);
  }

  if (bench_exit_status)
    printf ("\nbench-overlay: a check or a run FAILED (see the notes)\n");
  if (bench_csv)
    fclose (bench_csv);
  bench_finish ();
  /* the strings go with the process */
  g_rand_free (rand);
  return bench_exit_status;
}

/* bench-pipelines: the video elements chained, fed from system memory and
 * kept in CUDA memory, against what bounds them.
 *
 * ceiling   the PCIe ceilings of the system memory rows, measured in the
 *           same run (bench_transfers ()): a 4K RGBA upload with a 4K RGBA
 *           download, and with a 1080p one, from and to pinned memory, alone
 *           and overlapped on two streams.
 * sysmem    (a) appsrc (4K RGBA in system memory, from the page-locked pool
 *           cudastats proposes) ! cudastats ! cudastatsoverlay ! video/x-raw
 *           ! fakesink, the frame passed between the elements in CUDA
 *           memory, so that it crosses PCIe once each way: frames/s against
 *           the 4K upload + 4K download overlapped (target >= 95%).
 *           (b) the same into cudastats ! cudaresize ! 1080p ! cudastencil
 *           ! cudastatsoverlay ! video/x-raw, CUDA memory between them: a 4K
 *           upload and a 1080p download, against those two overlapped
 *           (target >= 90%).
 *           (b') (b) with system memory after cudaresize
 *           (video/x-raw,width=1920,height=1080): what a capsfilter without
 *           the memory feature costs, a 1080p download and upload more.
 * kernel    GPU time of each kernel the GPU-resident rows run, with the
 *           elements' defaults, on frames already in device memory
 *           (random, rotated so that L2 cannot hold them): cf_stats_cuda ()
 *           on 4K RGBA; cf_resize_cuda () bilinear 4K -> 1080p;
 *           cf_stencil_cuda () gaussian sigma 1 (radius 3), both
 *           directions, mirror border; cf_stats_cuda () on the 1080p frame
 *           (the statistics meta does not survive scaling, so the overlay
 *           computes its own); cf_overlay_cuda () with the element's
 *           default panel. Then their sum, and the five back to back on the
 *           same frame. Checked first against the CPU references, byte for
 *           byte (check rows).
 * gpu       (c) appsrc in CUDA memory (4K RGBA, frames from the
 *           GstCudaBufferPool the first element proposes, pushed round
 *           robin) ! ELEMENTS ! video/x-raw(memory:CUDAMemory) ! fakesink:
 *           (c1) cudastats alone, (c2) the chain of (b); frames/s and us per
 *           frame beside the kernels' own time (target: cudastats >= 20000
 *           frames/s).
 * fif       (d) (a) and (c1) at frames-in-flight 1, 2, 3 and 4 on every
 *           element: whether overlapping frames still pays with CUDA memory.
 *
 * A capsfilter names the memory between every two elements: without them
 * the elements pass system memory to each other when the pipeline ends in
 * system memory. The check rows "a as written" and "b as written" run (a)
 * and (b) without those capsfilters and say what they negotiate (a
 * MISMATCH until the elements prefer CUDA memory there). Every pipeline
 * row checks the memory each element negotiated (the note's "memory"
 * path) and fails when it is not the one the row names; a pipeline that
 * posts an error is a FAILED row, not a number. backend=cuda on every
 * element, post-messages=false on cudastats. The pipelines run in --runs
 * rounds (5): each round measures the overlapped copies' ceilings, then
 * runs every row once, so that all rows and their ceilings share the
 * moments of a host and bus that others may be using; a row is the median
 * of its rounds (its note gives the slowest and fastest), a target the
 * median of the rounds' ratios to their own ceiling. --pipelines runs some
 * rows only.
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
#include "resize.h"
#include "stats.h"
#include "stencil.h"

static gboolean opt_quick, opt_no_pipeline, opt_no_kernel;
static gint opt_frames, opt_gpu_frames, opt_iters, opt_runs;
static gchar *opt_csv, *opt_commit, *opt_pipelines;

static GOptionEntry entries[] = {
  {"quick", 0, 0, G_OPTION_ARG_NONE, &opt_quick,
      "Few frames and iterations (smoke test, not for reporting)", NULL},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames,
      "Frames per system memory pipeline run (default 1000, --quick 40)",
      "N"},
  {"gpu-frames", 0, 0, G_OPTION_ARG_INT, &opt_gpu_frames,
      "Frames per CUDA memory pipeline run (default 20000, --quick 400)", "N"},
  {"runs", 0, 0, G_OPTION_ARG_INT, &opt_runs,
      "Rounds of the pipeline rows, the median reported (default 5, --quick "
        "1, at most 15)",
      "N"},
  {"iterations", 0, 0, G_OPTION_ARG_INT, &opt_iters,
      "Timed launches per kernel row (default 200, --quick 20)", "N"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv,
      "Also write the rows as CSV to FILE", "FILE"},
  {"commit", 0, 0, G_OPTION_ARG_STRING, &opt_commit,
      "Commit to print (default: git rev-parse --short HEAD)", "REV"},
  {"no-pipeline", 0, 0, G_OPTION_ARG_NONE, &opt_no_pipeline,
      "Skip the GStreamer sections (and the ceilings)", NULL},
  {"no-kernel", 0, 0, G_OPTION_ARG_NONE, &opt_no_kernel,
      "Skip the kernel and check sections", NULL},
  {"pipelines", 0, 0, G_OPTION_ARG_STRING, &opt_pipelines,
      "Run only these pipeline rows, comma separated: a, b, b', c1, c2, and "
        "the frames-in-flight sweeps da (of a) and dc1 (of c1); default all",
      "LIST"},
  {NULL}
};

#define W4K 3840
#define H4K 2160
#define W1080 1920
#define H1080 1080
#define SIZE_4K "3840x2160"
#define SIZE_1080 "1920x1080"
#define SIZE_DOWN "3840x2160>1920x1080"
#define BYTES_4K ((double) W4K * H4K * 4)
#define BYTES_1080 ((double) W1080 * H1080 * 4)
/* what the overlay's text shows as the frame rate: the element's, from
 * timestamps 1/30 s apart; its cost does not depend on it */
#define FPS_X10 300

/* the targets */
#define TARGET_A_PERCENT 95.0
#define MAX_RUNS 15
#define TARGET_B_PERCENT 90.0
#define TARGET_C_FPS 20000.0

/* ------------------------------------------------------------- kernels */

/* What the GPU-resident chain runs per frame, set up as the elements set it
 * up at negotiation with their default properties. Frame i of each set is
 * frame i of the chain. */
typedef struct
{
  BenchFrames src;              /* 4K: cudastats reads it, cudaresize scales */
  BenchFrames mid;              /* 1080p: cudaresize's output */
  BenchFrames out;              /* 1080p: cudastencil's, the overlay's */
  CfStats *d_stats;             /* frame i: 4K at i, 1080p at n + i */
  void *d_ws;                   /* cf_stats_cuda ()'s workspace */
  void *d_resize_ws;
  void *d_stencil_ws;
  CfResizePlan resize;
  CfResizeDevicePlan *d_resize;
  CfStencilPlan stencil;
  CfStencilDevicePlan *d_stencil;
  CfOverlayPlan overlay;
  int iters, warmup;
} Chain;

typedef enum
{
  STEP_STATS_4K,
  STEP_RESIZE,
  STEP_STENCIL,
  STEP_STATS_1080,
  STEP_OVERLAY,
  STEP_COUNT,
  STEP_CHAIN = STEP_COUNT       /* the five back to back */
} Step;

typedef struct
{
  Step step;
  const Chain *c;
} Work;

static cudaError_t
run_step (const Chain * c, Step step, int i)
{
  CfImage src = bench_frames_image (&c->src, i);
  CfImage mid = bench_frames_image (&c->mid, i);
  CfImage out = bench_frames_image (&c->out, i);
  CfStats *stats_1080 = &c->d_stats[c->src.n + i];

  switch (step) {
    case STEP_STATS_4K:
      return cf_stats_cuda (&src, c->d_ws, &c->d_stats[i], bench_stream);
    case STEP_RESIZE:
      return cf_resize_cuda (c->d_resize, &src, &mid, c->d_resize_ws,
          bench_stream);
    case STEP_STENCIL:
      return cf_stencil_cuda (c->d_stencil, &mid, &out, c->d_stencil_ws,
          bench_stream);
    case STEP_STATS_1080:
      return cf_stats_cuda (&out, c->d_ws, stats_1080, bench_stream);
    case STEP_OVERLAY:
      return cf_overlay_cuda (&c->overlay, &out, stats_1080, FPS_X10,
          bench_stream);
    default:
      break;
  }
  for (int s = 0; s < STEP_COUNT; s++) {
    cudaError_t err = run_step (c, (Step) s, i);

    if (err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}

static cudaError_t
launch (const void *work, int i)
{
  const Work *w = work;

  return run_step (w->c, w->step, i);
}

/* The plans the elements make from their defaults: cudaresize
 * (gstcudaresize.c: bilinear, same aspect ratio so no borders; RGBA has no
 * chroma siting), cudastencil (gstcudastencil.c plan_from_properties: the
 * gaussian preset at sigma 1 with its own radius on both axes, mirror
 * border, alpha copied) and cudastatsoverlay (gstcudastatsoverlay.c
 * make_plan: 0.3 x 0.35 of the frame, top left, inset min (w, h) / 60,
 * opacity 0.6, RGB histogram, text, no zebra). */
static void
chain_plans (Chain * c)
{
  double taps[CF_STENCIL_MAX_TAPS];
  CfStencilParams sp = { 0 };
  CfOverlayParams op = { 0 };

  if (cf_resize_plan_init (&c->resize, CF_FORMAT_RGBA, CF_RESIZE_BILINEAR, 1,
          W4K, H4K, W1080, H1080, TRUE, FALSE) != 0) {
    fprintf (stderr, "bench-pipelines: no resize plan\n");
    exit (1);
  }
  CHECK_CUDA (cf_resize_device_plan_new (&c->resize, CF_RESIZE_KERNELS_AUTO,
          &c->d_resize));

  sp.direction = CF_STENCIL_BOTH;
  sp.border = CF_STENCIL_MIRROR;
  if (cf_stencil_preset_taps (CF_STENCIL_PRESET_GAUSSIAN, 0, 1.0, 1.0, taps,
          &sp.x.radius, &sp.x.normalize) != 0) {
    fprintf (stderr, "bench-pipelines: no gaussian taps\n");
    exit (1);
  }
  sp.x.taps = taps;
  sp.y = sp.x;
  if (cf_stencil_plan_init (&c->stencil, CF_FORMAT_RGBA, W1080, H1080,
          &sp) != 0) {
    fprintf (stderr, "bench-pipelines: no stencil plan\n");
    exit (1);
  }
  CHECK_CUDA (cf_stencil_device_plan_new (&c->stencil,
          CF_STENCIL_KERNELS_AUTO, &c->d_stencil));

  op.corner = CF_OVERLAY_TOP_LEFT;
  op.panel_width = (int) (0.3 * W1080 + 0.5);
  op.panel_height = (int) (0.35 * H1080 + 0.5);
  op.inset = MIN (W1080, H1080) / 60;
  op.opacity = (int) (0.6 * 255 + 0.5);
  op.channels = CF_OVERLAY_CHANNELS_RGB;
  op.show_text = TRUE;
  op.zebra_level = 255;
  if (cf_overlay_plan_init (&c->overlay, CF_FORMAT_RGBA, W1080, H1080,
          &op) != 0) {
    fprintf (stderr, "bench-pipelines: no overlay plan\n");
    exit (1);
  }
}

static void
chain_open (Chain * c, size_t l2_bytes, GRand * rand, int iters, int warmup)
{
  size_t ws;
  int n;

  memset (c, 0, sizeof (*c));
  c->iters = iters;
  c->warmup = warmup;
  bench_frames_layout (&c->src, CF_FORMAT_RGBA, W4K, H4K);
  bench_frames_layout (&c->mid, CF_FORMAT_RGBA, W1080, H1080);
  bench_frames_layout (&c->out, CF_FORMAT_RGBA, W1080, H1080);
  n = bench_frames_pairs (&c->src, &c->mid, l2_bytes);
  bench_frames_alloc (&c->src, n);
  bench_frames_alloc (&c->mid, n);
  bench_frames_alloc (&c->out, n);
  bench_frames_fill_random (&c->src, rand);
  CHECK_CUDA (cudaMalloc ((void **) &c->d_stats, 2 * n * sizeof (CfStats)));
  CHECK_CUDA (cudaMalloc (&c->d_ws, cf_stats_workspace_bytes ()));
  CHECK_CUDA (cf_stats_workspace_init (c->d_ws, bench_stream));
  chain_plans (c);
  ws = cf_resize_device_plan_workspace_bytes (c->d_resize);
  if (ws)
    CHECK_CUDA (cudaMalloc (&c->d_resize_ws, ws));
  ws = cf_stencil_device_plan_workspace_bytes (c->d_stencil);
  if (ws)
    CHECK_CUDA (cudaMalloc (&c->d_stencil_ws, ws));
  CHECK_CUDA (cudaStreamSynchronize (bench_stream));
}

static void
chain_close (Chain * c)
{
  if (c->d_resize_ws)
    CHECK_CUDA (cudaFree (c->d_resize_ws));
  if (c->d_stencil_ws)
    CHECK_CUDA (cudaFree (c->d_stencil_ws));
  CHECK_CUDA (cudaFree (c->d_ws));
  CHECK_CUDA (cudaFree (c->d_stats));
  cf_resize_device_plan_free (c->d_resize);
  cf_resize_plan_clear (&c->resize);
  cf_stencil_device_plan_free (c->d_stencil);
  cf_stencil_plan_clear (&c->stencil);
  bench_frames_free (&c->src);
  bench_frames_free (&c->mid);
  bench_frames_free (&c->out);
}

static void
check_row (const char *name, const char *size, const char *note)
{
  if (strcmp (note, "OK"))
    bench_exit_status = 2;
  row ("check", name, "RGBA", size, "random", -1, -1, -1, -1, note);
}

/* Compares the device statistics at @d_stats with @ref. */
static void
check_stats (const char *name, const char *size, const CfStats * d_stats,
    const CfStats * ref)
{
  CfStats gpu;

  CHECK_CUDA (cudaMemcpyAsync (&gpu, d_stats, sizeof (gpu),
          cudaMemcpyDeviceToHost, bench_stream));
  CHECK_CUDA (cudaStreamSynchronize (bench_stream));
  /* CfStats has no padding: equal results compare equal */
  check_row (name, size, memcmp (&gpu, ref, sizeof (gpu)) ? "MISMATCH: "
      "the statistics differ" : "OK");
}

/* The chain on the last frame, on the GPU and with the CPU references from
 * the host copy of its input: the 4K and 1080p statistics and the final
 * 1080p frame must be equal. */
static void
chain_check (Chain * c)
{
  const int last = c->src.n - 1;
  CfImage src = bench_frames_image (&c->src, -1);
  CfImage mid = bench_frames_image (&c->mid, -1);
  CfImage out = bench_frames_image (&c->out, -1);
  CfStats ref;
  char note[160];

  CHECK_CUDA (run_step (c, STEP_CHAIN, last));
  if (cf_stats_cpu (&src, &ref) != 0) {
    check_row ("stats 4K", SIZE_4K, "MISMATCH: cf_stats_cpu () failed");
    return;
  }
  check_stats ("stats 4K == cpu", SIZE_4K, &c->d_stats[last], &ref);
  if (cf_resize_cpu (&c->resize, &src, &mid) != 0 ||
      cf_stencil_cpu (&c->stencil, &mid, &out) != 0 ||
      cf_stats_cpu (&out, &ref) != 0) {
    check_row ("chain == cpu", SIZE_DOWN, "MISMATCH: a CPU reference failed");
    return;
  }
  check_stats ("stats 1080p == cpu", SIZE_1080, &c->d_stats[c->src.n + last],
      &ref);
  if (cf_overlay_cpu (&c->overlay, &out, &ref, FPS_X10) != 0)
    snprintf (note, sizeof (note), "MISMATCH: cf_overlay_cpu () failed");
  else
    bench_frames_check (&c->out, last, note, sizeof (note));
  check_row ("chain == cpu", SIZE_DOWN, note);
}

static double
time_step (const Chain * c, Step step, const char *name, const char *size,
    double bytes, const char *what)
{
  Work w = { step, c };
  Timing t = time_launches (launch, &w, c->src.n, c->warmup, c->iters, TRUE);
  char note[256];

  snprintf (note, sizeof (note), "%s; %d frames rotated%s", what, c->src.n,
      timing_flag (t));
  row ("kernel", name, "RGBA", size, "random", t.median_us, t.min_us,
      bytes / (t.median_us * 1e3), 1e6 / t.median_us, note);
  return t.median_us;
}

/* The kernels' own times: @stats_us gets cudastats' (4K), @chain_us the
 * chain's back to back. */
static void
bench_kernels (size_t l2_bytes, GRand * rand, int iters, int warmup,
    double *stats_us, double *chain_us)
{
  Chain c;
  double sum = 0;
  char what[160];

  chain_open (&c, l2_bytes, rand, iters, warmup);
  chain_check (&c);
  *stats_us = time_step (&c, STEP_STATS_4K, "cudastats", SIZE_4K, BYTES_4K,
      "cf_stats_cuda ()");
  sum += *stats_us;
  snprintf (what, sizeof (what), "cf_resize_cuda () bilinear, %s",
      cf_resize_device_plan_describe (c.d_resize, 0));
  sum += time_step (&c, STEP_RESIZE, "cudaresize bilinear", SIZE_DOWN,
      BYTES_4K + BYTES_1080, what);
  snprintf (what, sizeof (what), "cf_stencil_cuda () gaussian sigma 1, "
      "radius %d, both, mirror", c.stencil.radius_x);
  sum += time_step (&c, STEP_STENCIL, "cudastencil gaussian", SIZE_1080,
      2 * BYTES_1080, what);
  sum += time_step (&c, STEP_STATS_1080, "cudastatsoverlay stats",
      SIZE_1080, BYTES_1080, "cf_stats_cuda (): the overlay's own");
  snprintf (what, sizeof (what), "cf_overlay_cuda (), panel %dx%d, text "
      "scale %d", c.overlay.panel_width, c.overlay.panel_height,
      c.overlay.scale);
  sum += time_step (&c, STEP_OVERLAY, "cudastatsoverlay overlay", SIZE_1080,
      -1, what);
  row ("kernel", "chain: sum of the five", "RGBA", SIZE_DOWN, "random", sum,
      -1, -1, 1e6 / sum, "the medians above added");
  *chain_us = time_step (&c, STEP_CHAIN, "chain: back to back", SIZE_DOWN,
      BYTES_4K, "the five kernels on one frame, one after the other");
  chain_close (&c);
}

/* ----------------------------------------------------------- pipelines */

#define STATS "cudastats backend=cuda post-messages=false"
#define RESIZE "cudaresize backend=cuda"
#define STENCIL "cudastencil backend=cuda"
#define OVERLAY "cudastatsoverlay backend=cuda"
#define SYSTEM_CAPS "video/x-raw"
#define CUDA_CAPS "video/x-raw(" BENCH_CAPS_FEATURE_CUDA_MEMORY ")"
#define TO_1080P ",width=1920,height=1080"

typedef enum
{
  PIPE_A,                       /* system memory: stats ! overlay */
  PIPE_B,                       /* system memory: the chain to 1080p */
  PIPE_B_SYSTEM,                /* (b) with system memory after cudaresize */
  PIPE_C_STATS,                 /* CUDA memory: cudastats */
  PIPE_C_CHAIN,                 /* CUDA memory: the chain */
  N_PIPES
} PipeId;

enum
{ EL_STATS, EL_RESIZE, EL_STENCIL, EL_OVERLAY, N_ELEMENTS };

static const char *element_names[N_ELEMENTS] = { "cudastats", "cudaresize",
  "cudastencil", "cudastatsoverlay"
};

static const struct
{
  const char *id;               /* the letter */
  const char *name;             /* the row's case */
  gboolean in_cuda;             /* appsrc's frames */
  const char *out_caps;         /* before fakesink */
  const char *expect;           /* the memories every row must negotiate */
  const char *size;
  double bytes;                 /* per frame, for GB/s */
} pipes[N_PIPES] = {
  {"a", "a: stats ! overlay", FALSE, SYSTEM_CAPS, "system > CUDA > system",
      SIZE_4K, 2 * BYTES_4K},
  {"b", "b: chain to 1080p", FALSE, SYSTEM_CAPS,
      "system > CUDA > CUDA > CUDA > system", SIZE_DOWN,
      BYTES_4K + BYTES_1080},
  /* GB/s as (b)'s, to compare: the frames in and out */
  {"b'", "b': system after resize", FALSE, SYSTEM_CAPS,
      "system > CUDA > system > CUDA > system", SIZE_DOWN,
      BYTES_4K + BYTES_1080},
  {"c1", "c1: cudastats", TRUE, CUDA_CAPS, "CUDA > CUDA", SIZE_4K, BYTES_4K},
  {"c2", "c2: chain to 1080p", TRUE, CUDA_CAPS,
      "CUDA > CUDA > CUDA > CUDA > CUDA", SIZE_DOWN, BYTES_4K},
};

/* The elements of @id, every one with @fif frames in flight (0: its
 * default), the first named "el" for run_pipeline (); *@held gets the
 * frames they may hold together. Between two elements a capsfilter names
 * the memory the row measures: left to themselves, the elements pass
 * system memory between them when the pipeline ends in system memory
 * (basetransform puts a filter's downstream caps first, to favour
 * passthrough; see negotiation_row ()). @bare leaves those out, keeping
 * only the size after cudaresize. */
static gchar *
pipe_elements (PipeId id, guint fif, gboolean bare,
    const guint default_fif[N_ELEMENTS], int *held)
{
  gchar *f = fif ? g_strdup_printf (" frames-in-flight=%u", fif) :
      g_strdup ("");
  const char *link = bare ? " ! " : " ! " CUDA_CAPS " ! ";
  gchar *s;

  if (id == PIPE_A) {
    s = g_strdup_printf (STATS "%s name=el%s" OVERLAY "%s", f, link, f);
    *held = fif ? 2 * fif : default_fif[EL_STATS] + default_fif[EL_OVERLAY];
  } else if (id == PIPE_C_STATS) {
    s = g_strdup_printf (STATS "%s name=el", f);
    *held = fif ? fif : default_fif[EL_STATS];
  } else {
    /* the size after cudaresize, in the memory the row names */
    s = g_strdup_printf (STATS "%s name=el%s" RESIZE "%s ! %s" TO_1080P
        " ! " STENCIL "%s%s" OVERLAY "%s", f, link, f,
        id == PIPE_B_SYSTEM ? SYSTEM_CAPS : CUDA_CAPS, f, link, f);
    *held = 0;
    for (int e = 0; e < N_ELEMENTS; e++)
      *held += fif ? fif : default_fif[e];
  }
  g_free (f);
  return s;
}

/* The launch line of @id, for the header. */
static gchar *
pipe_description (PipeId id, const guint default_fif[N_ELEMENTS])
{
  int held;
  gchar *el = pipe_elements (id, 0, FALSE, default_fif, &held);
  gchar *s = g_strdup_printf ("appsrc caps=\"%s,format=RGBA,width=3840,"
      "height=2160\" ! %s ! %s ! fakesink sync=false", pipes[id].in_cuda ?
      CUDA_CAPS : SYSTEM_CAPS, el, pipes[id].out_caps);

  g_free (el);
  return s;
}

/* appsrc's caps: 4K RGBA in the memory of @id. */
static GstCaps *
pipe_caps (PipeId id)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", "width", G_TYPE_INT, W4K, "height", G_TYPE_INT, H4K,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);

  if (pipes[id].in_cuda)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (BENCH_CAPS_FEATURE_CUDA_MEMORY, NULL));
  return caps;
}

/* A pipeline row: @id with frames-in-flight @fif on every element (0: the
 * defaults), @frames frames a run, run once per round (main ()), so that
 * every row and the ceilings see the same moments of a host and bus that
 * others may share; the row is the median of its rounds. */
typedef struct
{
  const char *section;
  char name[64];
  PipeId id;
  guint fif;
  int frames;
  int base;                     /* the series of its fif=1 ratio, or -1 */
  gchar *elements;
  GstCaps *caps;
  int held;
  double fps[MAX_RUNS];         /* per round */
  int runs;                     /* rounds run; stops at a failure */
  gboolean failed;
  PipeResult r;                 /* the last run's */
} Series;

static void
series_init (Series * s, const char *section, const char *name, PipeId id,
    guint fif, int frames, int base, const guint default_fif[N_ELEMENTS])
{
  memset (s, 0, sizeof (*s));
  s->section = section;
  snprintf (s->name, sizeof (s->name), "%s", name ? name : pipes[id].name);
  s->id = id;
  s->fif = fif;
  s->frames = frames;
  s->base = base;
  s->caps = pipe_caps (id);
  s->elements = pipe_elements (id, fif, FALSE, default_fif, &s->held);
}

/* One run of @s, unless an earlier one failed. */
static void
series_run (Series * s, gboolean have_elements, GRand * rand)
{
  PipeResult r = { -1, -1 };

  if (s->failed)
    return;
  if (!have_elements)
    fail (&r, "an element is missing (is the plugin on GST_PLUGIN_PATH?)");
  else if (run_pipeline (s->elements, pipes[s->id].out_caps, s->caps, TRUE,
          s->frames, s->held, pipes[s->id].bytes, rand, &r)
      && strcmp (r.memories, pipes[s->id].expect)) {
    /* the row would measure another path: no number in its column */
    fail (&r, "negotiated memory %s, not %s (ran at %.0f frames/s)",
        r.memories, pipes[s->id].expect, r.fps);
    r.fps = r.gbps = -1;
  }
  s->r = r;
  if (r.fps <= 0)
    s->failed = TRUE;
  else
    s->fps[s->runs++] = r.fps;
}

/* The median of @n values (sorted in place), -1 for none. */
static double
median (double *v, int n)
{
  if (n <= 0)
    return -1;
  qsort (v, n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Frames/s of @s: the median of its rounds, -1 when a run failed. */
static double
series_fps (const Series * s)
{
  double v[MAX_RUNS];

  if (s->failed)
    return -1;
  memcpy (v, s->fps, s->runs * sizeof (double));
  return median (v, s->runs);
}

/* The row of @s, with the ratio to @base_fps when it is > 0. */
static void
series_row (const Series * s, double base_fps)
{
  const double fps = series_fps (s);
  char note[512], per_frame[48] = "", ratio[48] = "", spread[64] = "";
  double lo = -1, hi = -1;

  for (int k = 0; k < s->runs; k++) {
    lo = k == 0 || s->fps[k] < lo ? s->fps[k] : lo;
    hi = k == 0 || s->fps[k] > hi ? s->fps[k] : hi;
  }
  if (fps > 0) {
    snprintf (per_frame, sizeof (per_frame), "%.2f us/frame; ", 1e6 / fps);
    snprintf (spread, sizeof (spread), "median of %d runs (%.0f .. %.0f); ",
        s->runs, lo, hi);
  }
  if (fps > 0 && base_fps > 0)
    snprintf (ratio, sizeof (ratio), "x%.2f vs fif=1; ", fps / base_fps);
  snprintf (note, sizeof (note), "%s%s%smemory %s; %s; %d frames",
      per_frame, ratio, spread, *s->r.memories ? s->r.memories : "?",
      s->r.note, s->frames);
  row (s->section, s->name, "RGBA", pipes[s->id].size,
      pipes[s->id].in_cuda ? "cuda" : "pinned", -1, -1,
      fps > 0 ? fps * pipes[s->id].bytes / 1e9 : -1, fps, note);
}

static void
series_clear (Series * s)
{
  g_free (s->elements);
  gst_caps_unref (s->caps);
}

/* A check row: whether @id written without the capsfilters between its
 * elements (as in the README's launch lines) negotiates the memories it
 * is measured with. */
static void
negotiation_row (PipeId id, int frames, const guint default_fif[N_ELEMENTS],
    gboolean have_elements, GRand * rand)
{
  GstCaps *caps = pipe_caps (id);
  PipeResult r = { -1, -1 };
  char name[64], note[512];
  int held;
  gchar *elements = pipe_elements (id, 0, TRUE, default_fif, &held);

  snprintf (name, sizeof (name), "%s as written", pipes[id].id);
  if (!have_elements)
    snprintf (note, sizeof (note), "FAILED: an element is missing");
  else if (!run_pipeline (elements, pipes[id].out_caps, caps, TRUE, frames,
          held, pipes[id].bytes, rand, &r))
    snprintf (note, sizeof (note), "%s; %s", r.note, elements);
  else
    snprintf (note, sizeof (note), "%s: negotiates %s%s%s (%.0f frames/s); "
        "%s", strcmp (r.memories, pipes[id].expect) ? "MISMATCH" : "OK",
        r.memories, strcmp (r.memories, pipes[id].expect) ? ", not " : "",
        strcmp (r.memories, pipes[id].expect) ? pipes[id].expect : "", r.fps,
        elements);
  if (strncmp (note, "OK", 2))
    bench_exit_status = 2;
  row ("check", name, "RGBA", pipes[id].size, "pinned", -1, -1, -1, -1,
      note);
  g_free (elements);
  gst_caps_unref (caps);
}

/* A row saying whether @s reaches @percent of its ceiling: the median
 * over the rounds of the round's frames/s against the round's ceiling
 * (@ceiling_us, the overlapped copies measured just before). */
static void
ceiling_row (const Series * s, const double *ceiling_us, double percent,
    const char *copies)
{
  char name[64], note[320];
  double ratio[MAX_RUNS], ceiling[MAX_RUNS];
  const double fps = series_fps (s);

  snprintf (name, sizeof (name), "%s: %% of the ceiling", pipes[s->id].id);
  for (int k = 0; k < s->runs; k++) {
    ratio[k] = 100 * s->fps[k] * ceiling_us[k] / 1e6;
    ceiling[k] = 1e6 / ceiling_us[k];
  }
  if (fps > 0) {
    const double p = median (ratio, s->runs);

    snprintf (note, sizeof (note), "median %.0f of %.0f frames/s (%s "
        "overlapped, per round, median): %.1f%% (the median of the rounds' "
        "ratios, %.1f .. %.1f%%); target >= %.0f%%: %s", fps,
        median (ceiling, s->runs), copies, p, ratio[0], ratio[s->runs - 1],
        percent, p >= percent ? "met" : "NOT met");
  } else {
    snprintf (note, sizeof (note), "no ratio: the run failed");
  }
  row ("target", name, "RGBA", pipes[s->id].size, "pinned", -1, -1, -1, fps,
      note);
}

/* A row comparing the GPU-resident pipeline @id with its kernels' time.
 * With frames in flight the kernels of two frames may run at once, so the
 * pipeline can beat the kernels run one at a time. */
static void
kernel_row (PipeId id, double fps, double kernel_us, const char *kernels)
{
  char name[64], note[320], target[96] = "";
  const double us = fps > 0 ? 1e6 / fps : -1;

  snprintf (name, sizeof (name), "%s: vs its kernels", pipes[id].id);
  if (id == PIPE_C_STATS && fps > 0)
    snprintf (target, sizeof (target), "; target >= %.0f frames/s: %s",
        TARGET_C_FPS, fps >= TARGET_C_FPS ? "met" : "NOT met");
  if (us > 0 && kernel_us > 0)
    snprintf (note, sizeof (note), "%.2f us/frame against %.2f us of %s "
        "one frame at a time: %.0f%% of their rate%s", us, kernel_us,
        kernels, 100 * kernel_us / us, target);
  else
    snprintf (note, sizeof (note), "%s%s", us > 0 ? "no kernel time (run "
        "without --no-kernel)" : "the run failed", target);
  row ("target", name, "RGBA", pipes[id].size, "cuda", -1, -1, -1, fps,
      note);
}

/* -------------------------------------------------------------- main */

/* Whether --pipelines names @id (all when it is not given). */
static gboolean
selected (const char *id)
{
  gchar **ids;
  gboolean found;

  if (!opt_pipelines)
    return TRUE;
  ids = g_strsplit (opt_pipelines, ",", -1);
  found = g_strv_contains ((const gchar * const *) ids, id);
  g_strfreev (ids);
  return found;
}

int
main (int argc, char **argv)
{
  struct cudaDeviceProp prop;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version, *desc[N_PIPES];
  guint default_fif[N_ELEMENTS] = { 2, 2, 2, 2 };
  int iters, warmup, frames, gpu_frames;
  double stats_us = -1, chain_us = -1;
  gboolean have_elements = TRUE;

  if (!bench_parse_options ("bench-pipelines", "- time the video elements "
          "chained, from system memory and in CUDA memory", entries, &argc,
          &argv))
    return 1;
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_frames > 0 ? opt_frames : opt_quick ? 40 : 1000;
  gpu_frames = opt_gpu_frames > 0 ? opt_gpu_frames : opt_quick ? 400 : 20000;

  /* a missing element fails the pipeline rows only */
  if (!bench_open ("bench-pipelines", NULL, opt_csv))
    return 1;
  bench_start ("bench-pipelines", opt_quick, opt_commit, &prop, &date,
      &commit, &gst_version);
  if (!opt_no_pipeline)
    for (int e = 0; e < N_ELEMENTS; e++)
      have_elements = bench_plugin_line (element_names[e], &default_fif[e])
          && have_elements;
  for (int p = 0; p < N_PIPES; p++) {
    desc[p] = pipe_description ((PipeId) p, default_fif);
    printf ("pipeline %-3s %s\n", pipes[p].id, desc[p]);
  }
  printf ("kernel: GPU time of each call (CUDA event pair), %d timed after "
      "%d warm-up; frames/s = 1e6 / median\nsysmem/gpu/fif: wall clock from "
      "the first timed push to EOS, %d frames (sysmem, fif a) or %d (gpu, "
      "fif c); GB/s = frames/s x (input + output frame bytes) for sysmem, "
      "x input frame bytes for gpu\n", iters, warmup, frames, gpu_frames);
  {
    const char *const meta[][2] = { {"date", date}, {"commit", commit},
    {"device", prop.name}, {"gstreamer", gst_version},
    {"pipeline a", desc[PIPE_A]}, {"pipeline b", desc[PIPE_B]},
    {"pipeline b'", desc[PIPE_B_SYSTEM]}, {"pipeline c1", desc[PIPE_C_STATS]},
    {"pipeline c2", desc[PIPE_C_CHAIN]}
    };
    table_header (meta, G_N_ELEMENTS (meta));
  }

  if (!opt_no_kernel)
    bench_kernels (prop.l2CacheSize, rand, iters, warmup, &stats_us,
        &chain_us);
  if (!opt_no_pipeline) {
    static const guint fifs[] = { 1, 2, 3, 4 };
    const int runs = CLAMP (opt_runs > 0 ? opt_runs : opt_quick ? 1 : 5, 1,
        MAX_RUNS);
    const int ceiling_iters = MAX (iters / 10, 10);
    double ceiling_a[MAX_RUNS], ceiling_b[MAX_RUNS];
    Series series[N_PIPES + 2 * G_N_ELEMENTS (fifs)];
    int n = 0, row_of[N_PIPES];

    /* the ceilings' table, once */
    bench_transfers ("RGBA", SIZE_4K, (size_t) BYTES_4K, "4K",
        (size_t) BYTES_4K, "4K", MAX (iters / 4, 10));
    bench_transfers ("RGBA", SIZE_DOWN, (size_t) BYTES_4K, "4K",
        (size_t) BYTES_1080, "1080p", MAX (iters / 4, 10));
    for (int p = 0; p < N_PIPES; p++) {
      row_of[p] = -1;
      if (selected (pipes[p].id)) {
        row_of[p] = n;
        series_init (&series[n++], pipes[p].in_cuda ? "gpu" : "sysmem",
            NULL, (PipeId) p, 0, pipes[p].in_cuda ? gpu_frames : frames, -1,
            default_fif);
      }
    }
    /* (d): a and c1 with 1, 2, 3 and 4 frames in flight on every element */
    for (int d = 0; d < 2; d++) {
      const PipeId id = d ? PIPE_C_STATS : PIPE_A;
      const int first = n;

      if (!selected (d ? "dc1" : "da"))
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (fifs); k++) {
        char name[64];

        snprintf (name, sizeof (name), "%s fif=%u", pipes[id].id, fifs[k]);
        series_init (&series[n++], "fif", name, id, fifs[k],
            d ? gpu_frames : frames, k ? first : -1, default_fif);
      }
    }
    for (int k = 0; k < runs; k++) {
      ceiling_a[k] = bench_overlapped_us ((size_t) BYTES_4K,
          (size_t) BYTES_4K, ceiling_iters);
      ceiling_b[k] = bench_overlapped_us ((size_t) BYTES_4K,
          (size_t) BYTES_1080, ceiling_iters);
      for (int i = 0; i < n; i++)
        series_run (&series[i], have_elements, rand);
    }
    for (int i = 0; i < n; i++)
      series_row (&series[i], series[i].base >= 0 ?
          series_fps (&series[series[i].base]) : -1);
    for (int p = PIPE_A; p <= PIPE_B; p++)
      if (selected (pipes[p].id))
        negotiation_row ((PipeId) p, opt_quick ? 40 : 100, default_fif,
            have_elements, rand);
    if (row_of[PIPE_A] >= 0)
      ceiling_row (&series[row_of[PIPE_A]], ceiling_a, TARGET_A_PERCENT,
          "4K upload + 4K download");
    if (row_of[PIPE_B] >= 0)
      ceiling_row (&series[row_of[PIPE_B]], ceiling_b, TARGET_B_PERCENT,
          "4K upload + 1080p download");
    if (row_of[PIPE_C_STATS] >= 0)
      kernel_row (PIPE_C_STATS, series_fps (&series[row_of[PIPE_C_STATS]]),
          stats_us, "cf_stats_cuda ()");
    if (row_of[PIPE_C_CHAIN] >= 0)
      kernel_row (PIPE_C_CHAIN, series_fps (&series[row_of[PIPE_C_CHAIN]]),
          chain_us, "the five kernels back to back");
    for (int i = 0; i < n; i++)
      series_clear (&series[i]);
  }

  if (bench_exit_status)
    printf ("\nbench-pipelines: a check or a run FAILED (see the notes)\n");
  if (bench_csv)
    fclose (bench_csv);
  bench_finish ();
  /* the strings go with the process */
  g_rand_free (rand);
  return bench_exit_status;
}

/* bench-stencil: how fast the 1D stencil kernels (cudastencil) are, and
 * against what.
 *
 * kernel    GPU time of one cf_stencil_cuda () call on frames already in
 *           device memory, rotating over enough source/destination pairs
 *           that L2 cannot hold them; random frames, gaussian taps
 *           (sigma = radius / 2, normalized), clamp border unless named.
 *           4K RGBA both ways at radius 1 .. 64, then a line saying up to
 *           which radius the time stays near the copy (memory-bound) and
 *           from which the taps set it (compute-bound); 4K RGBA horizontal
 *           and vertical only at radius 8; 4K NV12, I420, GRAY8 and
 *           GRAY16_LE and 1080p RGBA, NV12 and GRAY8 both ways at radius 1,
 *           8 and 64. Each configuration is first checked equal to
 *           cf_stencil_cpu (), byte for byte (check rows). GB/s counts one
 *           read and one write of the frame; the note gives the
 *           multiply-adds per second: every sample of the frame (copied
 *           alpha too, which the kernel computes anyway) times the taps of
 *           the axes filtered.
 * border    4K RGBA both ways at radius 8 with each border: near equal, as
 *           only the tiles at the edges differ.
 * ceiling   per format and size, a device-to-device copy of the frame: as
 *           many bytes read and written as the stencil, the memory floor.
 *           Beside the pipeline rows, the PCIe ceiling: the upload and the
 *           download of a 4K RGBA frame alone and overlapped, from and to
 *           pinned memory.
 * pipeline  appsrc (4K RGBA) ! cudastencil preset=gaussian radius=8
 *           direction=both ! video/x-raw ! fakesink (system memory in and
 *           out), buffers from the element's proposed (pinned) pool,
 *           frames-in-flight at its default: frames/s from the first timed
 *           push to EOS.
 * cpu       the same with backend=cpu, from malloc'ed buffers, on all the
 *           cores (n-threads=0) and on one thread (n-threads=1).
 *           --cpu-only runs these rows alone, without a CUDA device.
 *
 * Run with the plugin on GST_PLUGIN_PATH; --help lists the options.
 */
#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"

#include "format.h"
#include "stencil.h"

static gboolean opt_quick, opt_no_pipeline, opt_no_kernel, opt_cpu_only;
static gint opt_frames, opt_iters, opt_min_radius = 1,
    opt_max_radius = CF_STENCIL_MAX_RADIUS;
static gchar *opt_csv, *opt_commit;

static GOptionEntry entries[] = {
  {"quick", 0, 0, G_OPTION_ARG_NONE, &opt_quick,
      "Few iterations (smoke test, not for reporting)", NULL},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames,
      "Frames per pipeline run (default 600, --quick 40; backend=cpu runs "
        "1/60 of it, at least 10, --quick 3)", "N"},
  {"iterations", 0, 0, G_OPTION_ARG_INT, &opt_iters,
      "Timed launches per kernel row (default 200, --quick 20)", "N"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv,
      "Also write the rows as CSV to FILE", "FILE"},
  {"commit", 0, 0, G_OPTION_ARG_STRING, &opt_commit,
      "Commit to print (default: git rev-parse --short HEAD)", "REV"},
  {"no-pipeline", 0, 0, G_OPTION_ARG_NONE, &opt_no_pipeline,
      "Skip the GStreamer sections", NULL},
  {"no-kernel", 0, 0, G_OPTION_ARG_NONE, &opt_no_kernel,
      "Skip the kernel and ceiling section", NULL},
  {"cpu-only", 0, 0, G_OPTION_ARG_NONE, &opt_cpu_only,
      "Only the cpu rows (backend=cpu): no CUDA device needed", NULL},
  {"min-radius", 0, 0, G_OPTION_ARG_INT, &opt_min_radius,
      "Kernel rows from this radius on only (default 1: all)", "R"},
  {"max-radius", 0, 0, G_OPTION_ARG_INT, &opt_max_radius,
      "Kernel rows up to this radius only (default 64: all)", "R"},
  {NULL}
};

static const char *direction_names[CF_STENCIL_DIRECTION_COUNT] = {
  "horizontal", "vertical", "both"
};

static const char *border_names[CF_STENCIL_BORDER_COUNT] = {
  "clamp", "mirror", "wrap", "constant"
};

#define W4K 3840
#define H4K 2160
/* time within this factor of the copy: memory-bound */
#define MEMORY_BOUND 1.25
/* int32 multiply-adds per clock and SM: the CUDA programming guide's
 * figure for compute capability 7.0 .. 9.0 */
#define IMAD_PER_CLOCK 64

/* The kernel rows of one format and size: their frames and what they all
 * print. */
typedef struct
{
  BenchFrames src, dst;         /* pair i: source frame i, destination i */
  char size[32];
  double samples;               /* per frame, every plane, alpha too */
  double copy_us;               /* the ceiling's median */
  double imad_peak;             /* multiply-adds per second */
  int iters, warmup;
} Case;

/* -------------------------------------------------------------- timing */

typedef struct
{
  gboolean copy;                /* the ceiling instead of the stencil */
  const Case *c;
  const CfStencilDevicePlan *d_plan;
  void *d_ws;
} Work;

static cudaError_t
launch (const void *work, int i)
{
  const Work *w = work;
  CfImage src, dst;

  if (w->copy)
    return bench_frames_copy (&w->c->src, &w->c->dst, i, w->c->src.bytes);
  src = bench_frames_image (&w->c->src, i);
  dst = bench_frames_image (&w->c->dst, i);
  return cf_stencil_cuda (w->d_plan, &src, &dst, w->d_ws, bench_stream);
}

static void
timing_row (const char *section, const char *name, const Case * c, Timing t,
    const char *note)
{
  char buf[256];

  snprintf (buf, sizeof (buf), "%s%s", note, timing_flag (t));
  row (section, name, cf_format_info (c->src.format)->name, c->size, "random",
      t.median_us, t.min_us, 2.0 * c->src.bytes / (t.median_us * 1e3), -1, buf);
}

/* ------------------------------------------------------------ kernel */

static void
case_open (Case * c, CfFormat format, int width, int height, double imad_peak,
    size_t l2_bytes, GRand * rand, int iters, int warmup)
{
  const CfFormatInfo *fi = cf_format_info (format);
  int n;

  memset (c, 0, sizeof (*c));
  snprintf (c->size, sizeof (c->size), "%dx%d", width, height);
  for (int p = 0; p < fi->n_planes; p++)
    c->samples += (double) cf_plane_width (format, p, width) *
        cf_plane_height (format, p, height) *
        (fi->plane[p].pixel_bytes / fi->plane[p].sample_bytes);
  c->imad_peak = imad_peak;
  c->iters = iters;
  c->warmup = warmup;
  bench_frames_layout (&c->src, format, width, height);
  bench_frames_layout (&c->dst, format, width, height);
  n = bench_frames_pairs (&c->src, &c->dst, l2_bytes);
  bench_frames_alloc (&c->src, n);
  bench_frames_alloc (&c->dst, n);
  bench_frames_fill_random (&c->src, rand);
}

static void
case_close (Case * c)
{
  bench_frames_free (&c->src);
  bench_frames_free (&c->dst);
}

/* The copy ceiling of @c's frames, first: the kernel rows compare with it. */
static void
case_ceiling (Case * c)
{
  Work w = { TRUE, c };
  Timing t = time_launches (launch, &w, c->src.n, c->warmup, c->iters, TRUE);
  char note[160];

  snprintf (note, sizeof (note), "cudaMemcpyAsync D2D of the frame = %.1f MB;"
      " %d pairs rotated", c->src.bytes / 1e6, c->src.n);
  timing_row ("ceiling", "d2d copy", c, t, note);
  c->copy_us = t.median_us;
}

static double
mac_rate (const Case * c, int taps, double us)
{
  return c->samples * taps / (us * 1e-6);
}

/* Checks one configuration against cf_stencil_cpu () on the last pair, then
 * times it as a row of @section; @extra (may be "") ends the note. */
static Timing
case_stencil (Case * c, const char *section, CfStencilDirection direction,
    int radius, CfStencilBorder border, CfStencilKernels kernels,
    const char *extra)
{
  const BenchFrames *dst = &c->dst;
  const int last = dst->n - 1;
  const char *fmt = cf_format_info (dst->format)->name;
  double taps[CF_STENCIL_MAX_TAPS], sigma = radius / 2.0;
  const CfStencilTaps axis = { radius, taps, TRUE };
  const CfStencilParams params = { direction, axis, axis, border };
  CfStencilPlan plan;
  CfStencilDevicePlan *d_plan = NULL;
  Work w = { FALSE, c };
  CfImage s = bench_frames_image (&c->src, -1);
  CfImage r = bench_frames_image (dst, -1);
  char name[64], note[256];
  size_t ws;
  int n_taps = 0;
  Timing t;

  for (int k = 0; k <= 2 * radius; k++)
    taps[k] = exp (-(k - radius) * (k - radius) / (2 * sigma * sigma));
  snprintf (name, sizeof (name), "%s r%d %s%s", direction_names[direction],
      radius, border_names[border], kernels == CF_STENCIL_KERNELS_CUDA_CORES
      ? " (cuda cores)" : "");
  if (cf_stencil_plan_init (&plan, dst->format, dst->width, dst->height,
          &params) != 0) {
    fprintf (stderr, "bench-stencil: no plan for %s %s %s\n", name, fmt,
        c->size);
    exit (1);
  }
  CHECK_CUDA (cf_stencil_device_plan_new (&plan, kernels, &d_plan));
  w.d_plan = d_plan;
  if ((ws = cf_stencil_device_plan_workspace_bytes (d_plan)))
    CHECK_CUDA (cudaMalloc (&w.d_ws, ws));

  CHECK_CUDA (launch (&w, last));
  memset (dst->host, 0, dst->stride);
  if (cf_stencil_cpu (&plan, &s, &r) != 0)
    snprintf (note, sizeof (note), "MISMATCH: cf_stencil_cpu () failed");
  else
    bench_frames_check (dst, last, note, sizeof (note));
  if (strcmp (note, "OK"))
    bench_exit_status = 2;
  row ("check", name, fmt, c->size, "random", -1, -1, -1, -1, note);

  if (direction != CF_STENCIL_VERTICAL)
    n_taps += 2 * plan.radius_x + 1;
  if (direction != CF_STENCIL_HORIZONTAL)
    n_taps += 2 * plan.radius_y + 1;
  t = time_launches (launch, &w, dst->n, c->warmup, c->iters, TRUE);
  snprintf (note, sizeof (note), "%s; %d MAC/sample: %.2f TMAC/s, %.0f%% of "
      "the int32 peak; %.2fx the copy; %d pairs rotated%s",
      cf_stencil_device_plan_describe (d_plan, 0), n_taps,
      mac_rate (c, n_taps, t.median_us) / 1e12,
      100 * mac_rate (c, n_taps, t.median_us) / c->imad_peak,
      t.median_us / c->copy_us, dst->n, extra);
  timing_row (section, name, c, t, note);

  if (w.d_ws)
    CHECK_CUDA (cudaFree (w.d_ws));
  cf_stencil_device_plan_free (d_plan);
  cf_stencil_plan_clear (&plan);
  return t;
}

/* Where the radius series of @c turns compute-bound: the last radius whose
 * time stays within MEMORY_BOUND of the copy, and the multiply-adds per
 * second beyond it (BOTH: 2 (2 r + 1) per sample). */
static void
bound_row (const Case * c, const int *radii, const Timing * t, int n)
{
  char note[256];
  int k = 0;

  while (k < n && t[k].median_us <= MEMORY_BOUND * c->copy_us)
    k++;
  if (k == n) {
    snprintf (note, sizeof (note), "within %.2fx of the d2d copy up to r%d: "
        "memory-bound throughout", MEMORY_BOUND, radii[n - 1]);
  } else {
    const double first = mac_rate (c, 4 * radii[k] + 2, t[k].median_us);
    const double last = mac_rate (c, 4 * radii[n - 1] + 2, t[n - 1].median_us);
    char head[64] = "", tail[64] = "";

    if (k)
      snprintf (head, sizeof (head), "memory-bound up to r%d; ", radii[k - 1]);
    if (k < n - 1)
      snprintf (tail, sizeof (tail), ", %.2f at r%d", last / 1e12,
          radii[n - 1]);
    snprintf (note, sizeof (note), "%smore than %.2fx the d2d copy from r%d "
        "on: compute-bound (%.2f TMAC/s there%s: %.0f%% of the int32 peak)",
        head, MEMORY_BOUND, radii[k], first / 1e12, tail,
        100 * last / c->imad_peak);
  }
  row ("kernel", "bound: both by radius", cf_format_info (c->src.format)->name,
      c->size, "random", -1, -1, -1, -1, note);
}

static void
bench_kernels (double imad_peak, size_t l2_bytes, GRand * rand, int iters,
    int warmup)
{
  static const int radii[] = { 1, 2, 4, 8, 16, 32, 64 };
  static const struct
  {
    CfFormat format;
    int width, height;
  } others[] = {
    {CF_FORMAT_NV12, W4K, H4K}, {CF_FORMAT_I420, W4K, H4K},
    {CF_FORMAT_GRAY8, W4K, H4K},
    {CF_FORMAT_GRAY16_LE, W4K, H4K}, {CF_FORMAT_RGBA, 1920, 1080},
    {CF_FORMAT_NV12, 1920, 1080}, {CF_FORMAT_GRAY8, 1920, 1080},
    {CF_FORMAT_RGBA, 1280, 720}, {CF_FORMAT_RGBA, 640, 480},
  };
  Timing t[G_N_ELEMENTS (radii)];
  Case c;

  case_open (&c, CF_FORMAT_RGBA, W4K, H4K, imad_peak, l2_bytes, rand, iters,
      warmup);
  case_ceiling (&c);
  guint n_radii = 0;

  for (guint k = 0; k < G_N_ELEMENTS (radii); k++) {
    if (radii[k] > opt_max_radius)
      break;
    if (radii[k] < opt_min_radius)
      continue;
    n_radii++;
    t[k] = case_stencil (&c, "kernel", CF_STENCIL_BOTH, radii[k],
        CF_STENCIL_CLAMP, CF_STENCIL_KERNELS_AUTO, radii[k] == 8 ?
        "; issue target on the H100: <= 40 us" : radii[k] == 1 ?
        "; target on the H100: <= 30 us" : radii[k] == 64 ?
        "; target on the H100: <= 200 us" : "");
    case_stencil (&c, "kernel", CF_STENCIL_BOTH, radii[k], CF_STENCIL_CLAMP,
        CF_STENCIL_KERNELS_CUDA_CORES, "");
  }
  if (n_radii == G_N_ELEMENTS (radii))
    bound_row (&c, radii, t, n_radii);
  if (opt_max_radius >= 8 && opt_min_radius <= 8) {
    case_stencil (&c, "kernel", CF_STENCIL_HORIZONTAL, 8, CF_STENCIL_CLAMP,
        CF_STENCIL_KERNELS_AUTO, "");
    case_stencil (&c, "kernel", CF_STENCIL_VERTICAL, 8, CF_STENCIL_CLAMP,
        CF_STENCIL_KERNELS_AUTO, "");
    /* the borders touch only the edges: near equal (clamp again, in the same
     * series) */
    for (int b = 0; b < CF_STENCIL_BORDER_COUNT; b++)
      case_stencil (&c, "border", CF_STENCIL_BOTH, 8, b,
          CF_STENCIL_KERNELS_AUTO, "");
  }
  case_close (&c);

  for (guint k = 0; k < G_N_ELEMENTS (others); k++) {
    case_open (&c, others[k].format, others[k].width, others[k].height,
        imad_peak, l2_bytes, rand, iters, warmup);
    case_ceiling (&c);
    static const int some[] = { 1, 8, 64 };
    for (guint i = 0; i < G_N_ELEMENTS (some); i++) {
      const int r = some[i];
      if (r < opt_min_radius || r > opt_max_radius)
        continue;
      case_stencil (&c, "kernel", CF_STENCIL_BOTH, r, CF_STENCIL_CLAMP,
          CF_STENCIL_KERNELS_AUTO, "");
      case_stencil (&c, "kernel", CF_STENCIL_BOTH, r, CF_STENCIL_CLAMP,
          CF_STENCIL_KERNELS_CUDA_CORES, "");
    }
    case_close (&c);
  }
}

/* ------------------------------------------------------------ pipeline */

#define PIPE_ELEMENT "cudastencil preset=gaussian radius=8 direction=both"

/* cudastencil on CUDA from its pinned pool, frames-in-flight at the
 * default (not with --cpu-only), then the CPU backend from malloc'ed
 * buffers on every core and on one thread. */
static void
bench_pipelines (GRand * rand, int frames, int cpu_frames, guint default_fif,
    gboolean have_element)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", "width", G_TYPE_INT, W4K, "height", G_TYPE_INT, H4K,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  char size[32], name[64], note[320];

  snprintf (size, sizeof (size), "%dx%d", W4K, H4K);
  for (int k = opt_cpu_only ? 1 : 0; k < 3; k++) {
    /* k 1: the CPU backend on every core, 2: on one thread */
    const int cpu = k > 0;
    gchar *element = cpu ? g_strdup_printf (PIPE_ELEMENT " backend=cpu "
        "n-threads=%d", k == 1 ? 0 : 1) : g_strdup (PIPE_ELEMENT
        " backend=cuda");
    const int n = cpu ? cpu_frames : frames;
    PipeResult r = { -1, -1 };

    if (cpu)
      snprintf (name, sizeof (name), "cudastencil cpu r8 x%u",
          k == 1 ? g_get_num_processors () : 1);
    else
      snprintf (name, sizeof (name), "cudastencil r8 fif=%u*", default_fif);
    if (!have_element)
      fail (&r, "no cudastencil element (is the plugin on GST_PLUGIN_PATH?)");
    else
      /* system memory out, as the PCIe ceiling beside it assumes */
      run_pipeline (element, "video/x-raw", caps, !cpu, n,
          cpu ? 1 : (int) default_fif, 2.0 * W4K * H4K * 4, rand, &r);
    snprintf (note, sizeof (note), "%s; %s%s; %d frames", r.note, element,
        cpu ? "" : " (* frames-in-flight default)", n);
    row (cpu ? "cpu" : "pipeline", name, "RGBA", size, cpu ? "malloc" : "pool",
        -1, -1, r.gbps, r.fps, note);
    g_free (element);
  }
  gst_caps_unref (caps);
}

/* -------------------------------------------------------------- main */

int
main (int argc, char **argv)
{
  struct cudaDeviceProp prop;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version, *cores;
  int iters, warmup, frames, clock_khz = 0;
  guint default_fif = 2;
  gboolean have_element = FALSE;
  double imad_peak;

  if (!bench_parse_options ("bench-stencil", "- time the cudastencil kernels against a "
      "copy ceiling, and the element", entries, &argc, &argv))
    return 1;
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_frames > 0 ? opt_frames : opt_quick ? 40 : 600;

  /* a missing element fails the pipeline rows only */
  bench_cpu_only = opt_cpu_only;
  if (!bench_open ("bench-stencil", NULL, opt_csv))
    return 1;
  bench_start ("bench-stencil", opt_quick, opt_commit, &prop, &date, &commit,
      &gst_version);
  cores = g_strdup_printf ("%u", g_get_num_processors ());
  printf ("cpu cores: %s\n", cores);
  if (!opt_no_pipeline)
    have_element = bench_plugin_line ("cudastencil", &default_fif);
  if (!opt_cpu_only)
    CHECK_CUDA (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate,
            0));
  imad_peak = 1e3 * clock_khz * prop.multiProcessorCount * IMAD_PER_CLOCK;
  printf ("int32 multiply-add peak: %.1f T/s (%d per clock and SM at %d MHz; "
      "the CUDA guide's rate for sm_70 .. sm_90)\n", imad_peak / 1e12,
      IMAD_PER_CLOCK, clock_khz / 1000);
  printf ("kernel/ceiling: GPU time of each call (CUDA event pair), %d timed "
      "after %d warm-up; GB/s = (frame read + frame write) / median; "
      "MAC/sample = taps x + taps y; memory-bound: within %.2fx of the copy\n"
      "pipeline/cpu: 4K RGBA in and out; wall clock from the first timed "
      "push to EOS; GB/s = frames/s x (input + output frame bytes)\n",
      iters, warmup, MEMORY_BOUND);
  {
    const char *const meta[][2] = { {"date", date}, {"commit", commit},
    {"device", prop.name}, {"gstreamer", gst_version}, {"cpu_cores", cores}
    };
    table_header (meta, G_N_ELEMENTS (meta));
  }

  if (!opt_no_kernel && !opt_cpu_only)
    bench_kernels (imad_peak, prop.l2CacheSize, rand, iters, warmup);
  if (!opt_no_pipeline) {
    if (!opt_cpu_only)
      bench_transfers ("RGBA", "3840x2160", (size_t) W4K * H4K * 4, "4K",
          (size_t) W4K * H4K * 4, "4K", MAX (iters / 4, 10));
    bench_pipelines (rand, frames, MAX (frames / 60, opt_quick ? 3 : 10),
        default_fif, have_element);
  }

  if (bench_exit_status)
    printf ("\nbench-stencil: a check or a run FAILED (see the notes)\n");
  if (bench_csv)
    fclose (bench_csv);
  bench_finish ();
  /* the strings go with the process */
  g_rand_free (rand);
  return bench_exit_status;
}

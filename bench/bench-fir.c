/* bench-fir: how fast cudaaudiofir is, and against what.
 *
 * 48 kHz F32 audio, 8 and 64 channels, 64 and 512 taps (a windowed-sinc
 * low-pass at 4 kHz); the real-time factor (RTF) is seconds of audio
 * filtered per second of wall (or GPU) time.
 *
 * check     cf_fir_cuda () against cf_fir_cpu () over a stream of buffers
 *           of every size below, bit for bit.
 * kernel    GPU time of one cf_fir_cuda () call on device-resident audio,
 *           buffers of 480, 1024 and 4096 frames (a CUDA event pair around
 *           each call, queued behind a GPU sleep so that the host's launch
 *           overhead is not timed), rotating over 8 buffers.
 * roundtrip host wall time of what the element does per buffer on CUDA:
 *           upload from pinned memory, the launch, download, synchronize
 *           (median and p99).
 * cpu       host time of one cf_fir_cpu () call: the CPU backend's kernel.
 * pipeline  appsrc ! ELEMENT ! fakesink, buffers of --buffer-frames frames
 *           (default 1024) from malloc, for cudaaudiofir backend=cuda and
 *           backend=cpu (latency=0), audiofirfilter (kernel set from C, the
 *           same taps, latency 0; FFT convolution for these lengths) and
 *           audiofirfilter low-latency=true (time-domain convolution):
 *           - latency: buffers pushed one at a time, each once the previous
 *             one is out (or held back by what the element reports as its
 *             latency); wall time from a buffer's push until its last frame
 *             reaches the sink, median and p99;
 *           - reported: the element's answer to the LATENCY query;
 *           - RTF: --seconds of audio (a fifth of it for the CPU elements)
 *             pushed at once, from the first push to EOS.
 *
 * Run with the plugin on GST_PLUGIN_PATH; --help lists the options.
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/audio/audio.h>
#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"
#include "fir.h"

#define RATE 48000
#define ROTATE 8                /* device buffers a kernel row cycles over */
#define TABLE_FORMAT "%-9s %-34s %3s %4s %6s %10s %10s %9s %11s  %s\n"

static gboolean opt_quick, opt_no_pipeline, opt_no_kernel;
static gint opt_iters, opt_buffer_frames, opt_latency_buffers;
static gdouble opt_seconds;
static gchar *opt_csv, *opt_commit;

static GOptionEntry entries[] = {
  {"quick", 0, 0, G_OPTION_ARG_NONE, &opt_quick,
      "Few iterations (smoke test, not for reporting)", NULL},
  {"iterations", 0, 0, G_OPTION_ARG_INT, &opt_iters,
      "Timed calls per kernel row (default 200, --quick 20)", "N"},
  {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &opt_seconds,
      "Seconds of audio per throughput run (default 20, --quick 2; a fifth "
        "for the CPU elements)", "S"},
  {"buffer-frames", 0, 0, G_OPTION_ARG_INT, &opt_buffer_frames,
      "Frames per buffer in the pipeline rows (default 1024)", "N"},
  {"latency-buffers", 0, 0, G_OPTION_ARG_INT, &opt_latency_buffers,
      "Buffers timed one by one per pipeline row (default 200, --quick "
        "20)", "N"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv,
      "Also write the rows as CSV to FILE", "FILE"},
  {"commit", 0, 0, G_OPTION_ARG_STRING, &opt_commit,
      "Commit to print (default: git rev-parse --short HEAD)", "REV"},
  {"no-pipeline", 0, 0, G_OPTION_ARG_NONE, &opt_no_pipeline,
      "Skip the GStreamer section", NULL},
  {"no-kernel", 0, 0, G_OPTION_ARG_NONE, &opt_no_kernel,
      "Skip the check, kernel, roundtrip and cpu sections", NULL},
  {NULL}
};

static const int channel_counts[] = { 8, 64 };
static const int tap_counts[] = { 64, 512 };
static const int buffer_frames[] = { 480, 1024, 4096 };

/* ---------------------------------------------------------------- rows */

static void
fir_header (const char *const meta[][2], guint n_meta)
{
  static const char *const cols[10] = { "section", "case", "ch", "taps",
    "frames", "median_us", "p99_us", "RTF", "reported_us", "note"
  };

  bench_table_header (TABLE_FORMAT, cols, "section,case,channels,taps,frames,"
      "median_us,p99_us,rtf,reported_us,note", meta, n_meta);
}

/* One row; negative numbers print as "-" (empty in the CSV). */
static void
fir_row (const char *section, const char *name, int channels, int taps,
    int frames, double median_us, double p99_us, double rtf,
    double reported_us, const char *note)
{
  const double x[4] = { median_us, p99_us, rtf, reported_us };
  char num[3][16], b[4][32];
  const char *f[10];

  snprintf (num[0], sizeof (num[0]), "%d", channels);
  snprintf (num[1], sizeof (num[1]), "%d", taps);
  snprintf (num[2], sizeof (num[2]), "%d", frames);
  for (int i = 0; i < 4; i++) {
    if (x[i] < 0 || isnan (x[i]))
      strcpy (b[i], "-");
    else
      snprintf (b[i], sizeof (b[i]), "%.1f", x[i]);
  }
  f[0] = section;
  f[1] = name;
  f[2] = num[0];
  f[3] = num[1];
  f[4] = num[2];
  f[5] = b[0];
  f[6] = b[1];
  f[7] = b[2];
  f[8] = b[3];
  f[9] = note;
  bench_table_row (TABLE_FORMAT, f);
}

static double
seconds_of (int frames)
{
  return (double) frames / RATE;
}

/* The @p quantile of @n sorted values. */
static double
quantile (const double *sorted, int n, double p)
{
  int i = (int) ceil (p * n) - 1;

  return sorted[CLAMP (i, 0, n - 1)];
}

/* The taps every row filters with: a low-pass at 4 kHz. */
static double *
make_taps (int n)
{
  double *taps = g_new (double, n);

  if (cf_fir_design (taps, n, CF_FIR_LOWPASS, 4000.0, 0.0, RATE,
          CF_FIR_WINDOW_HAMMING) != 0) {
    fprintf (stderr, "bench-fir: cannot design %d taps\n", n);
    exit (1);
  }
  return taps;
}

static float *
random_audio (GRand * rand, size_t samples)
{
  float *p = g_new (float, samples);

  for (size_t i = 0; i < samples; i++)
    p[i] = g_rand_double_range (rand, -1.0, 1.0);
  return p;
}

/* -------------------------------------------------------------- kernel */

typedef struct
{
  CfFirDevice *d_fir;
  void *d_in[ROTATE], *d_out[ROTATE];
  int frames;
} Work;

static cudaError_t
launch (const void *work, int i)
{
  const Work *w = work;

  return cf_fir_cuda (w->d_fir, w->d_in[i], w->d_out[i], w->frames,
      bench_stream);
}

/* A stream of buffers of every size through the GPU and the CPU: the same
 * bits, or the row says where they differ. */
static void
check_case (int channels, const double *taps, int n_taps, GRand * rand)
{
  int total = 0;
  float *in, *want, *got;
  void *d_in, *d_out;
  CfFir fir;
  CfFirDevice *d_fir;
  char note[160] = "OK";
  size_t i, samples;

  for (guint k = 0; k < G_N_ELEMENTS (buffer_frames); k++)
    total += buffer_frames[k] + 1;
  samples = (size_t) channels *total;
  in = random_audio (rand, samples);
  want = g_new (float, samples);
  got = g_new (float, samples);
  CHECK_CUDA (cudaMalloc (&d_in, samples * sizeof (float)));
  CHECK_CUDA (cudaMalloc (&d_out, samples * sizeof (float)));
  CHECK_CUDA (cudaMemcpy (d_in, in, samples * sizeof (float),
          cudaMemcpyHostToDevice));
  if (cf_fir_init (&fir, CF_FIR_F32, channels, taps, n_taps) != 0) {
    fprintf (stderr, "bench-fir: cf_fir_init failed\n");
    exit (1);
  }
  CHECK_CUDA (cf_fir_device_new (&fir, &d_fir));
  /* 1-frame buffers between the sizes: history across tiny calls */
  for (int first = 0, k = 0; first < total; k++) {
    const int n = k % 2 ? 1 : buffer_frames[k / 2];
    const size_t off = (size_t) first * channels;

    cf_fir_cpu (&fir, in + off, want + off, n);
    CHECK_CUDA (cf_fir_cuda (d_fir, (float *) d_in + off, (float *) d_out + off,
            n, bench_stream));
    first += n;
  }
  CHECK_CUDA (cudaStreamSynchronize (bench_stream));
  CHECK_CUDA (cudaMemcpy (got, d_out, samples * sizeof (float),
          cudaMemcpyDeviceToHost));
  for (i = 0; i < samples; i++)
    if (memcmp (&got[i], &want[i], sizeof (float)) != 0)
      break;
  if (i < samples) {
    snprintf (note, sizeof (note), "MISMATCH at frame %zu channel %zu: "
        "GPU %.9g, CPU %.9g", i / channels, i % channels, got[i], want[i]);
    bench_exit_status = 2;
  }
  fir_row ("check", "cf_fir_cuda = cf_fir_cpu (bits)", channels, n_taps, total,
      -1, -1, -1, -1, note);
  cf_fir_device_free (d_fir);
  cf_fir_clear (&fir);
  CHECK_CUDA (cudaFree (d_in));
  CHECK_CUDA (cudaFree (d_out));
  g_free (in);
  g_free (want);
  g_free (got);
}

/* GPU time per call, the element's round trip, and the CPU kernel. */
static void
kernel_case (int channels, const double *taps, int n_taps, int frames,
    GRand * rand, int iters, int warmup)
{
  const size_t samples = (size_t) frames * channels;
  const size_t bytes = samples * sizeof (float);
  const double budget_us = opt_quick ? 2e5 : 2e6;
  float *h_in, *h_out, *cpu_out, *host = random_audio (rand, samples);
  double *t = g_new (double, iters), total_us;
  Work w = { NULL };
  CfFir fir;
  Timing timing;
  char note[160];
  int n;

  if (cf_fir_init (&fir, CF_FIR_F32, channels, taps, n_taps) != 0)
    exit (1);
  CHECK_CUDA (cf_fir_device_new (&fir, &w.d_fir));
  w.frames = frames;
  for (int i = 0; i < ROTATE; i++) {
    CHECK_CUDA (cudaMalloc (&w.d_in[i], bytes));
    CHECK_CUDA (cudaMalloc (&w.d_out[i], bytes));
    CHECK_CUDA (cudaMemcpy (w.d_in[i], host, bytes, cudaMemcpyHostToDevice));
  }

  timing = time_launches (launch, &w, ROTATE, warmup, iters, TRUE);
  snprintf (note, sizeof (note), "GPU time (events); min %.1f us%s",
      timing.min_us, timing_flag (timing));
  fir_row ("kernel", "cf_fir_cuda", channels, n_taps, frames,
      timing.median_us, -1, seconds_of (frames) * 1e6 / timing.median_us, -1,
      note);

  /* as the element: pinned staging in and out, one stream, synchronous */
  CHECK_CUDA (cudaHostAlloc ((void **) &h_in, bytes, cudaHostAllocDefault));
  CHECK_CUDA (cudaHostAlloc ((void **) &h_out, bytes, cudaHostAllocDefault));
  memcpy (h_in, host, bytes);
  for (int i = -warmup; i < iters; i++) {
    gint64 t0 = g_get_monotonic_time ();

    CHECK_CUDA (cudaMemcpyAsync (w.d_in[0], h_in, bytes,
            cudaMemcpyHostToDevice, bench_stream));
    CHECK_CUDA (cf_fir_cuda (w.d_fir, w.d_in[0], w.d_out[0], frames,
            bench_stream));
    CHECK_CUDA (cudaMemcpyAsync (h_out, w.d_out[0], bytes,
            cudaMemcpyDeviceToHost, bench_stream));
    CHECK_CUDA (cudaStreamSynchronize (bench_stream));
    if (i >= 0)
      t[i] = g_get_monotonic_time () - t0;
  }
  qsort (t, iters, sizeof (double), cmp_double);
  fir_row ("roundtrip", "upload + cf_fir_cuda + download", channels, n_taps,
      frames, quantile (t, iters, 0.5), quantile (t, iters, 0.99),
      seconds_of (frames) * 1e6 / quantile (t, iters, 0.5), -1,
      "host wall time, pinned staging, one stream");

  /* the CPU backend's kernel: as many calls as fit the time budget */
  cpu_out = g_new (float, samples);
  total_us = 0;
  for (n = 0; n < iters && (n < 3 || total_us < budget_us); n++) {
    gint64 t0 = g_get_monotonic_time ();

    cf_fir_cpu (&fir, host, cpu_out, frames);
    t[n] = g_get_monotonic_time () - t0;
    total_us += t[n];
  }
  qsort (t, n, sizeof (double), cmp_double);
  snprintf (note, sizeof (note), "host time, one thread, %d calls", n);
  fir_row ("cpu", "cf_fir_cpu", channels, n_taps, frames,
      quantile (t, n, 0.5), quantile (t, n, 0.99),
      seconds_of (frames) * 1e6 / quantile (t, n, 0.5), -1, note);

  CHECK_CUDA (cudaFreeHost (h_in));
  CHECK_CUDA (cudaFreeHost (h_out));
  for (int i = 0; i < ROTATE; i++) {
    CHECK_CUDA (cudaFree (w.d_in[i]));
    CHECK_CUDA (cudaFree (w.d_out[i]));
  }
  cf_fir_device_free (w.d_fir);
  cf_fir_clear (&fir);
  g_free (cpu_out);
  g_free (host);
  g_free (t);
}

/* ------------------------------------------------------------ pipeline */

/* What reaches the sink, and when each pushed buffer's last frame did. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint64 out_frames;
  int frames;                   /* per pushed buffer */
  int pushed, delivered;
  gint64 *push_us;              /* [pushed] */
  double *latency_us;           /* [delivered] */
  int capacity;
  gsize bpf;
} Arrivals;

static GstPadProbeReturn
on_output (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  Arrivals *a = user;
  const gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&a->lock);
  a->out_frames += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info)) /
      a->bpf;
  while (a->delivered < a->pushed &&
      (guint64) (a->delivered + 1) * a->frames <= a->out_frames) {
    if (a->delivered < a->capacity)
      a->latency_us[a->delivered] = now - a->push_us[a->delivered];
    a->delivered++;
  }
  g_cond_broadcast (&a->cond);
  g_mutex_unlock (&a->lock);
  return GST_PAD_PROBE_OK;
}

static gboolean
push (GstElement * src, GstBuffer * buf, guint64 index, int frames,
    Arrivals * a, PipeResult * r)
{
  GstBuffer *b = gst_buffer_copy (buf);
  GstFlowReturn ret;

  GST_BUFFER_PTS (b) = gst_util_uint64_scale_int (index * frames, GST_SECOND,
      RATE);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int ((index + 1) * frames,
      GST_SECOND, RATE) - GST_BUFFER_PTS (b);
  GST_BUFFER_OFFSET (b) = index * frames;
  if (a) {
    g_mutex_lock (&a->lock);
    if (a->pushed < a->capacity)
      a->push_us[a->pushed] = g_get_monotonic_time ();
    a->pushed++;
    g_mutex_unlock (&a->lock);
  }
  if ((ret = gst_app_src_push_buffer (GST_APP_SRC (src), b)) != GST_FLOW_OK)
    return fail (r, "push returned %s", gst_flow_get_name (ret));
  return TRUE;
}

/* Waits until at least @frames frames reached the sink; FALSE on an error
 * or after 30 s. */
static gboolean
wait_frames (Arrivals * a, GstBus * bus, guint64 frames, PipeResult * r)
{
  const gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
  GstMessage *msg;
  gboolean ok = TRUE;

  g_mutex_lock (&a->lock);
  while (ok && a->out_frames < frames) {
    g_mutex_unlock (&a->lock);
    if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)))
      return bus_error (msg, r);
    g_mutex_lock (&a->lock);
    if (!g_cond_wait_until (&a->cond, &a->lock, MIN (end,
                g_get_monotonic_time () + 10000)) &&
        g_get_monotonic_time () > end)
      ok = fail (r, "stalled at %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
          " frames", a->out_frames, frames);
  }
  g_mutex_unlock (&a->lock);
  return ok;
}

/* Waits until caps reached @sink: the element knows its rate, and so its
 * latency. FALSE on an error or after 30 s. */
static gboolean
wait_negotiated (GstElement * sink, GstBus * bus, PipeResult * r)
{
  const gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstMessage *msg;
  gboolean ok = TRUE;

  while (ok && !gst_pad_has_current_caps (pad)) {
    if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)))
      ok = bus_error (msg, r);
    else if (g_get_monotonic_time () > end)
      ok = fail (r, "no caps within 30 s");
    else
      g_usleep (200);
  }
  gst_object_unref (pad);
  return ok;
}

/* The frames the element reports as its latency, in @reported_us. */
static guint64
query_latency (GstElement * sink, double *reported_us)
{
  GstQuery *q = gst_query_new_latency ();
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstClockTime min = 0, max;
  gboolean live;

  *reported_us = -1;
  if (gst_pad_peer_query (pad, q)) {
    gst_query_parse_latency (q, &live, &min, &max);
    *reported_us = min / 1e3;
  }
  gst_query_unref (q);
  gst_object_unref (pad);
  return gst_util_uint64_scale_round (min, RATE, GST_SECOND);
}

typedef struct
{
  const char *name;             /* the row's */
  const char *element;          /* gst-launch description */
  gboolean peer;                /* audiofirfilter: kernel set from C */
  gboolean cpu;                 /* runs on the host: shorter throughput run */
} Element;

static const Element elements[] = {
  {"cudaaudiofir backend=cuda", "cudaaudiofir backend=cuda latency=0", FALSE,
      FALSE},
  {"cudaaudiofir backend=cpu", "cudaaudiofir backend=cpu latency=0", FALSE,
      TRUE},
  {"audiofirfilter (FFT)", "audiofirfilter latency=0", TRUE, TRUE},
  {"audiofirfilter low-latency=true", "audiofirfilter latency=0 "
        "low-latency=true", TRUE, TRUE},
};

static void
set_taps (GstElement * el, const Element * e, const double *taps, int n)
{
  if (e->peer) {
    /* audiofirfilter's kernel is a GValueArray: settable from C only */
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
    GValueArray *va = g_value_array_new (n);
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    for (int i = 0; i < n; i++) {
      g_value_set_double (&v, taps[i]);
      g_value_array_append (va, &v);
    }
    g_object_set (el, "kernel", va, NULL);
    g_value_array_free (va);
    G_GNUC_END_IGNORE_DEPRECATIONS;
  } else {
    GString *s = g_string_new (NULL);
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    for (int i = 0; i < n; i++)
      g_string_append_printf (s, "%s%s", i ? "," : "",
          g_ascii_dtostr (buf, sizeof (buf), taps[i]));
    g_object_set (el, "taps", s->str, NULL);
    g_string_free (s, TRUE);
  }
}

static void
pipeline_case (const Element * e, int channels, const double *taps,
    int n_taps, int frames, GRand * rand)
{
  const int warmup = 10;
  const int timed = opt_latency_buffers > 0 ? opt_latency_buffers :
      opt_quick ? 20 : 200;
  const double seconds = (opt_seconds > 0 ? opt_seconds : opt_quick ? 2 : 20)
      / (e->cpu ? 5 : 1);
  const int stream_buffers = MAX (1, (int) (seconds * RATE / frames));
  gchar *desc = g_strdup_printf ("appsrc name=src ! %s name=el ! "
      "fakesink name=sink sync=false enable-last-sample=false", e->element);
  gchar *caps_str = g_strdup_printf ("audio/x-raw,format=%s,rate=%d,"
      "channels=%d,layout=interleaved,channel-mask=(bitmask)0",
      GST_AUDIO_NE (F32), RATE, channels);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstElement *pipeline, *src = NULL, *el = NULL, *sink = NULL;
  GstBuffer *bufs[POOL_BUFFERS] = { NULL };
  Arrivals a = { 0 };
  GstBus *bus = NULL;
  GstPad *pad;
  GstMessage *msg;
  GError *err = NULL;
  PipeResult r = { 0 };
  guint64 index = 0, held;
  double reported_us = -1, median = -1, p99 = -1, rtf = -1;
  gint64 t0;
  char note[256];

  g_mutex_init (&a.lock);
  g_cond_init (&a.cond);
  a.frames = frames;
  a.bpf = channels * sizeof (float);
  a.capacity = warmup + timed;
  a.push_us = g_new0 (gint64, a.capacity);
  a.latency_us = g_new0 (double, a.capacity);

  pipeline = gst_parse_launch (desc, &err);
  if (err) {
    fail (&r, "%s", err->message);
    g_clear_error (&err);
    goto done;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  el = gst_bin_get_by_name (GST_BIN (pipeline), "el");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  set_taps (el, e, taps, n_taps);
  /* unbounded: a push never blocks, so the throughput run queues it all */
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, "block", FALSE,
      "max-bytes", (guint64) 0, NULL);
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_output, &a, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipeline);
  for (int i = 0; i < POOL_BUFFERS; i++) {
    float *p = random_audio (rand, (size_t) frames * channels);

    bufs[i] = gst_buffer_new_wrapped (p, (size_t) frames * channels *
        sizeof (float));
  }
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    fail (&r, "could not start the pipeline");
    goto done;
  }

  /* latency: one buffer at a time; an element may hold back what it
   * reports (audiofirfilter's FFT block), so wait only for the rest */
  if (!push (src, bufs[0], index++, frames, &a, &r) ||
      !wait_negotiated (sink, bus, &r))
    goto done;
  held = query_latency (sink, &reported_us);
  for (int i = 1; i < warmup + timed; i++) {
    const guint64 in = (guint64) (index + 1) * frames;

    if (!push (src, bufs[i % POOL_BUFFERS], index++, frames, &a, &r) ||
        !wait_frames (&a, bus, in > held ? in - held : 0, &r))
      goto done;
  }
  g_mutex_lock (&a.lock);
  {
    const int n = MIN (a.delivered, a.capacity) - warmup;

    if (n > 0) {
      qsort (a.latency_us + warmup, n, sizeof (double), cmp_double);
      median = quantile (a.latency_us + warmup, n, 0.5);
      p99 = quantile (a.latency_us + warmup, n, 0.99);
    }
  }
  g_mutex_unlock (&a.lock);

  /* throughput: everything queued at once, until EOS */
  t0 = g_get_monotonic_time ();
  for (int i = 0; i < stream_buffers; i++)
    if (!push (src, bufs[i % POOL_BUFFERS], index++, frames, NULL, &r))
      goto done;
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg) {
    fail (&r, "no EOS within 600 s");
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    bus_error (msg, &r);
  } else {
    rtf = seconds_of (stream_buffers * frames) /
        ((g_get_monotonic_time () - t0) / 1e6);
    gst_message_unref (msg);
  }

done:
  snprintf (note, sizeof (note), "%s%s%.1f s of audio; latency: %d buffers "
      "one by one", r.note, r.note[0] ? "; " : "",
      seconds_of (stream_buffers * frames), timed);
  fir_row ("pipeline", e->name, channels, n_taps, frames, median, p99, rtf,
      reported_us, note);
  if (pipeline)
    gst_element_set_state (pipeline, GST_STATE_NULL);
  for (int i = 0; i < POOL_BUFFERS; i++)
    gst_clear_buffer (&bufs[i]);
  gst_clear_object (&bus);
  gst_clear_object (&src);
  gst_clear_object (&el);
  gst_clear_object (&sink);
  gst_clear_object (&pipeline);
  gst_caps_unref (caps);
  g_free (caps_str);
  g_free (desc);
  g_free (a.push_us);
  g_free (a.latency_us);
  g_mutex_clear (&a.lock);
  g_cond_clear (&a.cond);
}

static void
pipelines (GRand * rand, int frames)
{
  GstElementFactory *peer = gst_element_factory_find ("audiofirfilter");

  for (guint c = 0; c < G_N_ELEMENTS (channel_counts); c++)
    for (guint t = 0; t < G_N_ELEMENTS (tap_counts); t++) {
      double *taps = make_taps (tap_counts[t]);

      for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
        if (elements[e].peer && !peer)
          fir_row ("pipeline", elements[e].name, channel_counts[c],
              tap_counts[t], frames, -1, -1, -1, -1, "not available "
              "(audiofirfilter, gst-plugins-good, is not installed)");
        else
          pipeline_case (&elements[e], channel_counts[c], taps,
              tap_counts[t], frames, rand);
      }
      g_free (taps);
    }
  g_clear_object (&peer);
}

/* -------------------------------------------------------------- main */

int
main (int argc, char **argv)
{
  struct cudaDeviceProp prop;
  GRand *rand = g_rand_new_with_seed (20240601);
  gchar *date, *commit, *gst_version, *cores;
  int iters, warmup, frames;

  if (!bench_parse_options ("bench-fir", "- time the cudaaudiofir kernel, its round "
      "trip, the element, and audiofirfilter", entries, &argc, &argv))
    return 1;
  iters = opt_iters > 0 ? opt_iters : opt_quick ? 20 : 200;
  warmup = opt_quick ? 3 : 20;
  frames = opt_buffer_frames > 0 ? opt_buffer_frames : 1024;

  if (!bench_open ("bench-fir", opt_no_pipeline ? NULL : "cudaaudiofir",
          opt_csv))
    return 1;
  bench_start ("bench-fir", opt_quick, opt_commit, &prop, &date, &commit,
      &gst_version);
  cores = g_strdup_printf ("%u", g_get_num_processors ());
  printf ("cpu cores: %s\n", cores);
  printf ("48 kHz F32, taps: windowed-sinc low-pass at 4 kHz; RTF = seconds "
      "of audio per second of (GPU or wall) time\n");
  {
    const char *const meta[][2] = { {"date", date}, {"commit", commit},
    {"device", prop.name}, {"gstreamer", gst_version}, {"cpu_cores", cores}
    };
    fir_header (meta, G_N_ELEMENTS (meta));
  }

  if (!opt_no_kernel)
    for (guint c = 0; c < G_N_ELEMENTS (channel_counts); c++)
      for (guint t = 0; t < G_N_ELEMENTS (tap_counts); t++) {
        double *taps = make_taps (tap_counts[t]);

        check_case (channel_counts[c], taps, tap_counts[t], rand);
        for (guint f = 0; f < G_N_ELEMENTS (buffer_frames); f++)
          kernel_case (channel_counts[c], taps, tap_counts[t],
              buffer_frames[f], rand, iters, warmup);
        g_free (taps);
      }
  if (!opt_no_pipeline)
    pipelines (rand, frames);

  if (bench_exit_status)
    printf ("\nbench-fir: a check or a run FAILED (see the notes)\n");
  if (bench_csv)
    fclose (bench_csv);
  bench_finish ();
  g_rand_free (rand);
  return bench_exit_status;
}

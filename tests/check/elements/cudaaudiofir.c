/* Element tests of cudaaudiofir.
 *
 * The oracle is cf_fir_cpu () run over the whole signal at once (followed
 * by silence for the drained tail): whatever the buffer sizes, the element
 * must give the same bytes, on either backend, so the CUDA run checks the
 * GPU against the CPU. Besides: impulse responses worked out by hand, a
 * plain float64 model of the convolution, the designed presets' taps and
 * gains, latency compensation (dropped head, shifted timestamps, drained
 * tail, the largest latency), DISCONT, flush (a drain's too), the LATENCY
 * query, taps from gst-launch syntax, changes while playing, and what must
 * be refused, and why.
 *
 * The program runs once per backend (CF_TEST_BACKEND, see ../meson.build):
 * every element made here gets backend=cf_test_backend_name ().
 * CF_TEST_SEED=N repeats a run.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cf-check.h"
#include "fir.h"

#define RATE 48000

typedef struct
{
  const gchar *name;            /* in caps */
  CfFirFormat fir;
} Format;

static const Format formats[] = {
  {GST_AUDIO_NE (F32), CF_FIR_F32},
  {GST_AUDIO_NE (F64), CF_FIR_F64},
  {GST_AUDIO_NE (S16), CF_FIR_S16},
};

#define FMT_F32 (&formats[0])
#define FMT_F64 (&formats[1])

static GRand *prng;

static void
setup (void)
{
  prng = g_rand_new_with_seed (cf_test_seed ());
}

static void
teardown (void)
{
  g_rand_free (prng);
}

/* ---- signals ------------------------------------------------------------ */

static gsize
bpf_of (const Format * f, gint channels)
{
  return cf_fir_sample_bytes (f->fir) * channels;
}

static gdouble
sample_at (const Format * f, const guint8 * p, gsize i)
{
  switch (f->fir) {
    case CF_FIR_F32:
      return ((const gfloat *) p)[i];
    case CF_FIR_F64:
      return ((const gdouble *) p)[i];
    default:
      return ((const gint16 *) p)[i];
  }
}

static void
set_sample (const Format * f, guint8 * p, gsize i, gdouble v)
{
  switch (f->fir) {
    case CF_FIR_F32:
      ((gfloat *) p)[i] = v;
      break;
    case CF_FIR_F64:
      ((gdouble *) p)[i] = v;
      break;
    default:
      ((gint16 *) p)[i] = v;
      break;
  }
}

/* @n frames of random samples (S16 within half the range, so that some
 * sums saturate and most do not). */
static guint8 *
random_signal (const Format * f, gint channels, guint n)
{
  const gsize count = (gsize) n * channels;
  guint8 *p = g_malloc (count * cf_fir_sample_bytes (f->fir) + 1);
  gsize i;

  for (i = 0; i < count; i++)
    set_sample (f, p, i, f->fir == CF_FIR_S16 ?
        g_rand_int_range (prng, -16384, 16384) :
        g_rand_double_range (prng, -1.0, 1.0));
  return p;
}

static gdouble *
random_taps (guint n, gdouble range)
{
  gdouble *t = g_new (gdouble, n);
  guint i;

  for (i = 0; i < n; i++)
    t[i] = g_rand_double_range (prng, -range, range);
  return t;
}

/* The taps as a gst-launch value that reads back to the same doubles. */
static gchar *
taps_string (const gdouble * taps, guint n)
{
  GString *s = g_string_new (NULL);
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint i;

  for (i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i ? "," : "",
        g_ascii_dtostr (buf, sizeof (buf), taps[i]));
  return g_string_free (s, FALSE);
}

/* The oracle: @in (@n frames) filtered by cf_fir_cpu () in one call, then
 * @tail frames of silence: n + tail frames. */
static guint8 *
reference (const Format * f, gint channels, const gdouble * taps,
    guint n_taps, const guint8 * in, guint n, guint tail)
{
  const gsize bpf = bpf_of (f, channels);
  guint8 *out = g_malloc ((n + tail) * bpf + 1);
  CfFir fir;

  fail_unless_equals_int (cf_fir_init (&fir, f->fir, channels, taps,
          n_taps), 0);
  fail_unless_equals_int (cf_fir_cpu (&fir, in, out, n), 0);
  fail_unless_equals_int (cf_fir_cpu (&fir, NULL, out + n * bpf, tail), 0);
  cf_fir_clear (&fir);
  return out;
}

/* @got equals @want, sample for sample, bit for bit; names the first
 * difference. */
static void
assert_samples (const Format * f, gint channels, const guint8 * got,
    const guint8 * want, guint n_frames, const gchar * what)
{
  const gsize count = (gsize) n_frames * channels;
  gsize i;

  if (memcmp (got, want, count * cf_fir_sample_bytes (f->fir)) == 0)
    return;
  for (i = 0; i < count; i++)
    if (memcmp (got + i * cf_fir_sample_bytes (f->fir),
            want + i * cf_fir_sample_bytes (f->fir),
            cf_fir_sample_bytes (f->fir)) != 0)
      break;
  fail ("%s (%s, %d channels): frame %" G_GSIZE_FORMAT " channel %"
      G_GSIZE_FORMAT " is %.17g, want %.17g", what, f->name, channels,
      i / channels, i % channels, sample_at (f, got, i), sample_at (f, want,
          i));
}

/* ---- the element -------------------------------------------------------- */

static GstClockTime
frame_time (guint64 frames)
{
  return gst_util_uint64_scale_int (frames, GST_SECOND, RATE);
}

static gchar *
caps_string (const Format * f, gint channels)
{
  /* more than two channels need a mask: 0 is "not positioned" */
  return g_strdup_printf ("audio/x-raw,format=%s,rate=%d,channels=%d,"
      "layout=interleaved%s", f->name, RATE, channels,
      channels > 2 ? ",channel-mask=(bitmask)0" : "");
}

/* cudaaudiofir on the run's backend, with the properties @props written as
 * on a gst-launch line (so gst_parse_launch () sets them), in a harness; the
 * caps set for @f (unless NULL) and @channels. With @bus, the element posts
 * its messages there. */
static GstHarness *
harness_new (const Format * f, gint channels, GstBus ** bus,
    const gchar * props, ...)
{
  gchar *p, *line, *caps;
  GError *err = NULL;
  GstElement *e;
  GstHarness *h;
  va_list args;

  va_start (args, props);
  p = g_strdup_vprintf (props, args);
  va_end (args);
  line = g_strdup_printf ("cudaaudiofir backend=%s %s",
      cf_test_backend_name (), p);
  e = gst_parse_launch (line, &err);
  fail_unless (e != NULL && err == NULL, "%s: %s", line,
      err ? err->message : "no element");
  g_free (p);
  g_free (line);
  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (e, *bus);
  }
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  if (f) {
    caps = caps_string (f, channels);
    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
  }
  return h;
}

/* Pushes frames first .. first + n - 1 of @data as one buffer, timed and
 * numbered as those frames of a stream that starts at @start. */
static void
push_frames (GstHarness * h, const guint8 * data, gsize bpf, guint64 first,
    guint n, GstClockTime start, gboolean discont)
{
  GstBuffer *buf = gst_buffer_new_memdup (data + first * bpf, n * bpf);

  GST_BUFFER_PTS (buf) = start + frame_time (first);
  GST_BUFFER_DURATION (buf) = frame_time (first + n) - frame_time (first);
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  if (discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
}

/* Sizes to cut a stream into: single frames, fewer frames than the taps,
 * as many, more, and large. */
static guint
random_split (guint left)
{
  static const guint sizes[] = { 1, 1, 2, 3, 5, 16, 36, 37, 38, 100, 333 };
  const guint size = sizes[g_rand_int_range (prng, 0, G_N_ELEMENTS (sizes))];

  return MIN (left, size);
}

/* Pushes @n frames of @data from @start, in one buffer or cut at random. */
static void
push_stream (GstHarness * h, const guint8 * data, gsize bpf, guint n,
    GstClockTime start, gboolean split)
{
  guint64 first;
  guint k;

  for (first = 0; first < n; first += k) {
    k = split ? random_split (n - first) : n - first;
    push_frames (h, data, bpf, first, k, start, FALSE);
  }
}

/* What came out of one stream: its frames, checked for timing as they come
 * (every buffer starts where the previous one ended, from @start, and is
 * numbered from 0). */
typedef struct
{
  GByteArray *data;
  guint64 frames;
  guint buffers;
  GstClockTime start;
  gboolean first_discont;
} Output;

static void
output_init (Output * out, GstClockTime start)
{
  memset (out, 0, sizeof (*out));
  out->data = g_byte_array_new ();
  out->start = start;
}

static void
output_clear (Output * out)
{
  g_byte_array_unref (out->data);
}

/* Pulls what the harness has, up to @max_frames frames in all (a buffer
 * may not go beyond: the stream ends there). */
static void
pull_output (GstHarness * h, gsize bpf, Output * out, guint64 max_frames)
{
  GstBuffer *b;

  while (out->frames < max_frames && (b = gst_harness_try_pull (h))) {
    GstMapInfo map;
    guint64 n;

    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size % bpf, 0);
    n = map.size / bpf;
    fail_unless (n > 0, "an empty buffer");
    fail_unless (out->frames + n <= max_frames, "a buffer of %" G_GUINT64_FORMAT
        " frames after %" G_GUINT64_FORMAT ", only %" G_GUINT64_FORMAT
        " expected", n, out->frames, max_frames);
    fail_unless_equals_clocktime (GST_BUFFER_PTS (b),
        out->start + frame_time (out->frames));
    fail_unless_equals_clocktime (GST_BUFFER_DURATION (b),
        frame_time (out->frames + n) - frame_time (out->frames));
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), out->frames);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (b), out->frames + n);
    if (out->buffers++ == 0)
      out->first_discont = GST_BUFFER_IS_DISCONT (b);
    g_byte_array_append (out->data, map.data, map.size);
    out->frames += n;
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
  }
}

/* Runs @n frames of @data through @h (which it frees) from @start, then
 * EOS; returns all that came out, checked for timing and count. */
static guint8 *
run_stream (GstHarness * h, const Format * f, gint channels,
    const guint8 * data, guint n, GstClockTime start, gboolean split)
{
  const gsize bpf = bpf_of (f, channels);
  Output out;
  guint8 *got;

  output_init (&out, start);
  push_stream (h, data, bpf, n, start, split);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_output (h, bpf, &out, n);
  fail_unless_equals_uint64 (out.frames, n);
  fail_unless (gst_harness_try_pull (h) == NULL, "more frames than went in");
  cf_check_harness_free (h, NULL);
  got = g_malloc (out.data->len + 1);
  memcpy (got, out.data->data, out.data->len);
  output_clear (&out);
  return got;
}

/* ---- tests -------------------------------------------------------------- */

/* An impulse on one channel gives the taps on that channel, zeros
 * elsewhere, in every format (values exact in all three). */
GST_START_TEST (test_impulse)
{
  static const gdouble taps[] = { 0.5, 0.25, -0.125, 1.0 };
  const Format *f = &formats[__i__ / 2];
  const gint channels = __i__ % 2 ? 3 : 1, hit = channels - 1;
  const gdouble amp = f->fir == CF_FIR_S16 ? 1000.0 : 1.0;
  const guint n = 10, at = 2;
  const gsize bpf = bpf_of (f, channels);
  guint8 *in = g_malloc0 (n * bpf), *got;
  guint k;
  gint c;

  set_sample (f, in, at * channels + hit, amp);
  got = run_stream (harness_new (f, channels, NULL,
          "taps=\"0.5, 0.25, -0.125, 1\""), f, channels, in, n, 0, FALSE);
  for (k = 0; k < n; k++)
    for (c = 0; c < channels; c++) {
      const gdouble want = c == hit && k >= at && k - at < G_N_ELEMENTS (taps)
          ? amp * taps[k - at] : 0.0;

      fail_unless (sample_at (f, got, k * channels + c) == want,
          "%s frame %u channel %d: %g, want %g", f->name, k, c,
          sample_at (f, got, k * channels + c), want);
    }
  g_free (in);
  g_free (got);
}

GST_END_TEST;

/* A stream cut into buffers of any sizes, 1 frame and fewer than the taps
 * included, gives the same bytes as in one buffer and as cf_fir_cpu () over
 * the whole signal; with latency, shifted by it (the tail drained). */
GST_START_TEST (test_splits)
{
  const Format *f = &formats[__i__ / 2];
  const guint latency = __i__ % 2 ? 7 : 0, n_taps = 37, n = 2000;
  const gint channels = 3;
  gdouble *taps = random_taps (n_taps, 0.25);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *in = random_signal (f, channels, n);
  guint8 *want = reference (f, channels, taps, n_taps, in, n, latency);
  guint8 *whole, *cut;

  whole = run_stream (harness_new (f, channels, NULL, "taps=%s latency=%u",
          ts, latency), f, channels, in, n, GST_SECOND, FALSE);
  cut = run_stream (harness_new (f, channels, NULL, "taps=%s latency=%u",
          ts, latency), f, channels, in, n, GST_SECOND, TRUE);
  assert_samples (f, channels, whole, want + latency * bpf_of (f, channels),
      n, "one buffer");
  assert_samples (f, channels, cut, want + latency * bpf_of (f, channels),
      n, "random buffers");
  g_free (taps);
  g_free (ts);
  g_free (in);
  g_free (want);
  g_free (whole);
  g_free (cut);
}

GST_END_TEST;

/* F32 and F64 within 1e-6 of a plain float64 model, relative to the sum of
 * the magnitudes of the products. */
GST_START_TEST (test_float_model)
{
  const Format *f = &formats[__i__];
  const guint n_taps = 64, n = 1500;
  const gint channels = 2;
  gdouble *taps = random_taps (n_taps, 1.0);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *in = random_signal (f, channels, n), *got;
  guint k, t;
  gint c;

  got = run_stream (harness_new (f, channels, NULL, "taps=%s", ts), f,
      channels, in, n, 0, TRUE);
  for (k = 0; k < n; k++)
    for (c = 0; c < channels; c++) {
      gdouble model = 0.0, scale = 0.0, g;

      for (t = 0; t < n_taps && t <= k; t++) {
        const gdouble p = taps[t] * sample_at (f, in, (k - t) * channels + c);

        model += p;
        scale += fabs (p);
      }
      g = sample_at (f, got, k * channels + c);
      fail_unless (fabs (g - model) <= 1e-6 * scale,
          "%s frame %u channel %d: %.17g, model %.17g (scale %g)", f->name,
          k, c, g, model, scale);
    }
  g_free (taps);
  g_free (ts);
  g_free (in);
  g_free (got);
}

GST_END_TEST;

static const gint channel_counts[] = { 1, 2, 8, 64, 100 };

/* Channels stay apart (an impulse of c + 1 at frame c % 5 on channel c gives
 * (c + 1) times the taps there, by hand) and every channel count matches the
 * oracle on random input cut at random. */
GST_START_TEST (test_channels)
{
  static const gdouble taps[] = { 1.0, 0.5, 0.25, 0.125 };
  const gint channels = channel_counts[__i__];
  const guint n = 16, n_random = 300, n_taps = 37;
  const gsize bpf = bpf_of (FMT_F32, channels);
  guint8 *in = g_malloc0 (n * bpf), *got, *want;
  gdouble *rtaps;
  gchar *ts;
  guint k;
  gint c;

  for (c = 0; c < channels; c++)
    set_sample (FMT_F32, in, (c % 5) * channels + c, c + 1);
  got =
      run_stream (harness_new (FMT_F32, channels, NULL,
          "taps=1,0.5,0.25,0.125"), FMT_F32, channels, in, n, 0, FALSE);
  for (k = 0; k < n; k++)
    for (c = 0; c < channels; c++) {
      const guint at = c % 5;
      const gdouble w = k >= at && k - at < G_N_ELEMENTS (taps) ?
          (c + 1) * taps[k - at] : 0.0;

      fail_unless (sample_at (FMT_F32, got, k * channels + c) == w,
          "frame %u channel %d: %g, want %g", k, c,
          sample_at (FMT_F32, got, k * channels + c), w);
    }
  g_free (in);
  g_free (got);

  rtaps = random_taps (n_taps, 0.5);
  ts = taps_string (rtaps, n_taps);
  in = random_signal (FMT_F32, channels, n_random);
  want = reference (FMT_F32, channels, rtaps, n_taps, in, n_random, 0);
  got =
      run_stream (harness_new (FMT_F32, channels, NULL, "taps=%s", ts), FMT_F32,
      channels, in, n_random, 0, TRUE);
  assert_samples (FMT_F32, channels, got, want, n_random, "random");
  g_free (rtaps);
  g_free (ts);
  g_free (in);
  g_free (want);
  g_free (got);
}

GST_END_TEST;

typedef struct
{
  const gchar *props;
  guint n_taps;                 /* custom: random taps; 0: the preset below */
  guint latency;                /* what the element must compensate */
  guint frames;
} DrainCase;

static const DrainCase drain_cases[] = {
  {"latency=4", 9, 4, 1000},
  {"latency=4", 9, 4, 3},       /* shorter than the latency */
  {"latency=0", 9, 0, 50},
  {"latency=20", 9, 20, 200},   /* beyond the taps: a pure advance */
  {"latency=12", 9, 12, 8},     /* owed: the taps' tail, then zeros */
  {"latency=3000", 9, 3000, 5000},      /* 8 frames of tail, then zeros */
  {"mode=low-pass cutoff=3000 length=31", 0, 15, 1000}, /* auto */
  {"mode=low-pass cutoff=3000 length=31", 0, 15, 10},
};

/* With latency L, the output has exactly as many frames as the input, the
 * first at the input's first timestamp: the convolution from its frame L
 * on, the last L frames drained at EOS. */
GST_START_TEST (test_eos_drain)
{
  const DrainCase *d = &drain_cases[__i__];
  const gint channels = 2;
  const guint n_taps = d->n_taps ? d->n_taps : 31;
  gdouble *taps;
  gchar *ts;
  guint8 *in = random_signal (FMT_F64, channels, d->frames), *want, *got;
  GstHarness *h;

  if (d->n_taps) {
    taps = random_taps (n_taps, 1.0);
    ts = taps_string (taps, n_taps);
    h = harness_new (FMT_F64, channels, NULL, "taps=%s %s", ts, d->props);
    g_free (ts);
  } else {
    taps = g_new (gdouble, n_taps);
    fail_unless_equals_int (cf_fir_design (taps, n_taps, CF_FIR_LOWPASS,
            3000.0, 0.0, RATE, CF_FIR_WINDOW_HAMMING), 0);
    h = harness_new (FMT_F64, channels, NULL, "%s", d->props);
  }
  want = reference (FMT_F64, channels, taps, n_taps, in, d->frames, d->latency);
  got = run_stream (h, FMT_F64, channels, in, d->frames, 3 * GST_SECOND, TRUE);
  assert_samples (FMT_F64, channels, got, want + d->latency * bpf_of (FMT_F64,
          channels), d->frames, d->props);
  g_free (taps);
  g_free (in);
  g_free (want);
  g_free (got);
}

GST_END_TEST;

/* A DISCONT buffer, or a timestamp 1 s off, starts a new stream: the old
 * one's tail comes out first (on its own timeline), then the new one from
 * silence (on the new timeline, marked DISCONT). */
GST_START_TEST (test_discont)
{
  const gboolean by_flag = __i__ / 2 == 0;
  const guint latency = __i__ % 2 ? 3 : 0, n_taps = 9, na = 200, nb = 150;
  const gint channels = 2;
  const gsize bpf = bpf_of (FMT_F32, channels);
  const GstClockTime start_b = frame_time (na) + (by_flag ? 0 : GST_SECOND);
  gdouble *taps = random_taps (n_taps, 1.0);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *a = random_signal (FMT_F32, channels, na);
  guint8 *b = random_signal (FMT_F32, channels, nb);
  guint8 *want_a = reference (FMT_F32, channels, taps, n_taps, a, na, latency);
  guint8 *want_b = reference (FMT_F32, channels, taps, n_taps, b, nb, latency);
  GstHarness *h =
      harness_new (FMT_F32, channels, NULL, "taps=%s latency=%u", ts,
      latency);
  Output out_a, out_b;

  output_init (&out_a, 0);
  output_init (&out_b, start_b);
  push_frames (h, a, bpf, 0, 120, 0, FALSE);
  push_frames (h, a, bpf, 120, na - 120, 0, FALSE);
  pull_output (h, bpf, &out_a, na);
  fail_unless_equals_uint64 (out_a.frames, na - latency);

  push_frames (h, b, bpf, 0, 50, start_b, by_flag);
  push_frames (h, b, bpf, 50, 1, start_b, FALSE);
  push_frames (h, b, bpf, 51, nb - 51, start_b, FALSE);
  pull_output (h, bpf, &out_a, na);
  fail_unless_equals_uint64 (out_a.frames, na);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_output (h, bpf, &out_b, nb);
  fail_unless_equals_uint64 (out_b.frames, nb);
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless (out_b.first_discont, "the new stream is not marked DISCONT");

  assert_samples (FMT_F32, channels, out_a.data->data, want_a + latency * bpf,
      na, "before");
  assert_samples (FMT_F32, channels, out_b.data->data, want_b + latency * bpf,
      nb, "after the discontinuity");
  output_clear (&out_a);
  output_clear (&out_b);
  cf_check_harness_free (h, NULL);
  g_free (taps);
  g_free (ts);
  g_free (a);
  g_free (b);
  g_free (want_a);
  g_free (want_b);
}

GST_END_TEST;

/* A flush drops what the filter holds (history and the latency's frames):
 * the next buffer, even with continuing timestamps, starts from silence. */
GST_START_TEST (test_flush)
{
  const guint latency = __i__ ? 3 : 0, n_taps = 9, na = 200, nb = 150;
  const gint channels = 2;
  const gsize bpf = bpf_of (FMT_F32, channels);
  gdouble *taps = random_taps (n_taps, 1.0);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *a = random_signal (FMT_F32, channels, na);
  guint8 *b = random_signal (FMT_F32, channels, nb);
  guint8 *want_b = reference (FMT_F32, channels, taps, n_taps, b, nb, latency);
  GstHarness *h =
      harness_new (FMT_F32, channels, NULL, "taps=%s latency=%u", ts,
      latency);
  Output out_a, out_b;
  GstSegment segment;

  output_init (&out_a, 0);
  output_init (&out_b, frame_time (na));
  push_stream (h, a, bpf, na, 0, TRUE);
  pull_output (h, bpf, &out_a, na);
  fail_unless_equals_uint64 (out_a.frames, na - latency);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  push_stream (h, b, bpf, nb, frame_time (na), TRUE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_output (h, bpf, &out_b, nb);
  fail_unless_equals_uint64 (out_b.frames, nb);
  fail_unless (gst_harness_try_pull (h) == NULL);
  assert_samples (FMT_F32, channels, out_b.data->data, want_b + latency * bpf,
      nb, "after the flush");

  output_clear (&out_a);
  output_clear (&out_b);
  cf_check_harness_free (h, NULL);
  g_free (taps);
  g_free (ts);
  g_free (a);
  g_free (b);
  g_free (want_b);
}

GST_END_TEST;

/* All @n_frames frames of @out are silence, +0.0 in every sample. */
static void
assert_silence (const Output * out, gsize bpf, guint64 n_frames,
    const gchar * what)
{
  guint64 i;

  fail_unless_equals_uint64 (out->frames, n_frames);
  for (i = 0; i < n_frames * bpf; i++)
    fail_unless (out->data->data[i] == 0, "%s: byte %" G_GUINT64_FORMAT
        " (frame %" G_GUINT64_FORMAT ") is %u, want 0", what, i, i / bpf,
        out->data->data[i]);
}

/* The largest latency, on more taps and channels than a test needs
 * otherwise: every frame of a stream is owed at its end, and past the taps'
 * reach the filter's response to silence is silence. */
#define HUGE_LATENCY_PROPS "latency=2147483647"
#define HUGE_LATENCY_TAPS 64
#define HUGE_LATENCY_CHANNELS 8

/* With the largest latency a stream's output is all drained: at EOS (__i__
 * 0), at a DISCONT (1) and for new taps (2), as many frames as went in, all
 * silence, on the stream's own timeline, without filtering two billion
 * frames of silence for it (which took longer than the CK timeout). */
GST_START_TEST (test_drain_huge_latency)
{
  const gint channels = HUGE_LATENCY_CHANNELS;
  const guint n_taps = HUGE_LATENCY_TAPS, na = 1000, nb = 300;
  const gsize bpf = bpf_of (FMT_F32, channels);
  const gboolean by_discont = __i__ == 1, by_taps = __i__ == 2;
  const GstClockTime start_b = frame_time (na) + (by_discont ? GST_SECOND : 0);
  gdouble *taps = random_taps (n_taps, 1.0);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *a = random_signal (FMT_F32, channels, na);
  guint8 *b = random_signal (FMT_F32, channels, nb);
  GstHarness *h = harness_new (FMT_F32, channels, NULL, "taps=%s %s", ts,
      HUGE_LATENCY_PROPS);
  Output out_a, out_b;

  output_init (&out_a, 0);
  output_init (&out_b, start_b);
  push_stream (h, a, bpf, na, 0, TRUE);
  pull_output (h, bpf, &out_a, na);
  fail_unless_equals_uint64 (out_a.frames, 0);

  if (__i__ == 0) {
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    pull_output (h, bpf, &out_a, na);
  } else {
    if (by_taps)
      g_object_set (h->element, "taps", "0.5 0.5", NULL);
    push_frames (h, b, bpf, 0, 100, start_b, by_discont);
    push_frames (h, b, bpf, 100, nb - 100, start_b, FALSE);
    pull_output (h, bpf, &out_a, na);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    pull_output (h, bpf, &out_b, nb);
    assert_silence (&out_b, bpf, nb, "the second stream");
  }
  assert_silence (&out_a, bpf, na, "the first stream");
  fail_unless (gst_harness_try_pull (h) == NULL, "more frames than went in");

  output_clear (&out_a);
  output_clear (&out_b);
  cf_check_harness_free (h, NULL);
  g_free (taps);
  g_free (ts);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* A drain that meets a flush ends there. The source pad flushes first when
 * the element goes down to READY (its pads are deactivated source first,
 * and only then is the streaming thread waited for) and when a flush
 * passes: with it flushing, EOS gives no tail and does not pass, at once
 * with the largest latency (the CK timeout ended the test before); after
 * the flush, with a latency of 4, the next stream starts from silence. */
GST_START_TEST (test_flush_during_drain)
{
  const gint channels = HUGE_LATENCY_CHANNELS;
  const guint n_taps = HUGE_LATENCY_TAPS, latency = 4, na = 1000, nb = 300;
  const gsize bpf = bpf_of (FMT_F32, channels);
  gdouble *taps = random_taps (n_taps, 1.0);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *a = random_signal (FMT_F32, channels, na);
  guint8 *b = random_signal (FMT_F32, channels, nb);
  guint8 *want_b = reference (FMT_F32, channels, taps, n_taps, b, nb, latency);
  GstHarness *h = harness_new (FMT_F32, channels, NULL, "taps=%s %s", ts,
      HUGE_LATENCY_PROPS);
  GstPad *srcpad = gst_element_get_static_pad (h->element, "src");
  Output out_b;
  GstSegment segment;

  output_init (&out_b, frame_time (na));
  push_stream (h, a, bpf, na, 0, TRUE);
  fail_unless (gst_harness_try_pull (h) == NULL);

  fail_unless (gst_pad_push_event (srcpad, gst_event_new_flush_start ()));
  fail_if (gst_harness_push_event (h, gst_event_new_eos ()),
      "EOS went through a flushing pad");
  fail_unless (gst_harness_try_pull (h) == NULL, "a tail while flushing");

  /* that flush ends; after EOS, the stream goes on after a flush through
   * the element */
  fail_unless (gst_pad_push_event (srcpad, gst_event_new_flush_stop (TRUE)));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  g_object_set (h->element, "latency", (gint64) latency, NULL);
  push_stream (h, b, bpf, nb, frame_time (na), TRUE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_output (h, bpf, &out_b, nb);
  fail_unless_equals_uint64 (out_b.frames, nb);
  fail_unless (gst_harness_try_pull (h) == NULL, "more frames than went in");
  assert_samples (FMT_F32, channels, out_b.data->data, want_b + latency * bpf,
      nb, "after the flush");

  output_clear (&out_b);
  gst_object_unref (srcpad);
  cf_check_harness_free (h, NULL);
  g_free (taps);
  g_free (ts);
  g_free (a);
  g_free (b);
  g_free (want_b);
}

GST_END_TEST;

typedef struct
{
  const gchar *props;
  guint frames;
} LatencyCase;

static const LatencyCase latency_cases[] = {
  {"taps=1,2,1", 0},
  {"taps=1,2,1 latency=1", 1},
  {"taps=1 latency=48", 48},
  {"mode=low-pass cutoff=1000", 50},    /* length 101 */
  {"mode=high-pass cutoff=1000 length=200", 100},       /* 201 taps */
  {"mode=band-pass latency=7", 7},
};

/* The LATENCY query adds the compensated frames to upstream's latency, none
 * before the rate is known; a change while playing shows after the next
 * buffer. */
GST_START_TEST (test_latency_query)
{
  const LatencyCase *lc = &latency_cases[__i__];
  const gsize bpf = bpf_of (FMT_F32, 1);
  guint8 *in = random_signal (FMT_F32, 1, 10);
  GstHarness *h = harness_new (NULL, 1, NULL, "%s", lc->props);
  gchar *caps = caps_string (FMT_F32, 1);

  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      GST_CLOCK_TIME_NONE);
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      10 * GST_MSECOND + gst_util_uint64_scale_round (lc->frames, GST_SECOND,
          RATE));

  g_object_set (h->element, "latency", (gint64) 480, NULL);
  push_frames (h, in, bpf, 0, 10, 0, FALSE);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      20 * GST_MSECOND);
  cf_check_harness_free (h, NULL);
  g_free (caps);
  g_free (in);
}

GST_END_TEST;

static const gchar *taps_syntax[] = {
  "taps=1,2,1",
  "taps=\"1,2,1\"",
  "taps=\"<1, 2, 1>\"",
  "taps=<1,2,1>",
  "taps=\"1 2 1\"",
  "taps=\" < 1.0,2e0 , 1 > \"",
};

/* Taps as gst-launch lines write them, as a list and as GstValueArray's
 * "<...>": they read back in that form and filter an impulse into them. */
GST_START_TEST (test_taps_syntax)
{
  const gsize bpf = bpf_of (FMT_F32, 1);
  guint8 *in = g_malloc0 (5 * bpf), *got;
  GstHarness *h = harness_new (FMT_F32, 1, NULL, "%s", taps_syntax[__i__]);
  gchar *s = NULL;

  g_object_get (h->element, "taps", &s, NULL);
  fail_unless_equals_string (s, "<1, 2, 1>");
  g_free (s);
  set_sample (FMT_F32, in, 0, 1.0);
  got = run_stream (h, FMT_F32, 1, in, 5, 0, FALSE);
  fail_unless (sample_at (FMT_F32, got, 0) == 1.0
      && sample_at (FMT_F32, got, 1) == 2.0
      && sample_at (FMT_F32, got, 2) == 1.0
      && sample_at (FMT_F32, got, 3) == 0.0
      && sample_at (FMT_F32, got, 4) == 0.0, "%s: %g %g %g %g %g",
      taps_syntax[__i__], sample_at (FMT_F32, got, 0), sample_at (FMT_F32, got,
          1), sample_at (FMT_F32, got, 2), sample_at (FMT_F32, got, 3),
      sample_at (FMT_F32, got, 4));
  g_free (in);
  g_free (got);
}

GST_END_TEST;

typedef struct
{
  const gchar *props;           /* latency left to auto */
  CfFirBand band;
  gdouble low, high;
  gint length;
  CfFirWindow window;
  gdouble pass_hz, stop_hz;
} PresetCase;

static const PresetCase presets[] = {
  {"mode=low-pass cutoff=2000 length=101", CF_FIR_LOWPASS, 2000, 0, 101,
      CF_FIR_WINDOW_HAMMING, 500, 10000},
  {"mode=high-pass cutoff=2000 length=100 window=blackman", CF_FIR_HIGHPASS,
      2000, 0, 101, CF_FIR_WINDOW_BLACKMAN, 12000, 300},
  {"mode=band-pass lower-frequency=1000 upper-frequency=4000 length=151 "
        "window=hann", CF_FIR_BANDPASS, 1000, 4000, 151, CF_FIR_WINDOW_HANN,
      2500, 12000},
  {"mode=low-pass cutoff=8000 length=63 window=rectangular", CF_FIR_LOWPASS,
      8000, 0, 63, CF_FIR_WINDOW_RECTANGULAR, 1000, 20000},
};

/* Sine @hz of amplitude 0.5 through the preset: with the latency
 * compensated, output frame k is the filter's real gain at @hz times input
 * frame k (linear phase), wherever the taps see only the signal. Returns
 * that gain, checked against the taps. */
static gdouble
sine_gain (const PresetCase * p, const gdouble * taps, gdouble hz)
{
  const guint n = 4800, latency = (p->length - 1) / 2;
  guint8 *in = g_malloc (n * sizeof (gdouble)), *got;
  gdouble gain = 0.0;
  guint k;
  gint t;

  for (k = 0; k < n; k++)
    set_sample (FMT_F64, in, k, 0.5 * sin (2.0 * G_PI * hz * k / RATE));
  /* the amplitude of symmetric taps: the response with the delay taken
   * out */
  for (t = 0; t < p->length; t++)
    gain += taps[t] * cos (2.0 * G_PI * hz / RATE * (t - (gint) latency));
  fail_unless (fabs (fabs (gain) - cf_fir_gain (taps, p->length, hz, RATE))
      < 1e-9);
  got =
      run_stream (harness_new (FMT_F64, 1, NULL, "%s", p->props), FMT_F64, 1,
      in, n, 0, TRUE);
  for (k = latency; k + latency < n; k++)
    fail_unless (fabs (sample_at (FMT_F64, got, k) - gain * sample_at (FMT_F64,
                in, k)) < 1e-9, "%s at %g Hz, frame %u: %.17g, want %.17g",
        p->props, hz, k, sample_at (FMT_F64, got, k), gain * sample_at (FMT_F64,
            in, k));
  g_free (in);
  g_free (got);
  return gain;
}

/* The presets' impulse response is cf_fir_design ()'s taps, bit for bit;
 * with the default latency, sines come out aligned with the designed gain:
 * 1 in the pass band, under 1% in the stop band. */
GST_START_TEST (test_presets)
{
  const PresetCase *p = &presets[__i__];
  const guint n = p->length + 4;
  gdouble *taps = g_new (gdouble, p->length), g;
  guint8 *in = g_malloc0 (n * sizeof (gdouble)), *got;
  gint length = 0;
  guint k;
  GstHarness *h;

  fail_unless_equals_int (cf_fir_design (taps, p->length, p->band, p->low,
          p->high, RATE, p->window), 0);
  h = harness_new (FMT_F64, 1, NULL, "%s latency=0", p->props);
  g_object_get (h->element, "length", &length, NULL);
  fail_unless_equals_int (length, p->length);
  set_sample (FMT_F64, in, 0, 1.0);
  got = run_stream (h, FMT_F64, 1, in, n, 0, FALSE);
  for (k = 0; k < n; k++)
    fail_unless (sample_at (FMT_F64, got,
            k) == (k < (guint) p->length ? taps[k] : 0.0),
        "%s tap %u: %.17g, want %.17g", p->props, k, sample_at (FMT_F64, got,
            k), k < (guint) p->length ? taps[k] : 0.0);

  g = sine_gain (p, taps, p->pass_hz);
  fail_unless (fabs (g - 1.0) < 0.01, "%s: gain %g at %g Hz", p->props, g,
      p->pass_hz);
  g = sine_gain (p, taps, p->stop_hz);
  fail_unless (fabs (g) < 0.01, "%s: gain %g at %g Hz", p->props, g,
      p->stop_hz);
  g_free (taps);
  g_free (in);
  g_free (got);
}

GST_END_TEST;

/* The low-pass passes DC with gain 1. */
GST_START_TEST (test_lowpass_dc)
{
  const guint n = 1000;
  guint8 *in = g_malloc (n * sizeof (gfloat)), *got;
  guint k;

  for (k = 0; k < n; k++)
    set_sample (FMT_F32, in, k, 0.5);
  got = run_stream (harness_new (FMT_F32, 1, NULL, "mode=low-pass cutoff=100 "
          "length=301 window=blackman"), FMT_F32, 1, in, n, 0, TRUE);
  for (k = 150; k < n - 150; k++)
    fail_unless (fabs (sample_at (FMT_F32, got, k) - 0.5) < 1e-6,
        "frame %u: %.9g", k, sample_at (FMT_F32, got, k));
  /* the edges see silence beyond the signal: less */
  fail_unless (sample_at (FMT_F32, got, 0) < 0.3
      && sample_at (FMT_F32, got, n - 1)
      < 0.3);
  g_free (in);
  g_free (got);
}

GST_END_TEST;

static const gchar *unsupported[] = {
  "audio/x-raw,format=S32LE,rate=48000,channels=1,layout=interleaved",
  "audio/x-raw,format=U8,rate=48000,channels=1,layout=interleaved",
  "audio/x-raw,format=S24LE,rate=48000,channels=2,layout=interleaved",
  "audio/x-raw,format=F32BE,rate=48000,channels=1,layout=interleaved",
  "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=non-interleaved",
  "audio/x-raw,format=F32LE,rate=48000,channels=300,layout=interleaved,"
      "channel-mask=(bitmask)0",
  "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1",
};

GST_START_TEST (test_unsupported_caps)
{
  GstHarness *h = harness_new (NULL, 0, NULL, "taps=1");

  gst_harness_set_src_caps_str (h, unsupported[__i__]);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 1200, NULL)), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  cf_check_harness_free (h, NULL);
}

GST_END_TEST;

typedef struct
{
  const gchar *props;
  const gchar *says;            /* in the error message */
} BadCase;

static const BadCase bad_settings[] = {
  {"", "no taps"},
  {"taps=\"\"", "no taps"},
  {"mode=low-pass cutoff=30000", "below 24000 Hz"},
  {"mode=high-pass cutoff=0", "above 0"},
  {"mode=band-pass lower-frequency=5000 upper-frequency=1000",
      "below upper-frequency"},
};

/* Settings that give no filter fail negotiation with one clear error. */
GST_START_TEST (test_bad_settings)
{
  const BadCase *b = &bad_settings[__i__];
  GstBus *bus;
  GstHarness *h = harness_new (FMT_F32, 1, &bus, "%s", b->props);
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 40, NULL)), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 40, NULL)), GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error message", b->props);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s: %s", b->props, err->message);
  fail_unless (strstr (err->message, b->says) != NULL, "%s: \"%s\"",
      b->props, err->message);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  /* once, not at every retry */
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "a second error message");
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  cf_check_harness_free (h, bus);
}

GST_END_TEST;

/* Unparsable taps are refused with a warning message naming the cause and
 * change nothing. */
GST_START_TEST (test_bad_taps)
{
  static const gchar *bad[] = { "1,x", "<1, 2", "1 2 >", "1,nan", "<1> 2" };
  GstElement *e = gst_element_factory_make ("cudaaudiofir", NULL);
  GstBus *bus = gst_bus_new ();
  gchar *s = NULL;
  guint i;

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  g_object_set (e, "taps", "0.5", NULL);
  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstMessage *msg;
    GError *err = NULL;
    gchar *debug = NULL;

    g_object_set (e, "taps", bad[i], NULL);
    g_object_get (e, "taps", &s, NULL);
    fail_unless_equals_string (s, "<0.5>");
    g_free (s);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "taps=%s: no warning", bad[i]);
    gst_message_parse_warning (msg, &err, &debug);
    fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
            GST_LIBRARY_ERROR_SETTINGS));
    fail_unless (debug && strstr (debug, bad[i]) != NULL, "\"%s\"", debug);
    g_clear_error (&err);
    g_free (debug);
    gst_message_unref (msg);
  }
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

typedef struct
{
  const gchar *taps;            /* NULL: one tap more than the most */
  const gchar *says;            /* in the error message */
} BadTapsCase;

static const BadTapsCase bad_taps_at_start[] = {
  {"a,b", "\"a,b\" is not a number"},
  {"nan", "tap 0 is not finite"},
  {NULL, "more than 8192 taps"},
};

/* Taps refused before the element has a bus (on a gst-launch line, say:
 * the warning then reaches no one) leave it without taps: the negotiation
 * error says why there are none, once. */
GST_START_TEST (test_bad_taps_at_start)
{
  const BadTapsCase *b = &bad_taps_at_start[__i__];
  gchar *taps = b->taps ? g_strdup (b->taps) : NULL;
  GstBus *bus;
  GstHarness *h;
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  if (!taps) {
    GString *s = g_string_new ("1");
    guint i;

    for (i = 1; i < CF_FIR_MAX_TAPS + 1; i++)
      g_string_append (s, ",1");
    taps = g_string_free (s, FALSE);
  }
  h = harness_new (FMT_F32, 1, &bus, "taps=\"%s\"", taps);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 40, NULL)), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 40, NULL)), GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "taps=%.16s: no error message", taps);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s", err->message);
  fail_unless (strstr (err->message, b->says) != NULL, "\"%.200s\" does not "
      "say %s", err->message, b->says);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL,
      "a second error message");
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  cf_check_harness_free (h, bus);
  g_free (taps);
}

GST_END_TEST;

/* Changes while playing: new taps take over at the next buffer, the old
 * filter drained (nothing owed with latency 0) and the new one started from
 * silence; a latency change shows in the output's alignment; a setting that
 * gives no filter posts a warning and the filter goes on unchanged. */
GST_START_TEST (test_changes_while_playing)
{
  static const gdouble half[] = { 0.5, 0.5 }, one[] = { 1.0 };
  const guint n = 100;
  const gsize bpf = bpf_of (FMT_F32, 1);
  guint8 *a = random_signal (FMT_F32, 1, n), *b = random_signal (FMT_F32, 1, n);
  guint8 *c = random_signal (FMT_F32, 1, n), *d = random_signal (FMT_F32, 1, n);
  guint8 *want_a = reference (FMT_F32, 1, one, 1, a, n, 0);
  guint8 *want_b = reference (FMT_F32, 1, half, 2, b, n, 0);
  guint8 *want_c = reference (FMT_F32, 1, half, 2, c, n, 1);
  guint8 *want_cd, *cd = g_malloc (2 * n * bpf);
  GstBus *bus;
  GstHarness *h = harness_new (FMT_F32, 1, &bus, "taps=1");
  Output out_a, out_b, out_cd;
  GstMessage *msg;

  output_init (&out_a, 0);
  output_init (&out_b, frame_time (n));
  output_init (&out_cd, frame_time (2 * n));
  push_stream (h, a, bpf, n, 0, TRUE);
  pull_output (h, bpf, &out_a, n);
  fail_unless_equals_uint64 (out_a.frames, n);
  assert_samples (FMT_F32, 1, out_a.data->data, want_a, n, "taps=1");

  g_object_set (h->element, "taps", "0.5 0.5", NULL);
  push_stream (h, b, bpf, n, frame_time (n), TRUE);
  pull_output (h, bpf, &out_b, n);
  fail_unless_equals_uint64 (out_b.frames, n);
  assert_samples (FMT_F32, 1, out_b.data->data, want_b, n, "new taps");

  g_object_set (h->element, "latency", (gint64) 1, NULL);
  push_stream (h, c, bpf, n, frame_time (2 * n), TRUE);
  pull_output (h, bpf, &out_cd, 2 * n);
  fail_unless_equals_uint64 (out_cd.frames, n - 1);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  assert_samples (FMT_F32, 1, out_cd.data->data, want_c + bpf, n - 1,
      "new latency");

  /* half a change to a preset: no filter at 48 kHz, the old one goes on,
   * history and all */
  g_object_set (h->element, "mode", 1, "cutoff", 1e6, NULL);
  push_stream (h, d, bpf, n, frame_time (3 * n), TRUE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_output (h, bpf, &out_cd, 2 * n);
  fail_unless_equals_uint64 (out_cd.frames, 2 * n);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for a filter that cannot be made");
  gst_message_unref (msg);
  memcpy (cd, c, n * bpf);
  memcpy (cd + n * bpf, d, n * bpf);
  want_cd = reference (FMT_F32, 1, half, 2, cd, 2 * n, 1);
  assert_samples (FMT_F32, 1, out_cd.data->data, want_cd + bpf, 2 * n,
      "after a bad change");

  output_clear (&out_a);
  output_clear (&out_b);
  output_clear (&out_cd);
  cf_check_harness_free (h, bus);
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (d);
  g_free (cd);
  g_free (want_a);
  g_free (want_b);
  g_free (want_c);
  g_free (want_cd);
}

GST_END_TEST;

/* Buffers that start anywhere in memory (a sub-buffer at byte 1) filter as
 * aligned ones do. */
GST_START_TEST (test_misaligned)
{
  const Format *f = &formats[__i__];
  const guint n = 257, n_taps = 5;
  const gint channels = 2;
  const gsize bpf = bpf_of (f, channels);
  gdouble *taps = random_taps (n_taps, 1.0);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *in = random_signal (f, channels, n);
  guint8 *want = reference (f, channels, taps, n_taps, in, n, 0);
  GstHarness *h = harness_new (f, channels, NULL, "taps=%s", ts);
  GstBuffer *whole = gst_buffer_new_allocate (NULL, 1 + n * bpf, NULL);
  GstBuffer *buf;
  GstMapInfo map;
  Output out;

  gst_buffer_fill (whole, 1, in, n * bpf);
  buf = gst_buffer_copy_region (whole, GST_BUFFER_COPY_ALL, 1, n * bpf);
  gst_buffer_unref (whole);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless ((guintptr) map.data % 2 == 1, "the test buffer is aligned");
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_OFFSET (buf) = 0;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  output_init (&out, 0);
  pull_output (h, bpf, &out, n);
  fail_unless_equals_uint64 (out.frames, n);
  assert_samples (f, channels, out.data->data, want, n, "misaligned");
  output_clear (&out);
  cf_check_harness_free (h, NULL);
  g_free (taps);
  g_free (ts);
  g_free (in);
  g_free (want);
}

GST_END_TEST;

static GstPadProbeReturn
count_frames (GstPad * pad, GstPadProbeInfo * info, gpointer frames)
{
  *(guint64 *) frames += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info))
      / (2 * sizeof (gfloat));
  return GST_PAD_PROBE_OK;
}

/* In a pipeline, twice over (state changes): every frame comes out, and
 * nothing goes wrong. */
GST_START_TEST (test_pipeline)
{
  gchar *desc = g_strdup_printf ("audiotestsrc wave=white-noise "
      "num-buffers=20 samplesperbuffer=480 ! audio/x-raw,format=%s,"
      "rate=48000,channels=2 ! cudaaudiofir backend=%s mode=low-pass "
      "cutoff=2000 ! fakesink name=sink sync=false", GST_AUDIO_NE (F32),
      cf_test_backend_name ());
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstPad *pad;
  GstBus *bus;
  guint64 frames = 0;
  guint run;

  fail_unless (pipeline != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "no pipeline");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  bus = gst_element_get_bus (pipeline);

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_frames, &frames,
      NULL);
  for (run = 0; run < 2; run++) {
    GstMessage *msg;

    frames = 0;
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "run %u: no EOS", run);
    gst_message_unref (msg);
    fail_unless_equals_uint64 (frames, 20 * 480);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* The CPU backend gives the oracle's samples for every n-threads: buffers
 * big enough to be split into ranges of frames (8 channels, 257 taps,
 * 6000 frames in one buffer), and cut at random (small buffers stay whole),
 * latency compensated, every format. */
GST_START_TEST (test_n_threads)
{
  const Format *f = &formats[__i__];
  const guint latency = 128, n_taps = 257, n = 6000;
  const gint channels = 8;
  gdouble *taps = random_taps (n_taps, 0.1);
  gchar *ts = taps_string (taps, n_taps);
  guint8 *in = random_signal (f, channels, n);
  guint8 *want = reference (f, channels, taps, n_taps, in, n, latency);
  guint v;

  for (v = 0; v < G_N_ELEMENTS (cf_check_n_threads_values); v++) {
    const gchar *nt = cf_check_n_threads_values[v];
    gchar *what = g_strdup_printf ("n-threads=%s", nt);
    guint8 *got = run_stream (harness_new (f, channels, NULL, "backend=cpu "
            "n-threads=%s taps=%s latency=%u", nt, ts, latency), f, channels,
        in, n, GST_SECOND, v % 2);

    assert_samples (f, channels, got, want + latency * bpf_of (f, channels),
        n, what);
    g_free (got);
    g_free (what);
  }
  g_free (taps);
  g_free (ts);
  g_free (in);
  g_free (want);
}

GST_END_TEST;

static Suite *
cudaaudiofir_suite (void)
{
  Suite *s = suite_create ("cudaaudiofir");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  if (!cf_test_want_cuda ())
    tcase_add_loop_test (tc, test_n_threads, 0, G_N_ELEMENTS (formats));
  tcase_add_loop_test (tc, test_impulse, 0, 2 * G_N_ELEMENTS (formats));
  tcase_add_loop_test (tc, test_splits, 0, 2 * G_N_ELEMENTS (formats));
  tcase_add_loop_test (tc, test_float_model, 0, 2);
  tcase_add_loop_test (tc, test_channels, 0, G_N_ELEMENTS (channel_counts));
  tcase_add_loop_test (tc, test_eos_drain, 0, G_N_ELEMENTS (drain_cases));
  tcase_add_loop_test (tc, test_discont, 0, 4);
  tcase_add_loop_test (tc, test_flush, 0, 2);
  tcase_add_loop_test (tc, test_drain_huge_latency, 0, 3);
  tcase_add_test (tc, test_flush_during_drain);
  tcase_add_loop_test (tc, test_latency_query, 0, G_N_ELEMENTS (latency_cases));
  tcase_add_loop_test (tc, test_taps_syntax, 0, G_N_ELEMENTS (taps_syntax));
  tcase_add_loop_test (tc, test_presets, 0, G_N_ELEMENTS (presets));
  tcase_add_test (tc, test_lowpass_dc);
  tcase_add_loop_test (tc, test_unsupported_caps, 0,
      G_N_ELEMENTS (unsupported));
  tcase_add_loop_test (tc, test_bad_settings, 0, G_N_ELEMENTS (bad_settings));
  tcase_add_test (tc, test_bad_taps);
  tcase_add_loop_test (tc, test_bad_taps_at_start, 0,
      G_N_ELEMENTS (bad_taps_at_start));
  tcase_add_test (tc, test_changes_while_playing);
  tcase_add_loop_test (tc, test_misaligned, 0, G_N_ELEMENTS (formats));
  tcase_add_test (tc, test_pipeline);
  return s;
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  gst_check_init (&argc, &argv);
  cf_test_seed ();
  return gst_check_run_suite (cudaaudiofir_suite (), "cudaaudiofir", __FILE__);
}

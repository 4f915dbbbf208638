/* Kernel-level tests of FIR filtering (kernels/fir.h).
 *
 * CF_TEST_BACKEND=cpu: known answers for cf_fir_cpu () (impulse in, taps
 * out, each channel on its own; DC through low-, high- and band-pass
 * designs; S16 rounding and saturation), cf_fir_cpu () against a plain
 * float64 model on random signals (F32 within 1e-6, F64 within 1e-12 of
 * the sum of |h x|, S16 exactly where the sums are exact in double),
 * streaming (random cuts, 1-frame buffers and buffers shorter than the
 * taps give the same bytes as one call), reset and draining, the designs'
 * responses, and bad arguments.
 * CF_TEST_BACKEND=cuda: cf_fir_cuda () bit-exact against cf_fir_cpu (),
 * every format, channels {1, 2, 8, 64} x taps {1, 17, 64, 512, 2049} and a
 * few more, each stream cut into random calls then drained; reset; calls
 * alternating between two streams; a stream moved from the CPU to the GPU
 * mid-way; bad arguments.
 */
#include "cf-test.h"
#include "fir.h"

#include <math.h>

static const char *const format_names[CF_FIR_FORMAT_COUNT] = { "F32", "F64",
  "S16"
};

/* Frames of interleaved samples. */
typedef struct
{
  CfFirFormat format;
  int channels, frames;
  size_t sample_bytes;
  guint8 *data;
} Buf;

static void
buf_init (Buf * b, CfFirFormat format, int channels, int frames)
{
  b->format = format;
  b->channels = channels;
  b->frames = frames;
  b->sample_bytes = cf_fir_sample_bytes (format);
  /* one more sample, so that even 0 frames have a distinct pointer */
  b->data = g_malloc0 (b->sample_bytes * ((size_t) frames * channels + 1));
}

static void
buf_clear (Buf * b)
{
  g_free (b->data);
  b->data = NULL;
}

static size_t
buf_bytes (const Buf * b)
{
  return b->sample_bytes * b->frames * b->channels;
}

/* Frame @n of @b. */
static void *
buf_frame (const Buf * b, int n)
{
  return b->data + b->sample_bytes * n * b->channels;
}

static double
buf_get (const Buf * b, int n, int c)
{
  const size_t i = (size_t) n * b->channels + c;

  switch (b->format) {
    case CF_FIR_F32:
      return ((const float *) b->data)[i];
    case CF_FIR_F64:
      return ((const double *) b->data)[i];
    default:
      return ((const gint16 *) b->data)[i];
  }
}

/* @v as the format holds it: rounded to float, or an integer in range. */
static void
buf_set (Buf * b, int n, int c, double v)
{
  const size_t i = (size_t) n * b->channels + c;

  switch (b->format) {
    case CF_FIR_F32:
      ((float *) b->data)[i] = (float) v;
      break;
    case CF_FIR_F64:
      ((double *) b->data)[i] = v;
      break;
    default:
      g_assert_true (v == floor (v) && v >= -32768 && v <= 32767);
      ((gint16 *) b->data)[i] = (gint16) v;
      break;
  }
}

/* Floats in [-1, 1), S16 over its whole range. */
static void
buf_random (Buf * b, GRand * rand)
{
  int n, c;

  for (n = 0; n < b->frames; n++)
    for (c = 0; c < b->channels; c++)
      buf_set (b, n, c, b->format == CF_FIR_S16 ?
          g_rand_int_range (rand, -32768, 32768) :
          g_rand_double_range (rand, -1.0, 1.0));
}

/* Every byte of @got is @want's. */
static void
check_equal (const Buf * got, const Buf * want, const char *what)
{
  int n, c;

  g_assert_cmpint (got->frames, ==, want->frames);
  if (memcmp (got->data, want->data, buf_bytes (got)) == 0)
    return;
  for (n = 0; n < got->frames; n++)
    for (c = 0; c < got->channels; c++)
      if (memcmp ((guint8 *) buf_frame (got, n) + c * got->sample_bytes,
              (guint8 *) buf_frame (want, n) + c * got->sample_bytes,
              got->sample_bytes) != 0) {
        g_printerr ("%s: first difference at frame %d channel %d: %.17g, "
            "want %.17g\n", what, n, c, buf_get (got, n, c),
            buf_get (want, n, c));
        g_assert_not_reached ();
      }
}

/* Taps in [-@scale, @scale). When @dyadic, @scale is rounded down to a
 * power of two and the taps are multiples of @scale / 256: with S16 input
 * (|x| <= 2^15) and up to 2^10 taps every sum is then exact in double (a
 * multiple of @scale / 256 below 2^25 @scale). */
static double *
random_taps (GRand * rand, int n_taps, double scale, gboolean dyadic)
{
  double *taps = g_new (double, n_taps);
  int t;

  if (dyadic)
    scale = ldexp (1.0, (int) floor (log2 (scale)));
  for (t = 0; t < n_taps; t++)
    taps[t] = dyadic ? g_rand_int_range (rand, -256, 256) / 256.0 * scale :
        g_rand_double_range (rand, -scale, scale);
  return taps;
}

/* Filters all of @in in one call with a fresh filter into @out (made
 * here). */
static void
filter_once (CfFirFormat format, const double *taps, int n_taps,
    const Buf * in, Buf * out)
{
  CfFir fir;

  buf_init (out, format, in->channels, in->frames);
  g_assert_cmpint (cf_fir_init (&fir, format, in->channels, taps, n_taps),
      ==, 0);
  g_assert_cmpint (cf_fir_cpu (&fir, in->data, out->data, in->frames), ==, 0);
  cf_fir_clear (&fir);
}

/* The size of the next call of a stream cut at random: 1 frame, fewer
 * frames than taps, up to 700, or none, never more than @left. */
static int
random_cut (GRand * rand, int left, int n_taps)
{
  int n;

  switch (g_rand_int_range (rand, 0, 5)) {
    case 0:
      n = 1;
      break;
    case 1:
      n = g_rand_int_range (rand, 1, n_taps + 1);
      break;
    case 2:
      n = 0;
      break;
    default:
      n = g_rand_int_range (rand, 1, 701);
      break;
  }
  return MIN (n, left);
}

/* ---- CPU: known answers ---- */

/* An impulse of amplitude A_c at frame c of channel c, every other sample
 * 0: channel c gives A_c h[t] at frame c + t and 0 elsewhere, whatever the
 * other channels hold. S16 takes taps m / 64 and A_c = 64 (c + 1), so that
 * A_c h[t] is an integer; A_c h[t] is one rounding in double for floats,
 * as the filter's first fma. */
static void
test_cpu_impulse (void)
{
  static const int channels[] = { 1, 3, 8 };
  static const int n_taps[] = { 1, 2, 5, 64, 300 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint f, i, k;

  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++)
    for (i = 0; i < G_N_ELEMENTS (channels); i++)
      for (k = 0; k < G_N_ELEMENTS (n_taps); k++) {
        const int C = channels[i], T = n_taps[k], frames = T + C + 10;
        double *taps = g_new (double, T);
        char *what = g_strdup_printf ("%s impulse, %d channels, %d taps",
            format_names[f], C, T);
        Buf in, out, want;
        int c, t;

        for (t = 0; t < T; t++)
          taps[t] = f == CF_FIR_S16 ? g_rand_int_range (rand, -64, 65) / 64.0
              : g_rand_double_range (rand, -2.0, 2.0);
        buf_init (&in, f, C, frames);
        buf_init (&want, f, C, frames);
        for (c = 0; c < C; c++) {
          const double a = f == CF_FIR_S16 ? 64.0 * (c + 1) : c + 1.0;

          buf_set (&in, c, c, a);
          for (t = 0; t < T; t++)
            buf_set (&want, c + t, c, a * taps[t]);
        }
        filter_once (f, taps, T, &in, &out);
        check_equal (&out, &want, what);
        buf_clear (&in);
        buf_clear (&out);
        buf_clear (&want);
        g_free (taps);
        g_free (what);
      }
  g_rand_free (rand);
}

/* A constant through a normalized low-pass stays the constant once the
 * filter is full (frame T - 1 on); a high-pass and a band-pass remove it. */
static void
test_cpu_dc (void)
{
  static const struct
  {
    CfFirBand band;
    int n_taps;
    double low, high;
  } designs[] = {
    {CF_FIR_LOWPASS, 101, 1000, 0}, {CF_FIR_LOWPASS, 1, 1000, 0},
    {CF_FIR_LOWPASS, 64, 5000, 0}, {CF_FIR_HIGHPASS, 101, 1000, 0},
    {CF_FIR_BANDPASS, 128, 2000, 6000},
  };
  guint f, d, w;

  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++)
    for (d = 0; d < G_N_ELEMENTS (designs); d++)
      for (w = 0; w < CF_FIR_WINDOW_COUNT; w++) {
        const int T = designs[d].n_taps, C = 3, frames = T + 200;
        const gboolean pass = designs[d].band == CF_FIR_LOWPASS;
        double *taps = g_new (double, T);
        Buf in, out;
        int n, c;

        g_assert_cmpint (cf_fir_design (taps, T, designs[d].band,
                designs[d].low, designs[d].high, 48000, w), ==, 0);
        buf_init (&in, f, C, frames);
        for (n = 0; n < frames; n++)
          for (c = 0; c < C; c++)
            buf_set (&in, n, c, f == CF_FIR_S16 ? 10000 - 7000 * c :
                0.75 - 0.5 * c);
        filter_once (f, taps, T, &in, &out);
        for (n = T - 1; n < frames; n++)
          for (c = 0; c < C; c++) {
            const double x = buf_get (&in, n, c), y = buf_get (&out, n, c);

            if (f == CF_FIR_S16)
              g_assert_cmpfloat (y, ==, pass ? x : 0.0);
            else
              g_assert_cmpfloat (fabs (y - (pass ? x : 0.0)), <=,
                  (f == CF_FIR_F32 ? 1e-6 : 1e-12) * fabs (x));
          }
        buf_clear (&in);
        buf_clear (&out);
        g_free (taps);
      }
}

/* S16 rounding is half away from zero, and saturates. */
static void
test_cpu_s16_rounding (void)
{
  static const gint16 x[] = { 1, -1, 3, -3, 5, 32767, -32768, 0 };
  static const gint16 half[] = { 1, -1, 2, -2, 3, 16384, -16384, 0 };
  static const gint16 twice[] = { 2, -2, 6, -6, 10, 32767, -32768, 0 };
  const double h_half = 0.5, h_twice = 2.0;
  gint16 out[G_N_ELEMENTS (x)];
  CfFir fir;

  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_S16, 1, &h_half, 1), ==, 0);
  g_assert_cmpint (cf_fir_cpu (&fir, x, out, G_N_ELEMENTS (x)), ==, 0);
  g_assert_cmpmem (out, sizeof (out), half, sizeof (half));
  cf_fir_clear (&fir);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_S16, 1, &h_twice, 1), ==, 0);
  g_assert_cmpint (cf_fir_cpu (&fir, x, out, G_N_ELEMENTS (x)), ==, 0);
  g_assert_cmpmem (out, sizeof (out), twice, sizeof (twice));
  cf_fir_clear (&fir);
}

/* ---- CPU against the float64 model ---- */

/* The plain float64 model of output frame @n of channel @c of the stream
 * @in (zero before it): plain products and sums in ascending t; *@scale
 * gets the sum of |h x|, which bounds the rounding errors. */
static double
model (const double *taps, int n_taps, const Buf * in, int n, int c,
    double *scale)
{
  double sum = 0.0, abs_sum = 0.0;
  int t;

  for (t = 0; t < n_taps && t <= n; t++) {
    const double p = taps[t] * buf_get (in, n - t, c);

    sum += p;
    abs_sum += fabs (p);
  }
  *scale = abs_sum;
  return sum;
}

static void
check_model (CfFirFormat format, int C, int T, gboolean dyadic, GRand * rand)
{
  const int frames = g_rand_int_range (rand, 1, 2 * T + 1500);
  /* S16: taps of about 4 / T, so that some sums saturate */
  double *taps = random_taps (rand, T, format == CF_FIR_S16 ? 4.0 / T :
      1.0, dyadic);
  char *what = g_strdup_printf ("%s model, %d channels, %d taps%s",
      format_names[format], C, T, dyadic ? ", dyadic" : "");
  Buf in, out;
  int n, c;

  buf_init (&in, format, C, frames);
  buf_random (&in, rand);
  filter_once (format, taps, T, &in, &out);
  for (n = 0; n < frames; n++)
    for (c = 0; c < C; c++) {
      double scale, want = model (taps, T, &in, n, c, &scale);
      const double got = buf_get (&out, n, c);

      switch (format) {
        case CF_FIR_F32:
          if (fabs (got - want) > 1e-6 * scale)
            g_error ("%s: frame %d channel %d: %.9g, model %.9g", what, n, c,
                got, want);
          break;
        case CF_FIR_F64:
          if (fabs (got - want) > 1e-12 * scale)
            g_error ("%s: frame %d channel %d: %.17g, model %.17g", what, n,
                c, got, want);
          break;
        default:
          want = CLAMP (want, -32768.0, 32767.0);
          /* exact sums: the rounding is the whole difference */
          if (dyadic ? got != CLAMP (round (want), -32768.0, 32767.0)
              : fabs (got - want) > 0.5 + 1e-12 * scale)
            g_error ("%s: frame %d channel %d: %g, model %.17g", what, n, c,
                got, want);
          break;
      }
    }
  buf_clear (&in);
  buf_clear (&out);
  g_free (taps);
  g_free (what);
}

static void
test_cpu_model (void)
{
  static const int channels[] = { 1, 2, 5, 8 };
  static const int n_taps[] = { 1, 2, 3, 17, 64, 255, 1000 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 1);
  guint f, i, k;

  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++)
    for (i = 0; i < G_N_ELEMENTS (channels); i++)
      for (k = 0; k < G_N_ELEMENTS (n_taps); k++) {
        check_model (f, channels[i], n_taps[k], FALSE, rand);
        if (f == CF_FIR_S16)
          check_model (f, channels[i], n_taps[k], TRUE, rand);
      }
  g_rand_free (rand);
}

/* ---- CPU: streaming, reset, draining ---- */

/* @in fed to @fir in random cuts into @out (made here). */
static void
filter_cut (CfFir * fir, const Buf * in, Buf * out, GRand * rand)
{
  int done = 0, n;

  buf_init (out, in->format, in->channels, in->frames);
  while (done < in->frames) {
    n = random_cut (rand, in->frames - done, fir->n_taps);
    g_assert_cmpint (cf_fir_cpu (fir, buf_frame (in, done),
            buf_frame (out, done), n), ==, 0);
    done += n;
  }
}

/* One stream, one call or cut at random, then its tail drained in one
 * call or cut: the same bytes, and the same history. */
static void
test_cpu_streaming (void)
{
  static const int channels[] = { 1, 2, 7 };
  static const int n_taps[] = { 1, 2, 33, 300, 2049 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 2);
  guint f, i, k;

  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++)
    for (i = 0; i < G_N_ELEMENTS (channels); i++)
      for (k = 0; k < G_N_ELEMENTS (n_taps); k++) {
        const int C = channels[i], T = n_taps[k];
        double *taps = random_taps (rand, T, 2.0 / sqrt (T), FALSE);
        char *what = g_strdup_printf ("%s streaming, %d channels, %d taps",
            format_names[f], C, T);
        Buf in, zeros, whole, cut, whole_tail, cut_tail;
        CfFir one, many;
        int stream;

        g_assert_cmpint (cf_fir_init (&one, f, C, taps, T), ==, 0);
        g_assert_cmpint (cf_fir_init (&many, f, C, taps, T), ==, 0);
        /* a few streams in a row: the history carries over */
        for (stream = 0; stream < 3; stream++) {
          buf_init (&in, f, C, g_rand_int_range (rand, 1, T + 2000));
          buf_random (&in, rand);
          buf_init (&whole, f, C, in.frames);
          g_assert_cmpint (cf_fir_cpu (&one, in.data, whole.data, in.frames),
              ==, 0);
          filter_cut (&many, &in, &cut, rand);
          check_equal (&cut, &whole, what);
          if (T > 1)
            g_assert_cmpmem (one.history, (T - 1) * C * in.sample_bytes,
                many.history, (T - 1) * C * in.sample_bytes);
          buf_clear (&in);
          buf_clear (&whole);
          buf_clear (&cut);
        }

        /* the tail: zero frames given, or fed as NULL, in cuts */
        buf_init (&zeros, f, C, T - 1);
        buf_init (&whole_tail, f, C, T - 1);
        g_assert_cmpint (cf_fir_cpu (&one, zeros.data, whole_tail.data,
                T - 1), ==, 0);
        buf_init (&cut_tail, f, C, T - 1);
        for (int done = 0, n; done < T - 1; done += n) {
          n = random_cut (rand, T - 1 - done, T);
          g_assert_cmpint (cf_fir_cpu (&many, NULL,
                  buf_frame (&cut_tail, done), n), ==, 0);
        }
        check_equal (&cut_tail, &whole_tail, what);

        cf_fir_clear (&one);
        cf_fir_clear (&many);
        buf_clear (&zeros);
        buf_clear (&whole_tail);
        buf_clear (&cut_tail);
        g_free (taps);
        g_free (what);
      }
  g_rand_free (rand);
}

/* After a reset, a filter gives what a fresh one gives; the whole tail of
 * a signal is its full convolution. */
static void
test_cpu_reset_drain (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 3);
  guint f;

  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++) {
    const int C = 4, T = 77;
    double *taps = random_taps (rand, T, 0.2, FALSE);
    Buf a, b, out, fresh, tail, padded, full;
    CfFir fir;
    int n, c, i;

    buf_init (&a, f, C, 500);
    buf_init (&b, f, C, 300);
    buf_random (&a, rand);
    buf_random (&b, rand);
    buf_init (&out, f, C, 500);
    g_assert_cmpint (cf_fir_init (&fir, f, C, taps, T), ==, 0);
    g_assert_cmpint (cf_fir_cpu (&fir, a.data, out.data, a.frames), ==, 0);
    cf_fir_reset (&fir);
    for (i = 0; i < (T - 1) * C * (int) a.sample_bytes; i++)
      g_assert_cmpint (((guint8 *) fir.history)[i], ==, 0);
    buf_clear (&out);
    buf_init (&out, f, C, 300);
    g_assert_cmpint (cf_fir_cpu (&fir, b.data, out.data, b.frames), ==, 0);
    filter_once (f, taps, T, &b, &fresh);
    check_equal (&out, &fresh, "after reset");

    /* b's tail, drained, against b padded with T - 1 zero frames */
    buf_init (&tail, f, C, T - 1);
    g_assert_cmpint (cf_fir_cpu (&fir, NULL, tail.data, T - 1), ==, 0);
    buf_init (&padded, f, C, b.frames + T - 1);
    memcpy (padded.data, b.data, buf_bytes (&b));
    filter_once (f, taps, T, &padded, &full);
    for (n = 0; n < T - 1; n++)
      for (c = 0; c < C; c++)
        g_assert_cmpfloat (buf_get (&tail, n, c), ==,
            buf_get (&full, b.frames + n, c));

    cf_fir_clear (&fir);
    buf_clear (&a);
    buf_clear (&b);
    buf_clear (&out);
    buf_clear (&fresh);
    buf_clear (&tail);
    buf_clear (&padded);
    buf_clear (&full);
    g_free (taps);
  }
  g_rand_free (rand);
}

/* ---- CPU: designs ---- */

static void
check_symmetric (const double *taps, int n)
{
  int i;

  for (i = 0; i < n / 2; i++)
    g_assert_cmpfloat (fabs (taps[i] - taps[n - 1 - i]), <=, 1e-15);
}

static void
test_cpu_design (void)
{
  /* stop-band gain 3 kHz beyond a 1 kHz cutoff with 101 taps, per window:
   * the windows' side lobes, -21, -44, -53, -74 dB, with some margin */
  static const double stop[CF_FIR_WINDOW_COUNT] = { 0.1, 1e-2, 5e-3, 1e-3 };
  double taps[129], saved[129];
  int w, i;

  for (w = 0; w < CF_FIR_WINDOW_COUNT; w++) {
    double sum = 0.0;

    g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_LOWPASS, 1000, 0,
            48000, w), ==, 0);
    check_symmetric (taps, 101);
    for (i = 0; i < 101; i++)
      sum += taps[i];
    g_assert_cmpfloat (fabs (sum - 1.0), <=, 1e-12);
    g_assert_cmpfloat (fabs (cf_fir_gain (taps, 101, 0, 48000) - 1), <=, 1e-12);
    g_assert_cmpfloat (fabs (cf_fir_gain (taps, 101, 1000, 48000) - 0.5), <=,
        0.05);
    g_assert_cmpfloat (cf_fir_gain (taps, 101, 4000, 48000), <, stop[w]);
    g_assert_cmpfloat (cf_fir_gain (taps, 101, 20000, 48000), <, stop[w]);

    g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_HIGHPASS, 1000, 0,
            48000, w), ==, 0);
    check_symmetric (taps, 101);
    g_assert_cmpfloat (cf_fir_gain (taps, 101, 0, 48000), <=, 1e-12);
    g_assert_cmpfloat (fabs (cf_fir_gain (taps, 101, 24000, 48000) - 1), <=,
        1e-12);
    g_assert_cmpfloat (fabs (cf_fir_gain (taps, 101, 10000, 48000) - 1), <=,
        stop[w]);

    g_assert_cmpint (cf_fir_design (taps, 128, CF_FIR_BANDPASS, 2000, 6000,
            48000, w), ==, 0);
    check_symmetric (taps, 128);
    g_assert_cmpfloat (cf_fir_gain (taps, 128, 0, 48000), <=, 1e-12);
    g_assert_cmpfloat (fabs (cf_fir_gain (taps, 128, 4000, 48000) - 1), <=,
        1e-12);
    g_assert_cmpfloat (cf_fir_gain (taps, 128, 15000, 48000), <, stop[w]);
  }

  /* one tap: the identity */
  g_assert_cmpint (cf_fir_design (taps, 1, CF_FIR_LOWPASS, 100, 0, 8000,
          CF_FIR_WINDOW_HANN), ==, 0);
  g_assert_cmpfloat (taps[0], ==, 1.0);

  /* bad arguments leave the taps alone */
  for (i = 0; i < 129; i++)
    saved[i] = taps[i] = i;
  g_assert_cmpint (cf_fir_design (taps, 100, CF_FIR_HIGHPASS, 1000, 0,
          48000, CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_LOWPASS, 0, 0, 48000,
          CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_LOWPASS, 24000, 0,
          48000, CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_BANDPASS, 3000, 2000,
          48000, CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_BANDPASS, 3000, 24000,
          48000, CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_LOWPASS, 1000, 0, 0,
          CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_LOWPASS, 1000, 0, NAN,
          CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 0, CF_FIR_LOWPASS, 1000, 0, 48000,
          CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, CF_FIR_MAX_TAPS + 1, CF_FIR_LOWPASS,
          1000, 0, 48000, CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_BAND_COUNT, 1000, 0,
          48000, CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpint (cf_fir_design (taps, 101, CF_FIR_LOWPASS, 1000, 0, 48000,
          CF_FIR_WINDOW_COUNT), ==, -1);
  g_assert_cmpint (cf_fir_design (NULL, 101, CF_FIR_LOWPASS, 1000, 0, 48000,
          CF_FIR_WINDOW_HANN), ==, -1);
  /* 3 taps cannot pass 23.99 kHz alone: the gain there is tiny */
  g_assert_cmpint (cf_fir_design (taps, 3, CF_FIR_BANDPASS, 23990, 23995,
          48000, CF_FIR_WINDOW_HANN), ==, -1);
  g_assert_cmpmem (taps, sizeof (taps), saved, sizeof (saved));
}

static void
test_cpu_invalid (void)
{
  const double taps[3] = { 0.25, 0.5, 0.25 }, bad[2] = { 1.0, NAN };
  double *many = g_new0 (double, CF_FIR_MAX_TAPS + 1);
  float in[6] = { 1, 2, 3, 4, 5, 6 }, out[6];
  CfFir fir, empty = { 0 };

  g_assert_cmpuint (cf_fir_sample_bytes (CF_FIR_F32), ==, 4);
  g_assert_cmpuint (cf_fir_sample_bytes (CF_FIR_F64), ==, 8);
  g_assert_cmpuint (cf_fir_sample_bytes (CF_FIR_S16), ==, 2);
  g_assert_cmpuint (cf_fir_sample_bytes (CF_FIR_FORMAT_COUNT), ==, 0);

  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_FORMAT_COUNT, 2, taps, 3), ==, -1);
  g_assert_null (fir.taps);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, 0, taps, 3), ==, -1);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, CF_FIR_MAX_CHANNELS + 1,
          taps, 3), ==, -1);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, 2, NULL, 3), ==, -1);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, 2, taps, 0), ==, -1);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, 2, many,
          CF_FIR_MAX_TAPS + 1), ==, -1);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, 2, bad, 2), ==, -1);
  g_assert_cmpint (cf_fir_init (NULL, CF_FIR_F32, 2, taps, 3), ==, -1);
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, CF_FIR_MAX_CHANNELS, many,
          CF_FIR_MAX_TAPS), ==, 0);
  cf_fir_clear (&fir);

  /* rejected calls change nothing: the history is still zero after them */
  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, 2, taps, 3), ==, 0);
  g_assert_cmpint (cf_fir_cpu (&fir, in, NULL, 3), ==, -1);
  g_assert_cmpint (cf_fir_cpu (&fir, in, in, 3), ==, -1);
  g_assert_cmpint (cf_fir_cpu (&fir, in, out, -1), ==, -1);
  g_assert_cmpint (cf_fir_cpu (NULL, in, out, 3), ==, -1);
  g_assert_cmpint (cf_fir_cpu (&empty, in, out, 3), ==, -1);
  g_assert_cmpint (cf_fir_cpu (&fir, in, out, 0), ==, 0);
  g_assert_cmpint (cf_fir_cpu (&fir, in, out, 1), ==, 0);
  g_assert_cmpfloat (out[0], ==, 0.25f);
  g_assert_cmpfloat (out[1], ==, 0.5f);
  cf_fir_clear (&fir);
  cf_fir_clear (&fir);
  cf_fir_clear (NULL);
  cf_fir_reset (NULL);
  cf_fir_reset (&empty);
  g_free (many);
}

/* ---- CUDA against the CPU reference ---- */
#ifdef HAVE_CUDA

#define POISON 0xA5             /* in device outputs before a launch */

static GRand *gpu_rand;
static cudaStream_t gpu_stream[2];

static void
gpu_begin (guint32 salt)
{
  gpu_rand = g_rand_new_with_seed (cf_test_seed () + salt);
  CHECK_CUDA (cudaStreamCreateWithFlags (&gpu_stream[0],
          cudaStreamNonBlocking));
  CHECK_CUDA (cudaStreamCreateWithFlags (&gpu_stream[1],
          cudaStreamNonBlocking));
}

static void
gpu_end (void)
{
  CHECK_CUDA (cudaStreamDestroy (gpu_stream[0]));
  CHECK_CUDA (cudaStreamDestroy (gpu_stream[1]));
  g_rand_free (gpu_rand);
}

/* A device copy of @b, or (@poison) a buffer of its size full of POISON. */
static void *
device_buf (const Buf * b, gboolean poison)
{
  void *d;

  CHECK_CUDA (cudaMalloc (&d, buf_bytes (b) + b->sample_bytes));
  if (poison)
    CHECK_CUDA (cudaMemsetAsync (d, POISON, buf_bytes (b), gpu_stream[0]));
  else
    CHECK_CUDA (cudaMemcpyAsync (d, b->data, buf_bytes (b),
            cudaMemcpyHostToDevice, gpu_stream[0]));
  CHECK_CUDA (cudaStreamSynchronize (gpu_stream[0]));
  return d;
}

/* Copies @d back into @b once every stream is done, then frees it. */
static void
device_finish (void *d, Buf * b)
{
  CHECK_CUDA (cudaDeviceSynchronize ());
  if (b)
    CHECK_CUDA (cudaMemcpy (b->data, d, buf_bytes (b), cudaMemcpyDeviceToHost));
  CHECK_CUDA (cudaFree (d));
}

/* Frames @first .. of device buffer @d laid out as @b. */
static void *
device_frame (void *d, const Buf * b, int first)
{
  return (guint8 *) d + b->sample_bytes * first * b->channels;
}

/* @d_fir fed @in (on the device as @d_in) in random cuts, on stream 0, or
 * on the two streams by turns when @alternate; the output comes back in
 * @out (made here). */
static void
gpu_filter_cut (CfFirDevice * d_fir, const Buf * in, void *d_in, int n_taps,
    gboolean alternate, Buf * out)
{
  void *d_out;
  int done = 0, n, call = 0;

  buf_init (out, in->format, in->channels, in->frames);
  d_out = device_buf (out, TRUE);
  while (done < in->frames) {
    n = random_cut (gpu_rand, in->frames - done, n_taps);
    CHECK_CUDA (cf_fir_cuda (d_fir, d_in ? device_frame (d_in, in, done) :
            NULL, device_frame (d_out, out, done), n,
            gpu_stream[alternate ? call++ % 2 : 0]));
    done += n;
  }
  device_finish (d_out, out);
}

/* A random stream through both backends, then T - 1 frames of its tail:
 * the CPU in one call each, the GPU in random cuts; every byte equal. */
static void
gpu_check (CfFirFormat format, int C, int T, int frames, gboolean alternate)
{
  double *taps = random_taps (gpu_rand, T, format == CF_FIR_S16 ? 4.0 / T :
      1.0, FALSE);
  char *what = g_strdup_printf ("%s GPU, %d channels, %d taps, %d frames%s",
      format_names[format], C, T, frames, alternate ? ", two streams" : "");
  Buf in, want, got, want_tail, got_tail;
  CfFirDevice *d_fir;
  void *d_in;
  CfFir fir;

  buf_init (&in, format, C, frames);
  buf_random (&in, gpu_rand);
  g_assert_cmpint (cf_fir_init (&fir, format, C, taps, T), ==, 0);
  CHECK_CUDA (cf_fir_device_new (&fir, &d_fir));
  buf_init (&want, format, C, frames);
  g_assert_cmpint (cf_fir_cpu (&fir, in.data, want.data, frames), ==, 0);
  buf_init (&want_tail, format, C, T - 1);
  g_assert_cmpint (cf_fir_cpu (&fir, NULL, want_tail.data, T - 1), ==, 0);

  d_in = device_buf (&in, FALSE);
  gpu_filter_cut (d_fir, &in, d_in, T, alternate, &got);
  check_equal (&got, &want, what);
  gpu_filter_cut (d_fir, &want_tail, NULL, T, alternate, &got_tail);
  check_equal (&got_tail, &want_tail, what);
  device_finish (d_in, NULL);

  cf_fir_device_free (d_fir);
  cf_fir_clear (&fir);
  buf_clear (&in);
  buf_clear (&want);
  buf_clear (&got);
  buf_clear (&want_tail);
  buf_clear (&got_tail);
  g_free (taps);
  g_free (what);
}

static void
test_cuda_matrix (void)
{
  static const int channels[] = { 1, 2, 8, 64 };
  static const int n_taps[] = { 1, 17, 64, 512, 2049 };
  guint f, i, k;

  gpu_begin (10);
  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++)
    for (i = 0; i < G_N_ELEMENTS (channels); i++)
      for (k = 0; k < G_N_ELEMENTS (n_taps); k++)
        gpu_check (f, channels[i], n_taps[k],
            g_rand_int_range (gpu_rand, 1, 3000), FALSE);
  gpu_end ();
}

/* Channel counts between the tile widths and up to the maximum, the
 * longest filter, and one-frame buffers. */
static void
test_cuda_shapes (void)
{
  static const int shapes[][3] = {
    /* channels, taps, frames */
    {3, 100, 2000}, {5, 33, 1500}, {6, 1025, 1000}, {33, 200, 1200},
    {100, 65, 700}, {CF_FIR_MAX_CHANNELS, 33, 1100},
    {CF_FIR_MAX_CHANNELS, 1, 300}, {2, CF_FIR_MAX_TAPS, 10000},
    {1, CF_FIR_MAX_TAPS, 3000}, {1, 2, 1}, {7, 4, 3},
  };
  guint f, s;

  gpu_begin (11);
  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++)
    for (s = 0; s < G_N_ELEMENTS (shapes); s++)
      gpu_check (f, shapes[s][0], shapes[s][1], shapes[s][2], FALSE);
  gpu_end ();
}

/* Calls on two streams by turns still stream as one. */
static void
test_cuda_streams (void)
{
  guint f;

  gpu_begin (12);
  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++) {
    gpu_check (f, 2, 512, 4000, TRUE);
    gpu_check (f, 64, 17, 2000, TRUE);
  }
  gpu_end ();
}

/* A device reset zeroes the history, and a stream moves from the CPU to
 * the GPU mid-way (the device filter starts from the host history). */
static void
test_cuda_reset_handover (void)
{
  guint f;

  gpu_begin (13);
  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++) {
    const int C = 3, T = 300;
    double *taps = random_taps (gpu_rand, T, 0.1, FALSE);
    Buf a, b, out, got, want;
    CfFirDevice *d_fir;
    CfFir fir;
    void *d_a, *d_b, *d_out;

    buf_init (&a, f, C, 1000);
    buf_init (&b, f, C, 800);
    buf_random (&a, gpu_rand);
    buf_random (&b, gpu_rand);
    buf_init (&out, f, C, 1000);
    d_a = device_buf (&a, FALSE);
    d_b = device_buf (&b, FALSE);

    /* reset: a, reset, b on the GPU is b on a fresh CPU filter */
    g_assert_cmpint (cf_fir_init (&fir, f, C, taps, T), ==, 0);
    CHECK_CUDA (cf_fir_device_new (&fir, &d_fir));
    d_out = device_buf (&out, TRUE);
    CHECK_CUDA (cf_fir_cuda (d_fir, d_a, d_out, a.frames, gpu_stream[0]));
    CHECK_CUDA (cf_fir_device_reset (d_fir, gpu_stream[1]));
    device_finish (d_out, NULL);
    gpu_filter_cut (d_fir, &b, d_b, T, FALSE, &got);
    filter_once (f, taps, T, &b, &want);
    check_equal (&got, &want, "GPU after reset");
    cf_fir_device_free (d_fir);
    buf_clear (&got);
    buf_clear (&want);

    /* handover: a on the CPU, then b on the GPU, is b after a */
    g_assert_cmpint (cf_fir_cpu (&fir, a.data, out.data, a.frames), ==, 0);
    CHECK_CUDA (cf_fir_device_new (&fir, &d_fir));
    gpu_filter_cut (d_fir, &b, d_b, T, FALSE, &got);
    buf_init (&want, f, C, b.frames);
    g_assert_cmpint (cf_fir_cpu (&fir, b.data, want.data, b.frames), ==, 0);
    check_equal (&got, &want, "GPU after the CPU");
    cf_fir_device_free (d_fir);

    device_finish (d_a, NULL);
    device_finish (d_b, NULL);
    cf_fir_clear (&fir);
    buf_clear (&a);
    buf_clear (&b);
    buf_clear (&out);
    buf_clear (&got);
    buf_clear (&want);
    g_free (taps);
  }
  gpu_end ();
}

static void
test_cuda_invalid (void)
{
  const double taps[3] = { 0.25, 0.5, 0.25 };
  CfFirDevice *d_fir = (CfFirDevice *) 1;
  CfFir fir, empty = { 0 };
  Buf out;
  guint8 *d_buf;
  size_t i;

  gpu_begin (14);
  g_assert_cmpint (cf_fir_device_new (&empty, &d_fir), ==,
      cudaErrorInvalidValue);
  g_assert_null (d_fir);
  g_assert_cmpint (cf_fir_device_new (NULL, &d_fir), ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_fir_device_new (&empty, NULL), ==, cudaErrorInvalidValue);
  cf_fir_device_free (NULL);

  g_assert_cmpint (cf_fir_init (&fir, CF_FIR_F32, 2, taps, 3), ==, 0);
  CHECK_CUDA (cf_fir_device_new (&fir, &d_fir));
  buf_init (&out, CF_FIR_F32, 2, 64);
  d_buf = device_buf (&out, TRUE);
  /* in: frames 0 .., out: frames 32 .. of the same allocation */
  g_assert_cmpint (cf_fir_cuda (NULL, d_buf, d_buf + 256, 16, gpu_stream[0]),
      ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_fir_cuda (d_fir, d_buf, NULL, 16, gpu_stream[0]), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (cf_fir_cuda (d_fir, d_buf, d_buf, 16, gpu_stream[0]), ==,
      cudaErrorInvalidValue);
  g_assert_cmpint (cf_fir_cuda (d_fir, d_buf, d_buf + 256, -1,
          gpu_stream[0]), ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_fir_cuda (d_fir, d_buf + 1, d_buf + 256, 16,
          gpu_stream[0]), ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_fir_cuda (d_fir, d_buf, d_buf + 258, 16,
          gpu_stream[0]), ==, cudaErrorInvalidValue);
  g_assert_cmpint (cf_fir_device_reset (NULL, gpu_stream[0]), ==,
      cudaErrorInvalidValue);
  CHECK_CUDA (cf_fir_cuda (d_fir, d_buf, d_buf + 256, 0, gpu_stream[0]));
  CHECK_CUDA (cudaGetLastError ());

  /* nothing was launched: the buffer is all poison */
  device_finish (d_buf, &out);
  for (i = 0; i < buf_bytes (&out); i++)
    g_assert_cmphex (out.data[i], ==, POISON);
  cf_fir_device_free (d_fir);
  cf_fir_clear (&fir);
  buf_clear (&out);
  gpu_end ();
}
#endif /* HAVE_CUDA */

/* cf_fir_cpu_threads () gives the bits of one thread for every count
 * (1, 2, 3, all the cores, 64): streams of buffers of many frames (split
 * into ranges of frames), of few (one part), of fewer frames than taps
 * (every range reads history), then drained with NULL; the histories
 * stay equal. */
static void
test_cpu_threads (void)
{
  static const int counts[] = { 2, 3, 0, 64 };
  static const int frames[] = { 5000, 3, 700, 70, 4097, 1 };
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 3);
  guint f, i, k;

  for (f = 0; f < CF_FIR_FORMAT_COUNT; f++)
    for (i = 0; i < G_N_ELEMENTS (counts); i++) {
      const int C = 1 + (int) (f + i) % 3, T = i % 2 ? 300 : 129;
      double *taps = random_taps (rand, T, 2.0 / sqrt (T), FALSE);
      char *what = g_strdup_printf ("%s, %d channels, %d taps, %d threads",
          format_names[f], C, T, counts[i]);
      CfFir one, many;

      g_assert_cmpint (cf_fir_init (&one, f, C, taps, T), ==, 0);
      g_assert_cmpint (cf_fir_init (&many, f, C, taps, T), ==, 0);
      for (k = 0; k <= G_N_ELEMENTS (frames); k++) {
        /* the last call drains: no input */
        const gboolean drain = k == G_N_ELEMENTS (frames);
        const int n = drain ? T + 50 : frames[k];
        Buf in, want, got;

        buf_init (&in, f, C, n);
        buf_random (&in, rand);
        buf_init (&want, f, C, n);
        buf_init (&got, f, C, n);
        g_assert_cmpint (cf_fir_cpu (&one, drain ? NULL : in.data, want.data,
                n), ==, 0);
        g_assert_cmpint (cf_fir_cpu_threads (&many, drain ? NULL : in.data,
                got.data, n, counts[i]), ==, 0);
        check_equal (&got, &want, what);
        g_assert_cmpmem (one.history, (T - 1) * C * in.sample_bytes,
            many.history, (T - 1) * C * in.sample_bytes);
        buf_clear (&in);
        buf_clear (&want);
        buf_clear (&got);
      }
      cf_fir_clear (&one);
      cf_fir_clear (&many);
      g_free (taps);
      g_free (what);
    }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  g_test_init (&argc, &argv, NULL);
  cf_test_seed ();

  if (!cf_test_want_cuda ()) {
    g_test_add_func ("/fir/cpu/impulse", test_cpu_impulse);
    g_test_add_func ("/fir/cpu/dc", test_cpu_dc);
    g_test_add_func ("/fir/cpu/s16-rounding", test_cpu_s16_rounding);
    g_test_add_func ("/fir/cpu/model", test_cpu_model);
    g_test_add_func ("/fir/cpu/streaming", test_cpu_streaming);
    g_test_add_func ("/fir/cpu/reset-drain", test_cpu_reset_drain);
    g_test_add_func ("/fir/cpu/design", test_cpu_design);
    g_test_add_func ("/fir/cpu/invalid", test_cpu_invalid);
    g_test_add_func ("/fir/cpu/threads", test_cpu_threads);
  }
#ifdef HAVE_CUDA
  if (cf_test_want_cuda ()) {
    g_test_add_func ("/fir/cuda/matrix", test_cuda_matrix);
    g_test_add_func ("/fir/cuda/shapes", test_cuda_shapes);
    g_test_add_func ("/fir/cuda/streams", test_cuda_streams);
    g_test_add_func ("/fir/cuda/reset-handover", test_cuda_reset_handover);
    g_test_add_func ("/fir/cuda/invalid", test_cuda_invalid);
  }
#endif
  return g_test_run ();
}

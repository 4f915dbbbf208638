/* FIR filtering on the CPU: the reference and CPU backend of kernels/fir.cu
 * (see fir.h), and the tap design both backends use.
 *
 * cf_fir_cpu () works one channel and one block of up to BLOCK output
 * frames at a time: it gathers the channel's inputs the block reaches
 * (history first, then the buffer) into a contiguous window of doubles,
 * then adds tap after tap to all the block's sums, so that the inner loop
 * runs along frames over contiguous memory while every single sum still
 * takes its taps in ascending order (fir.h's contract). The scratch is
 * allocated once, at init, so a call never allocates and only fails on bad
 * arguments. A threaded call (cf_fir_cpu_threads ()) splits the buffer
 * into ranges of output frames, every channel of them, each part with
 * scratch of its own (allocated per call; one part when that fails): an
 * output depends on inputs only, so the ranges are independent and the bits
 * the same.
 */
#include "../fir.h"
#include "../threads.h"
#include "clones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Output frames per pass over the taps: the window holds BLOCK + T - 1
 * doubles, the sums BLOCK, together at most 100 KB at 8192 taps. */
#define BLOCK 1024
/* Sums computed side by side (see accumulate ()). */
#define LANES 8
/* The least work (multiply-adds) worth a part of its own in
 * cf_fir_cpu_threads (): some tens of microseconds. */
#define PART_MIN_MACS (1 << 16)

/* x86-64 builds for CPUs without FMA by default, and fma () is then a
 * library call per tap (glibc picks the FMA instruction at run time, but
 * the call still costs several times the instruction). A clone of the
 * inner loop compiled for FMA (clones.h), chosen at load time,
 * multiplies-adds inline; the result is the same, fma () being exact
 * either way. */

size_t
cf_fir_sample_bytes (CfFirFormat format)
{
  switch (format) {
    case CF_FIR_F32:
      return sizeof (float);
    case CF_FIR_F64:
      return sizeof (double);
    case CF_FIR_S16:
      return sizeof (int16_t);
    default:
      return 0;
  }
}

void
cf_fir_clear (CfFir * fir)
{
  if (!fir)
    return;
  free (fir->taps);
  free (fir->history);
  free (fir->window);
  free (fir->acc);
  memset (fir, 0, sizeof (*fir));
}

int
cf_fir_init (CfFir * fir, CfFirFormat format, int channels,
    const double *taps, int n_taps)
{
  const size_t sample_bytes = cf_fir_sample_bytes (format);
  int t, ok;

  if (!fir)
    return -1;
  memset (fir, 0, sizeof (*fir));
  if (sample_bytes == 0 || channels < 1 || channels > CF_FIR_MAX_CHANNELS
      || !taps || n_taps < 1 || n_taps > CF_FIR_MAX_TAPS)
    return -1;
  for (t = 0; t < n_taps; t++)
    if (!isfinite (taps[t]))
      return -1;

  fir->format = format;
  fir->channels = channels;
  fir->n_taps = n_taps;
  fir->taps = malloc (sizeof (double) * n_taps);
  fir->window = malloc (sizeof (double) * (BLOCK + n_taps - 1));
  fir->acc = malloc (sizeof (double) * BLOCK);
  if (n_taps > 1)
    fir->history = calloc ((size_t) (n_taps - 1) * channels, sample_bytes);
  ok = fir->taps && fir->window && fir->acc && (n_taps == 1 || fir->history);
  if (!ok) {
    cf_fir_clear (fir);
    return -1;
  }
  memcpy (fir->taps, taps, sizeof (double) * n_taps);
  return 0;
}

void
cf_fir_reset (CfFir * fir)
{
  /* all-zero bytes are +0.0 and 0 in every format */
  if (fir && fir->history)
    memset (fir->history, 0, (size_t) (fir->n_taps - 1) * fir->channels *
        cf_fir_sample_bytes (fir->format));
}

/* Sample @i of a buffer of @format, exactly as a double. */
static double
load (CfFirFormat format, const void *base, size_t i)
{
  switch (format) {
    case CF_FIR_F32:
      return ((const float *) base)[i];
    case CF_FIR_F64:
      return ((const double *) base)[i];
    default:
      return ((const int16_t *) base)[i];
  }
}

/* Writes the sum @acc as sample @i of a buffer of @format, rounded as fir.h
 * says (kernels/fir.cu's store () does the same). */
static void
store (CfFirFormat format, void *base, size_t i, double acc)
{
  double v;

  switch (format) {
    case CF_FIR_F32:
      ((float *) base)[i] = (float) acc;
      break;
    case CF_FIR_F64:
      ((double *) base)[i] = acc;
      break;
    default:
      v = round (acc);
      ((int16_t *) base)[i] = v >= 32767.0 ? 32767 : v <= -32768.0 ? -32768 :
          v == v ? (int16_t) v : 0;
      break;
  }
}

/* Keeps the last n_taps - 1 frames of history followed by @n_frames frames
 * of @in (zeros when NULL) as the new history. */
static void
keep_history (CfFir * fir, const void *in, int n_frames)
{
  const size_t frame_bytes = (size_t) fir->channels *
      cf_fir_sample_bytes (fir->format);
  const size_t keep = fir->n_taps - 1;
  uint8_t *h = fir->history;

  if (keep == 0)
    return;
  if ((size_t) n_frames >= keep) {
    if (in)
      memcpy (h, (const uint8_t *) in + (n_frames - keep) * frame_bytes,
          keep * frame_bytes);
    else
      memset (h, 0, keep * frame_bytes);
    return;
  }
  memmove (h, h + n_frames * frame_bytes, (keep - n_frames) * frame_bytes);
  if (in)
    memcpy (h + (keep - n_frames) * frame_bytes, in, n_frames * frame_bytes);
  else
    memset (h + (keep - n_frames) * frame_bytes, 0, n_frames * frame_bytes);
}

/* acc[i] = the sum of taps[t] * window[keep + i - t], t ascending, for
 * i < @frames (keep = n_taps - 1): LANES sums at a time, held in registers
 * as independent chains, so the loads of the taps and the window are shared
 * and the multiply-adds pipeline (one sum after the other would wait on
 * each one's latency). */
static void CF_CLONES_FMA
accumulate (const double *taps, int n_taps, const double *window, int frames,
    double *acc)
{
  const double *last = window + n_taps - 1;
  int i, t, j;

  for (i = 0; i + LANES <= frames; i += LANES) {
    double s[LANES];

    for (j = 0; j < LANES; j++)
      s[j] = 0.0;
    for (t = 0; t < n_taps; t++) {
      const double h = taps[t], *x = last + i - t;

      for (j = 0; j < LANES; j++)
        s[j] = fma (h, x[j], s[j]);
    }
    for (j = 0; j < LANES; j++)
      acc[i + j] = s[j];
  }
  for (; i < frames; i++) {
    double s = 0.0;

    for (t = 0; t < n_taps; t++)
      s = fma (taps[t], last[i - t], s);
    acc[i] = s;
  }
}

/* Output frames @f0 .. @f1 - 1 of every channel, with @window and @acc as
 * scratch (BLOCK + n_taps - 1 and BLOCK doubles). Each output reads the
 * inputs and history only, never another output, so any range may be
 * filtered apart from the others. */
static void
filter_frames (const CfFir * fir, const void *in, void *out, int f0, int f1,
    double *window, double *acc)
{
  const int channels = fir->channels, n_taps = fir->n_taps;
  const int keep = n_taps - 1;
  int first, c, i;

  for (first = f0; first < f1; first += BLOCK) {
    const int frames = f1 - first < BLOCK ? f1 - first : BLOCK;

    for (c = 0; c < channels; c++) {
      /* window[j] = x[first - keep + j] of channel c, for the sums of
       * frames first .. first + frames - 1 */
      for (i = 0; i < keep + frames; i++) {
        const int k = first - keep + i;

        if (k < 0)
          window[i] = load (fir->format, fir->history,
              (size_t) (keep + k) * channels + c);
        else
          window[i] = in ? load (fir->format, in,
              (size_t) k * channels + c) : 0.0;
      }
      accumulate (fir->taps, n_taps, window, frames, acc);
      for (i = 0; i < frames; i++)
        store (fir->format, out, (size_t) (first + i) * channels + c, acc[i]);
    }
  }
}

/* One threaded call: ranges of output frames, each part with its own
 * scratch (part 0 the filter's). */
typedef struct
{
  const CfFir *fir;
  const void *in;
  void *out;
  int n_frames, n_parts;
  double *scratch;              /* [n_parts - 1][BLOCK + n_taps - 1 + BLOCK] */
} FirJob;

static void
fir_part (void *data, int part)
{
  const FirJob *job = data;
  const CfFir *fir = job->fir;
  double *window = fir->window, *acc = fir->acc;

  if (part > 0) {
    window = job->scratch + (size_t) (part - 1) * (2 * BLOCK +
        fir->n_taps - 1);
    acc = window + BLOCK + fir->n_taps - 1;
  }
  filter_frames (fir, job->in, job->out,
      cf_parallel_split (job->n_frames, job->n_parts, part),
      cf_parallel_split (job->n_frames, job->n_parts, part + 1), window, acc);
}

int
cf_fir_cpu_threads (CfFir * fir, const void *in, void *out, int n_frames,
    int n_threads)
{
  FirJob job = { fir, in, out, n_frames, 1, NULL };
  int64_t parts;

  if (!fir || !fir->taps || !out || n_frames < 0 || in == out)
    return -1;
  /* a part of fewer multiply-adds than PART_MIN_MACS costs more to hand
   * over than it saves */
  parts = (int64_t) n_frames * fir->channels * fir->n_taps / PART_MIN_MACS;
  if (parts > 1) {
    job.n_parts = parts < cf_parallel_parts (n_threads, n_frames) ?
        (int) parts : cf_parallel_parts (n_threads, n_frames);
    job.scratch = job.n_parts > 1 ? malloc (sizeof (double) * (job.n_parts -
            1) * (2 * BLOCK + fir->n_taps - 1)) : NULL;
    if (!job.scratch)
      job.n_parts = 1;
  }
  cf_parallel_for (n_threads, job.n_parts, fir_part, &job);
  free (job.scratch);
  keep_history (fir, in, n_frames);
  return 0;
}

int
cf_fir_cpu (CfFir * fir, const void *in, void *out, int n_frames)
{
  return cf_fir_cpu_threads (fir, in, out, n_frames, 1);
}

/* ---- design ---- */

/* sin (pi x) / (pi x); exactly 1 at 0 and 0 at the other integers, which
 * sin () in double is not. */
static double
sinc (double x)
{
  if (x == 0.0)
    return 1.0;
  if (x == floor (x))
    return 0.0;
  return sin (M_PI * x) / (M_PI * x);
}

/* Symmetric window of @n points at point @i. */
static double
window_at (CfFirWindow window, int i, int n)
{
  double a;

  if (n == 1)
    return 1.0;
  a = 2.0 * M_PI * i / (n - 1);
  switch (window) {
    case CF_FIR_WINDOW_HANN:
      return 0.5 - 0.5 * cos (a);
    case CF_FIR_WINDOW_HAMMING:
      return 0.54 - 0.46 * cos (a);
    case CF_FIR_WINDOW_BLACKMAN:
      return 0.42 - 0.5 * cos (a) + 0.08 * cos (2.0 * a);
    default:
      return 1.0;
  }
}

/* Windowed-sinc low-pass at @fc cycles per sample, summing to 1. Returns
 * -1 when the sum is not positive (cannot be normalized). */
static int
lowpass (double *taps, int n, double fc, CfFirWindow window)
{
  const double middle = (n - 1) / 2.0;
  double sum = 0.0;
  int i;

  for (i = 0; i < n; i++) {
    taps[i] = window_at (window, i, n) * 2.0 * fc *
        sinc (2.0 * fc * (i - middle));
    sum += taps[i];
  }
  if (!(sum > 0.0))
    return -1;
  for (i = 0; i < n; i++)
    taps[i] /= sum;
  return 0;
}

/* The real amplitude of symmetric taps at @f cycles per sample: the
 * response with the linear phase of the delay (n - 1) / 2 taken out. */
static double
amplitude (const double *taps, int n, double f)
{
  const double middle = (n - 1) / 2.0;
  double a = 0.0;
  int i;

  for (i = 0; i < n; i++)
    a += taps[i] * cos (2.0 * M_PI * f * (i - middle));
  return a;
}

double
cf_fir_gain (const double *taps, int n_taps, double freq_hz, double rate)
{
  double re = 0.0, im = 0.0;
  int i;

  if (!taps || n_taps < 1 || !(rate > 0.0))
    return NAN;
  for (i = 0; i < n_taps; i++) {
    const double w = 2.0 * M_PI * freq_hz / rate * i;

    re += taps[i] * cos (w);
    im -= taps[i] * sin (w);
  }
  return hypot (re, im);
}

int
cf_fir_design (double *taps, int n_taps, CfFirBand band, double low_hz,
    double high_hz, double rate, CfFirWindow window)
{
  const double nyquist = rate / 2.0;
  double *lp, scale_f = 0.0, gain;
  int i, ret = 0;

  if (!taps || n_taps < 1 || n_taps > CF_FIR_MAX_TAPS
      || (int) band < 0 || band >= CF_FIR_BAND_COUNT
      || (int) window < 0 || window >= CF_FIR_WINDOW_COUNT
      || !(rate > 0.0) || !isfinite (rate)
      || !(low_hz > 0.0) || !(low_hz < nyquist))
    return -1;
  if (band == CF_FIR_HIGHPASS && n_taps % 2 == 0)
    return -1;
  if (band == CF_FIR_BANDPASS && !(high_hz > low_hz && high_hz < nyquist))
    return -1;

  /* work on a copy, so that @taps is untouched on failure */
  if (!(lp = malloc (sizeof (double) * 2 * n_taps)))
    return -1;
  if (lowpass (lp, n_taps, low_hz / rate, window) != 0)
    ret = -1;
  else if (band == CF_FIR_HIGHPASS) {
    /* spectral inversion: the delta at the middle tap minus the low-pass */
    for (i = 0; i < n_taps; i++)
      lp[i] = (i == n_taps / 2 ? 1.0 : 0.0) - lp[i];
    scale_f = 0.5;
  } else if (band == CF_FIR_BANDPASS) {
    double *upper = lp + n_taps;

    if (lowpass (upper, n_taps, high_hz / rate, window) != 0)
      ret = -1;
    for (i = 0; i < n_taps; i++)
      lp[i] = upper[i] - lp[i];
    scale_f = (low_hz + high_hz) / 2.0 / rate;
  }

  /* scaling by a tiny gain would blow the taps up: the band does not pass
   * with this few taps */
  if (ret == 0 && band != CF_FIR_LOWPASS) {
    gain = amplitude (lp, n_taps, scale_f);
    if (!(gain > 1e-6))
      ret = -1;
    for (i = 0; i < n_taps; i++)
      lp[i] /= gain;
  }
  if (ret == 0)
    memcpy (taps, lp, sizeof (double) * n_taps);
  free (lp);
  return ret;
}

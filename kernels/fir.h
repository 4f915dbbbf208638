/* gst-cudafilters kernel library: streaming FIR filtering of interleaved
 * multichannel audio (cudaaudiofir).
 *
 * Per channel c, with taps h[0 .. T-1]:
 *
 *   y[n][c] = sum over t = 0 .. T-1 of h[t] * x[n - t][c]
 *
 * Samples are F32, F64 or S16 (native endianness), interleaved: frame n of
 * a buffer is its samples n * channels .. n * channels + channels - 1, in
 * and out in the same format. 1 .. CF_FIR_MAX_CHANNELS channels,
 * 1 .. CF_FIR_MAX_TAPS taps, any number of frames per call.
 *
 * Streaming. A filter keeps the last T-1 input frames it was given (its
 * history; zeros after init and reset), and x[n - t] for n - t < 0 is read
 * from it. So a stream cut into buffers of any sizes (1 frame, fewer frames
 * than taps, ...) gives exactly the same output samples, bit for bit, as
 * the whole stream in one call, on each backend. Reset (DISCONT, flush)
 * zeroes the history. Draining feeds zero frames: T-1 of them give the
 * whole tail of the convolution, or as many as the element's latency
 * compensation needs.
 *
 * Arithmetic, the same on both backends:
 * - every input sample is converted to double (exactly, for all three
 *   formats) and the output sample accumulated in double, tap after tap in
 *   ascending t, each step one fused multiply-add rounded once:
 *     acc = +0.0; for t = 0 .. T-1: acc = fma (h[t], x[n - t], acc)
 *   (fma () of math.h on the CPU, __fma_rn () on the GPU: both IEEE 754
 *   fusedMultiplyAdd, round to nearest even);
 * - F64 output is acc; F32 output is acc rounded to the nearest float
 *   (ties to even); S16 output is acc rounded to the nearest integer, ties
 *   away from zero (C's round ()), then saturated to -32768 .. 32767 (a NaN
 *   sum, only possible with huge taps, gives 0).
 * Since the operations and their order are the same, the GPU and the CPU
 * give the same bits for every format, F32 and F64 included, as long as
 * input and taps are finite (NaN payloads and infinities are not
 * specified). The tests check this: S16, F32 and F64 bit-exact, GPU
 * against CPU.
 *
 * Against the exact value of the sum, the accumulation errs by at most
 * about T * 2^-53 * sum over t of |h[t] x[n - t]| (under 1e-12 of it for
 * 8192 taps), far below F32's and S16's own rounding; the tests check
 * F32 and F64 within 1e-6 (resp. 1e-12) of that scale against a plain
 * float64 model, and S16 exactly where the sums are exact in double.
 *
 * Taps are the caller's doubles; cf_fir_design () makes windowed-sinc
 * low-pass, high-pass and band-pass taps. Both backends filter with the
 * same taps, the CUDA one with copies made by cf_fir_device_new ().
 *
 * The fixed summation order is what makes the bits reproducible; it also
 * makes each output a chain of T dependent multiply-adds, so a call costs
 * at least T fma latencies on the GPU whatever its size (estimated, not
 * yet measured: some 40 us for 8192 taps), besides the launch.
 */
#ifndef CF_FIR_H
#define CF_FIR_H

#include <stddef.h>
#include <stdint.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CF_FIR_MAX_CHANNELS 256
#define CF_FIR_MAX_TAPS 8192

typedef enum {
  CF_FIR_F32,
  CF_FIR_F64,
  CF_FIR_S16,
  CF_FIR_FORMAT_COUNT           /* also "no such format" */
} CfFirFormat;

typedef enum {
  CF_FIR_LOWPASS,
  CF_FIR_HIGHPASS,
  CF_FIR_BANDPASS,
  CF_FIR_BAND_COUNT
} CfFirBand;

typedef enum {
  CF_FIR_WINDOW_RECTANGULAR,
  CF_FIR_WINDOW_HANN,
  CF_FIR_WINDOW_HAMMING,
  CF_FIR_WINDOW_BLACKMAN,
  CF_FIR_WINDOW_COUNT
} CfFirWindow;

/* A filter and its state, in host memory. */
typedef struct {
  CfFirFormat format;
  int channels;
  int n_taps;
  double *taps;                 /* [n_taps], a copy of the caller's */
  void *history;                /* [(n_taps - 1) * channels] samples of
                                 * format: the last n_taps - 1 input frames,
                                 * oldest first; NULL for 1 tap */
  double *window;               /* cf_fir_cpu ()'s scratch: one channel's
                                 * inputs for a block of outputs ... */
  double *acc;                  /* ... and their sums */
} CfFir;

/* Bytes of one sample of @format (4, 8, 2), 0 for an unknown one. */
size_t cf_fir_sample_bytes (CfFirFormat format);

/* Makes a filter of @n_taps taps (1 .. CF_FIR_MAX_TAPS, finite; copied)
 * over @channels channels (1 .. CF_FIR_MAX_CHANNELS) of @format, history
 * zeroed. Returns 0, or -1 (and @fir cleared) on bad arguments or when
 * memory runs out. */
int cf_fir_init (CfFir * fir, CfFirFormat format, int channels,
    const double *taps, int n_taps);
/* Frees the filter; safe on a cleared or failed one. */
void cf_fir_clear (CfFir * fir);
/* Zeroes the history (DISCONT, flush): the next call starts a new stream. */
void cf_fir_reset (CfFir * fir);

/* CPU reference and backend: filters @n_frames frames of @in into @out
 * (host memory aligned to the sample type, buffers that do not
 * overlap) and keeps the last n_taps - 1 input frames as history. @in NULL
 * feeds zero frames (draining the tail). @n_frames 0 does nothing. Returns
 * 0, or -1 on bad arguments (nothing changed then). */
int cf_fir_cpu (CfFir * fir, const void *in, void *out, int n_frames);
/* The same over up to @n_threads threads (threads.h: 0 = all the cores),
 * each filtering a range of the buffer's output frames (every channel);
 * buffers of little work (frames x channels x taps below some 65000
 * multiply-adds per part) take fewer parts, down to one. The same bits for
 * any count. cf_fir_cpu () is this with 1. */
int cf_fir_cpu_threads (CfFir * fir, const void *in, void *out, int n_frames,
    int n_threads);

/* Windowed-sinc taps (the ideal response's taps times a window, as
 * scipy.signal.firwin makes them), linear phase (symmetric about
 * (n_taps - 1) / 2), for a sample rate of @rate Hz:
 * - CF_FIR_LOWPASS (cutoff @low_hz; @high_hz unused): the taps sum to 1
 *   (DC gain 1, within rounding);
 * - CF_FIR_HIGHPASS (cutoff @low_hz): the delta minus the low-pass above,
 *   so DC gain 0 (within rounding), then scaled to gain 1 at rate / 2;
 *   @n_taps must be odd (an even linear-phase filter is 0 at rate / 2);
 * - CF_FIR_BANDPASS (@low_hz .. @high_hz): the low-pass at @high_hz minus
 *   the one at @low_hz (DC gain 0), scaled to gain 1 at the band's centre
 *   frequency.
 * Cutoffs are where the ideal response steps, 0 < low < (high <) rate / 2.
 * Windows are the symmetric ones, as scipy's (Hann and Blackman end on
 * taps of 0, or nearly). Returns 0, or -1 on bad arguments or a band
 * that this few taps cannot pass (gain below 1e-6 where it should be 1);
 * @taps is untouched then. */
int cf_fir_design (double *taps, int n_taps, CfFirBand band, double low_hz,
    double high_hz, double rate, CfFirWindow window);

/* Gain |H (f)| of @taps at @freq_hz for sample rate @rate, NAN on bad
 * arguments: for tests and for checking a design. */
double cf_fir_gain (const double *taps, int n_taps, double freq_hz,
    double rate);

#ifdef HAVE_CUDA
/* A filter's taps and history in device memory, and the order of its
 * calls. */
typedef struct CfFirDevice CfFirDevice;

/* Copies @fir's taps and current history to the device (synchronously:
 * complete when this returns), so a stream may also move from the CPU
 * backend to the GPU mid-way. */
cudaError_t cf_fir_device_new (const CfFir * fir, CfFirDevice ** d_fir);
/* Safe on NULL. Waits for the device's work on the filter to end. */
void cf_fir_device_free (CfFirDevice * d_fir);
/* Zeroes the device history on @stream, in call order (see below). */
cudaError_t cf_fir_device_reset (CfFirDevice * d_fir, cudaStream_t stream);

/* GPU launcher: filters @n_frames frames of device memory @d_in into
 * @d_out (aligned to the sample type, not overlapping) on @stream, with
 * the device's history, which the same launch updates. @d_in NULL feeds
 * zero frames (draining). Calls stream in the order they are made on the
 * host, whatever streams they are given: each call's work waits for the
 * previous call's on the same filter (an event), so frames in flight on
 * different streams still filter as one stream. @n_frames 0 does nothing.
 * Returns cudaErrorInvalidValue for bad arguments (nothing enqueued then),
 * otherwise the first error of the calls it makes. */
cudaError_t cf_fir_cuda (CfFirDevice * d_fir, const void *d_in, void *d_out,
    int n_frames, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_FIR_H */

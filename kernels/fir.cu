/* FIR filtering of interleaved audio on the GPU (see fir.h): one launch per
 * call, covering every channel and frame, and the history update.
 *
 * The input a call sees is ext = [history (T-1 frames) | buffer (n frames)]
 * and output frame f needs ext frames f .. f + T-1. The grid is 1D:
 *
 * - Filter blocks, one per tile of FT consecutive frames by CT channels
 *   (CT the smallest power of two >= channels, at most 32, so a small
 *   channel count does not leave most threads idle). Thread (lane_f,
 *   lane_c) of a block (lane_c fastest) sums output frames lane_f + r * FL
 *   (FL = 256 / CT frame lanes, r < R) of channel lane_c, in registers.
 *   The taps are taken TC at a time: the block stages the chunk's taps and
 *   the FT + TC - 1 ext frames of its channels the chunk reaches into
 *   shared memory, converted to double, then every thread adds the chunk's
 *   taps to its R sums in ascending order. FT x CT = 1024 outputs and
 *   TC x CT = 1024 taps-by-channels whatever CT, so shared memory stays
 *   within 24 KB and a warp reads 32 consecutive doubles of the window (no bank
 *   conflicts): for mono, FT = 1024 frames and TC = 1024 taps; for 32
 *   channels and more, FT = TC = 32.
 * - Copy blocks, after the filter blocks: they write the new history, ext's
 *   last T-1 frames, which is one contiguous run of ext, into the second of
 *   two history buffers (the filter blocks only read the first); the host
 *   swaps the two after the launch. They are separate blocks, enough of
 *   them for the history to move at full bandwidth even when the buffer is
 *   one frame and the filter one block.
 *
 * Each sum is cf_fir_cpu ()'s, operation for operation: +0.0, then one
 * __fma_rn per tap in ascending order, the same rounding to the output
 * format; the conversions to double are exact. So the bits agree.
 * Partial tap chunks and tiles never add a padding tap (fma (0, x, -0.0)
 * would turn a -0.0 sum into +0.0).
 *
 * Calls are ordered through an event recorded after each one and waited
 * for before the next, so the history passes from call to call whatever
 * streams they run on.
 */
#include "fir.h"
#include "cuda-common.cuh"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int kThreads = 256;
constexpr int kOutputsPerThread = 4;    /* R */
constexpr int kTileSamples = 1024;      /* FT x CT, and TC x CT */
constexpr int kCopyPerThread = 8;       /* see copy_blocks () */
constexpr int kMaxCopyBlocks = 1024;

/* The shape of a filter tile for CT channels. */
template <int CT>
struct Tile {
  static constexpr int kFrameLanes = kThreads / CT;     /* FL */
  static constexpr int kFrames = kTileSamples / CT;     /* FT = FL x R */
  static constexpr int kTaps = kTileSamples / CT;       /* TC */
  static constexpr int kWindow = (kFrames + kTaps - 1) * CT;
  static_assert (kFrames == kFrameLanes * kOutputsPerThread, "tile shape");
};

struct Args {
  const double *taps;
  int n_taps;
  int channels;
  int n_frames;
  const void *in;               /* NULL: zero frames */
  void *out;
  const void *history;          /* [(n_taps - 1) * channels], read */
  void *next_history;           /* [(n_taps - 1) * channels], written */
  long long tiles_x;            /* frame tiles */
  long long tiles;              /* filter blocks: tiles_x x channel tiles */
};

/* What the kernel does, also callable on the host, where it can be checked
 * against the C reference without a GPU. */
__host__ __device__ __forceinline__ double
fused_multiply_add (double a, double b, double c)
{
#ifdef __CUDA_ARCH__
  return __fma_rn (a, b, c);
#else
  return fma (a, b, c);
#endif
}

/* cpu/fir.c's store (): the sum as a sample of the output format. */
__host__ __device__ __forceinline__ void
store (float *p, double acc)
{
#ifdef __CUDA_ARCH__
  *p = __double2float_rn (acc);
#else
  *p = (float) acc;
#endif
}

__host__ __device__ __forceinline__ void
store (double *p, double acc)
{
  *p = acc;
}

__host__ __device__ __forceinline__ void
store (int16_t * p, double acc)
{
  const double v = round (acc);         /* ties away from zero */

  *p = v >= 32767.0 ? 32767 : v <= -32768.0 ? -32768 : v == v ? (int16_t) v
      : 0;
}

/* ext frame @e (history, then the buffer) of channel @c, as a double;
 * 0 outside ext and beyond the channels. */
template <typename S>
__host__ __device__ __forceinline__ double
ext_sample (const Args & a, long long e, int c)
{
  const long long keep = a.n_taps - 1;

  if (e < 0 || e >= keep + a.n_frames || c >= a.channels)
    return 0.0;
  if (e < keep)
    return (double) ld ((const S *) a.history + e * a.channels + c);
  if (!a.in)
    return 0.0;
  return (double) ld ((const S *) a.in + (e - keep) * a.channels + c);
}

/* Where filter block @block works: its first frame and first channel, and
 * how many of its frames are in the buffer. */
struct TilePos {
  long long first_frame;
  int first_channel;
  int frames;
};

template <int CT>
__host__ __device__ __forceinline__ TilePos
tile_pos (const Args & a, long long block)
{
  TilePos p;
  const long long left = a.n_frames - (block % a.tiles_x) * Tile<CT>::kFrames;

  p.first_frame = (block % a.tiles_x) * Tile<CT>::kFrames;
  p.first_channel = (int) (block / a.tiles_x) * CT;
  p.frames = left < Tile<CT>::kFrames ? (int) left : Tile<CT>::kFrames;
  return p;
}

/* Thread @tid's share of staging taps k0 .. k0 + tc - 1 and the window they
 * reach: s_window[j * CT + i] = ext frame e0 + j of channel
 * first_channel + i, with e0 = first_frame + T - k0 - tc, so that output
 * frame first_frame + lf and tap k0 + tt meet at window frame
 * lf + tc - 1 - tt. Frames beyond the tile's last output are not needed. */
template <typename S, int CT>
__host__ __device__ __forceinline__ void
stage (const Args & a, const TilePos & p, int k0, int tc, int tid,
    double *s_taps, double *s_window)
{
  const long long e0 = p.first_frame + a.n_taps - k0 - tc;
  const int samples = (p.frames + tc - 1) * CT;

  for (int i = tid; i < tc; i += kThreads)
    s_taps[i] = ld (a.taps + k0 + i);
  for (int i = tid; i < samples; i += kThreads)
    s_window[i] = ext_sample<S> (a, e0 + i / CT, p.first_channel + i % CT);
}

/* Thread @tid adds the staged taps, in ascending order, to its sums. Sums
 * of frames beyond the tile's are left alone (their window is not
 * staged). */
template <int CT>
__host__ __device__ __forceinline__ void
accumulate (const TilePos & p, int tc, int tid, const double *s_taps,
    const double *s_window, double *acc)
{
  constexpr int FL = Tile<CT>::kFrameLanes;
  const int lane_f = tid / CT, lane_c = tid % CT;

  if (lane_f >= p.frames)
    return;
  for (int tt = 0; tt < tc; tt++) {
    const double h = s_taps[tt];
    const double *x = s_window + (lane_f + tc - 1 - tt) * CT + lane_c;

    for (int r = 0; r < kOutputsPerThread; r++)
      if (lane_f + r * FL < p.frames)
        acc[r] = fused_multiply_add (h, x[r * FL * CT], acc[r]);
  }
}

/* Thread @tid writes its sums. */
template <typename S, int CT>
__host__ __device__ __forceinline__ void
write_out (const Args & a, const TilePos & p, int tid, const double *acc)
{
  constexpr int FL = Tile<CT>::kFrameLanes;
  const int lane_f = tid / CT, c = p.first_channel + tid % CT;

  if (c >= a.channels)
    return;
  for (int r = 0; r < kOutputsPerThread; r++)
    if (lane_f + r * FL < p.frames)
      store ((S *) a.out + (p.first_frame + lane_f + r * FL) * a.channels + c,
          acc[r]);
}

/* Copy block @block of @blocks, thread @tid: next_history = ext samples
 * n * channels .. (n + T - 1) * channels - 1, as they are. */
template <typename S>
__host__ __device__ __forceinline__ void
copy_history (const Args & a, long long block, long long blocks, int tid)
{
  const long long keep = (long long) (a.n_taps - 1) * a.channels;
  const long long skip = (long long) a.n_frames * a.channels;
  const S *history = (const S *) a.history, *in = (const S *) a.in;
  S *next = (S *) a.next_history;

  for (long long i = block * kThreads + tid; i < keep;
      i += blocks * kThreads) {
    const long long e = skip + i;

    next[i] = e < keep ? ld (history + e) : in ? ld (in + (e - keep)) : S (0);
  }
}

template <typename S, int CT>
__global__ void __launch_bounds__ (kThreads)
fir_kernel (Args a)
{
  __shared__ double s_taps[Tile<CT>::kTaps];
  __shared__ double s_window[Tile<CT>::kWindow];
  const long long block = blockIdx.x;
  const int tid = threadIdx.x;

  if (block >= a.tiles) {
    copy_history<S> (a, block - a.tiles, gridDim.x - a.tiles, tid);
    return;
  }

  const TilePos p = tile_pos<CT> (a, block);
  double acc[kOutputsPerThread];

  for (int r = 0; r < kOutputsPerThread; r++)
    acc[r] = 0.0;
  for (int k0 = 0; k0 < a.n_taps; k0 += Tile<CT>::kTaps) {
    const int tc = a.n_taps - k0 < Tile<CT>::kTaps ? a.n_taps - k0 :
        Tile<CT>::kTaps;

    __syncthreads ();           /* the previous chunk is read */
    stage<S, CT> (a, p, k0, tc, tid, s_taps, s_window);
    __syncthreads ();
    accumulate<CT> (p, tc, tid, s_taps, s_window, acc);
  }
  write_out<S, CT> (a, p, tid, acc);
}

/* Blocks that write the new history: about kCopyPerThread samples a
 * thread, at most kMaxCopyBlocks blocks. */
long long
copy_blocks (const Args & a)
{
  const long long samples = (long long) (a.n_taps - 1) * a.channels;
  const long long per_block = (long long) kThreads * kCopyPerThread;
  const long long blocks = (samples + per_block - 1) / per_block;

  return blocks < kMaxCopyBlocks ? blocks : kMaxCopyBlocks;
}

template <typename S, int CT>
cudaError_t
launch (Args a, cudaStream_t stream)
{
  const long long channel_tiles = (a.channels + CT - 1) / CT;
  long long blocks;

  a.tiles_x = ((long long) a.n_frames + Tile<CT>::kFrames - 1) /
      Tile<CT>::kFrames;
  a.tiles = a.tiles_x * channel_tiles;
  blocks = a.tiles + copy_blocks (a);
  if (blocks > 0x7fffffff)
    return cudaErrorInvalidValue;
  fir_kernel<S, CT><<<(unsigned int) blocks, kThreads, 0, stream>>> (a);
  return cudaGetLastError ();
}

template <typename S>
cudaError_t
launch_for_channels (const Args & a, cudaStream_t stream)
{
  if (a.channels <= 1)
    return launch<S, 1> (a, stream);
  if (a.channels <= 2)
    return launch<S, 2> (a, stream);
  if (a.channels <= 4)
    return launch<S, 4> (a, stream);
  if (a.channels <= 8)
    return launch<S, 8> (a, stream);
  if (a.channels <= 16)
    return launch<S, 16> (a, stream);
  return launch<S, 32> (a, stream);
}

}  // namespace

struct CfFirDevice {
  CfFirFormat format;
  int channels, n_taps;
  size_t history_bytes;
  double *d_taps;
  void *d_history[2];           /* the current one is d_history[current] */
  int current;
  cudaEvent_t done;             /* recorded after each call's work */
};

extern "C" void
cf_fir_device_free (CfFirDevice * d_fir)
{
  if (!d_fir)
    return;
  if (d_fir->done) {
    cudaEventSynchronize (d_fir->done);
    cudaEventDestroy (d_fir->done);
  }
  cudaFree (d_fir->d_taps);
  cudaFree (d_fir->d_history[0]);
  cudaFree (d_fir->d_history[1]);
  free (d_fir);
}

extern "C" cudaError_t
cf_fir_device_new (const CfFir * fir, CfFirDevice ** d_fir)
{
  CfFirDevice *d;
  cudaError_t err;

  if (!d_fir)
    return cudaErrorInvalidValue;
  *d_fir = NULL;
  if (!fir || !fir->taps || cf_fir_sample_bytes (fir->format) == 0
      || (fir->n_taps > 1 && !fir->history))
    return cudaErrorInvalidValue;
  if (!(d = (CfFirDevice *) calloc (1, sizeof (*d))))
    return cudaErrorMemoryAllocation;
  d->format = fir->format;
  d->channels = fir->channels;
  d->n_taps = fir->n_taps;
  d->history_bytes = (size_t) (fir->n_taps - 1) * fir->channels *
      cf_fir_sample_bytes (fir->format);

  /* a copy from pageable memory may return before the data has landed,
   * and non-blocking streams do not wait for stream 0: wait for the
   * copies, so that any stream may use the filter */
  err = cudaEventCreateWithFlags (&d->done, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaMalloc (&d->d_taps, sizeof (double) * fir->n_taps);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (d->d_taps, fir->taps,
        sizeof (double) * fir->n_taps, cudaMemcpyHostToDevice, 0);
  for (int i = 0; i < 2 && err == cudaSuccess && d->history_bytes > 0; i++)
    err = cudaMalloc (&d->d_history[i], d->history_bytes);
  if (err == cudaSuccess && d->history_bytes > 0)
    err = cudaMemcpyAsync (d->d_history[0], fir->history, d->history_bytes,
        cudaMemcpyHostToDevice, 0);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (0);
  if (err != cudaSuccess) {
    cf_fir_device_free (d);
    return err;
  }
  *d_fir = d;
  return cudaSuccess;
}

extern "C" cudaError_t
cf_fir_device_reset (CfFirDevice * d_fir, cudaStream_t stream)
{
  cudaError_t err;

  if (!d_fir)
    return cudaErrorInvalidValue;
  if (d_fir->history_bytes == 0)
    return cudaSuccess;
  if ((err = cudaStreamWaitEvent (stream, d_fir->done, 0)) != cudaSuccess
      || (err = cudaMemsetAsync (d_fir->d_history[d_fir->current], 0,
              d_fir->history_bytes, stream)) != cudaSuccess)
    return err;
  return cudaEventRecord (d_fir->done, stream);
}

extern "C" cudaError_t
cf_fir_cuda (CfFirDevice * d_fir, const void *d_in, void *d_out,
    int n_frames, cudaStream_t stream)
{
  size_t sample_bytes;
  cudaError_t err;
  Args a;

  if (!d_fir || !d_out || n_frames < 0 || d_in == d_out)
    return cudaErrorInvalidValue;
  sample_bytes = cf_fir_sample_bytes (d_fir->format);
  if ((uintptr_t) d_in % sample_bytes != 0
      || (uintptr_t) d_out % sample_bytes != 0)
    return cudaErrorInvalidValue;
  if (n_frames == 0)
    return cudaSuccess;

  memset (&a, 0, sizeof (a));
  a.taps = d_fir->d_taps;
  a.n_taps = d_fir->n_taps;
  a.channels = d_fir->channels;
  a.n_frames = n_frames;
  a.in = d_in;
  a.out = d_out;
  a.history = d_fir->d_history[d_fir->current];
  a.next_history = d_fir->d_history[!d_fir->current];

  if ((err = cudaStreamWaitEvent (stream, d_fir->done, 0)) != cudaSuccess)
    return err;
  switch (d_fir->format) {
    case CF_FIR_F32:
      err = launch_for_channels<float> (a, stream);
      break;
    case CF_FIR_F64:
      err = launch_for_channels<double> (a, stream);
      break;
    default:
      err = launch_for_channels<int16_t> (a, stream);
      break;
  }
  if (err != cudaSuccess)
    return err;
  /* the launch wrote the other buffer: it is the history from now on */
  if (d_fir->history_bytes > 0)
    d_fir->current = !d_fir->current;
  return cudaEventRecord (d_fir->done, stream);
}

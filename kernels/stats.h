/* gst-cudafilters kernel library: per-channel statistics of a picture.
 *
 * One pass over every plane of a frame gives, per channel, a 256-bin
 * histogram, the minimum, maximum, number of samples, and the exact sum and
 * sum of squares, all of the values the samples hold: a 16-bit sample's
 * value is (sample >> lsb) & (2^bits - 1) (format.h), the bits around it
 * ignored, and it falls in bin value >> (bits - 8), so P010's and
 * I420_10LE's 10-bit values give the same numbers, and a 16-bit value is
 * binned by its high byte. Mean and variance are derived from those
 * integers by cf_stats_sum_mean () / cf_stats_sum_variance (), the same
 * code for both backends, so the CUDA and CPU paths agree to the bit.
 *
 * cf_stats_cuda () is the GPU launcher, cf_stats_cpu () the reference with
 * the same contract; tests compare the two field by field.
 */
#ifndef CF_STATS_H
#define CF_STATS_H

#include "format.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CF_STATS_BINS 256

/* Statistics of one frame. Counts fit their types for any frame up to
 * CF_MAX_SIDE x CF_MAX_SIDE: sum_sq of 16-bit values needs 64 bits. */
typedef struct {
  uint32_t n_channels;
  uint32_t min[CF_MAX_CHANNELS];
  uint32_t max[CF_MAX_CHANNELS];
  uint32_t reserved;                    /* 0: no padding, so results memcmp */
  uint64_t count[CF_MAX_CHANNELS];      /* samples seen in the channel */
  uint64_t sum[CF_MAX_CHANNELS];
  uint64_t sum_sq[CF_MAX_CHANNELS];
  uint32_t histogram[CF_MAX_CHANNELS][CF_STATS_BINS];
} CfStats;

/* Statistics accumulated over many frames (an interval): wide enough for
 * hours of 4K 16-bit video. */
typedef struct {
  uint32_t n_channels;
  uint32_t frames;
  uint32_t min[CF_MAX_CHANNELS];
  uint32_t max[CF_MAX_CHANNELS];
  uint64_t count[CF_MAX_CHANNELS];
  uint64_t sum[CF_MAX_CHANNELS];
  unsigned __int128 sum_sq[CF_MAX_CHANNELS];
  uint64_t histogram[CF_MAX_CHANNELS][CF_STATS_BINS];
} CfStatsSum;

/* CPU reference: fills @result from a host image. Any pitch, any alignment.
 * Returns 0, or -1 when cf_image_check () rejects @image. */
int cf_stats_cpu (const CfImage * image, CfStats * result);
/* The same over @n_threads threads (threads.h: 0 = all the cores), bands
 * of rows counted apart and merged exactly: the same result for any
 * count. cf_stats_cpu () is this with 1. */
int cf_stats_cpu_threads (const CfImage * image, CfStats * result,
    int n_threads);

/* Accumulation, shared by both backends. The channel count of an empty
 * sum is taken from the first frame added; until a frame is added its min
 * reads UINT32_MAX and its max 0. */
void cf_stats_sum_reset (CfStatsSum * sum, uint32_t n_channels);
void cf_stats_sum_add (CfStatsSum * sum, const CfStats * frame);
/* Mean and population variance of channel @c, from the exact integer sums:
 * mean = sum / n, variance = (n * sum_sq - sum^2) / n^2, the numerator in
 * exact 128-bit arithmetic. 0 when nothing was counted. */
double cf_stats_sum_mean (const CfStatsSum * sum, int c);
double cf_stats_sum_variance (const CfStatsSum * sum, int c);
/* The same for one frame's statistics. */
double cf_stats_mean (const CfStats * stats, int c);
double cf_stats_variance (const CfStats * stats, int c);

#ifdef HAVE_CUDA
/* Threads per block of the statistics kernel. Each block keeps one 256-bin
 * sub-histogram per warp lane and channel in shared memory (32 KiB per
 * channel), so lanes never collide, even on a constant frame. */
#define CF_STATS_THREADS 1024
#define CF_STATS_LANE_COPIES 32

/* Device scratch for one frame in flight: the grid's partial histogram and
 * completion counter. Allocate cf_stats_workspace_bytes () with cudaMalloc,
 * clear it once with cf_stats_workspace_init (); every launch leaves it
 * cleared again for the next. Frames analysed concurrently (on different
 * streams) need one workspace each. */
size_t cf_stats_workspace_bytes (void);
cudaError_t cf_stats_workspace_init (void *d_workspace, cudaStream_t stream);

/* GPU launcher: one kernel launch on @stream analyses every plane of the
 * device image @d_image and writes @d_result: device memory, or
 * page-locked host memory (cf_host_alloc ()), which the last block writes
 * over the bus (4 KiB of plain stores, no copy after the kernel). Each plane
 * must start on a 16-byte boundary with a pitch that is a multiple of 16
 * (cudaMalloc'ed planes with 16-byte-rounded rows); the bytes between a row's
 * end and its pitch are never counted. Returns cudaErrorInvalidValue for a
 * bad image, otherwise the launch's error. */
cudaError_t cf_stats_cuda (const CfImage * d_image, void *d_workspace,
    CfStats * d_result, cudaStream_t stream);

/* Copies one CfStats from @src to @dst on @stream with one block of threads
 * rather than a copy engine. Either may be device memory or page-locked
 * host memory (cudaHostAlloc (), cf_host_alloc ()), which kernels reach
 * through unified addressing. A copy engine runs its copies one after
 * another, whatever their streams: a 4 KiB cudaMemcpyAsync issued while a
 * frame's upload (or download) is on the engine waits for it, hundreds of
 * microseconds at 4K. Returns cudaErrorInvalidValue for a missing or
 * misaligned pointer, otherwise the launch's error. */
cudaError_t cf_stats_copy_cuda (CfStats * dst, const CfStats * src,
    cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_STATS_H */

/* Device helpers of the benchmarks (bench-gpu.cu): plain C, no GStreamer. */
#ifndef BENCH_GPU_H
#define BENCH_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues a one-thread kernel that keeps @stream busy for @microseconds,
 * so that the host can queue a batch of timed launches behind it
 * (bench-gpu.cu). */
cudaError_t bench_gpu_sleep (unsigned int microseconds, cudaStream_t stream);

/* A span of a frame for bench_gpu_traffic (): @n_vecs 16-byte vectors from
 * byte @offset (16-byte aligned), read or written. */
typedef struct {
  uint64_t offset;
  uint32_t n_vecs;
  uint32_t write;
} BenchSpan;

/* Moves a method's traffic and nothing else, one block of 256 threads a
 * span of @d_spans (device memory): reads the read spans of @src (16-byte
 * loads, four in flight a thread, a checksum kept, stored to @d_sink only
 * if it hits a constant) and writes the write spans of @dst: what a plain
 * streaming kernel takes to move those bytes once, a reference for the
 * kernels that must (not a lower bound over every kernel shape). */
cudaError_t bench_gpu_traffic (const uint8_t * src, uint8_t * dst,
    const BenchSpan * d_spans, int n_spans, unsigned int *d_sink,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif

/* Ceilings for the statistics kernel, measured on the same device in the
 * same run: how fast the frame can be read at all, and how fast the shared
 * memory can take the histogram's increments with the kernel's layout. */
#ifndef BENCH_CEILINGS_H
#define BENCH_CEILINGS_H

#include <cuda_runtime_api.h>
#include "format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads every plane of @d_image once with 16-byte loads (planes dense, as
 * the benchmark's are) and keeps a checksum; no histogram. */
cudaError_t ceiling_read (const CfImage * d_image, unsigned int *d_sink,
    cudaStream_t stream);

/* The stats kernel's shared-memory work alone: @n_samples increments of
 * per-lane sub-histograms (n_channels x 256 bins x 32 lanes), bins from a
 * cheap per-thread generator, no loads from device memory. */
cudaError_t ceiling_atomics (int n_channels, unsigned long long n_samples,
    unsigned int *d_sink, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif

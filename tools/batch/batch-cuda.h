/* cudafilters-batch: the CUDA backend.
 *
 * A BatchGpu is what one file in flight needs on a GPU: a non-blocking
 * stream on one device, page-locked host buffers for the decoded input and
 * the result, device buffers, scratch and the plans of the last picture
 * size. The tool makes one per job and lends it to the thread that handles
 * a file from decode to encode, so each thread's GPU work (upload, kernels,
 * download) runs on its own stream while the other threads decode and
 * encode: memory is bounded by --jobs, not by the folder. Buffers and plans
 * are kept from file to file and only replaced when a larger picture or a
 * new size comes; nothing is allocated per file otherwise.
 */
#ifndef CF_BATCH_CUDA_H
#define CF_BATCH_CUDA_H

#include "batch-ops.h"

typedef struct BatchGpu BatchGpu;

/* The CUDA devices the process sees, or 0 (no driver, no device, or a build
 * without CUDA). */
int batch_cuda_device_count (void);
/* "NVIDIA H100 80GB HBM3" into @name; "" on error. */
void batch_cuda_device_name (int device, char *name, size_t len);

/* A context on @device for @ops (the op list stays alive and unchanged as
 * long as the context). NULL with @err set on failure. */
BatchGpu *batch_gpu_new (int device, BatchOp * const *ops, int n_ops,
    char *err, size_t err_len);
void batch_gpu_free (BatchGpu * gpu);

/* The device @gpu works on. */
int batch_gpu_device (const BatchGpu * gpu);

/* Makes @gpu's device current for the calling thread; call first after
 * taking a context. 0, or -1 with @err set. */
int batch_gpu_bind (BatchGpu * gpu, char *err, size_t err_len);

/* A CfPngAllocFunc (user data: the BatchGpu) that returns the context's
 * page-locked input buffer, grown when needed: decode into it with
 * cf_png_read_into (). */
void *batch_gpu_input_alloc (size_t bytes, void *gpu);

/* Applies the first @n_ops of the context's ops (all of them, or those up
 * to the last --stats when only the statistics are wanted) to @img (host
 * memory, best decoded into the input buffer: an upload from pageable
 * memory is slower) and replaces it with the result in the context's
 * page-locked output buffer (borrowed, valid until the next run; the PNG
 * type hint is kept); --stats results go to @stats[op->stats_index]. The
 * same bytes as batch_run_cpu (). Returns 0, or -1 with @err naming the
 * CUDA error. */
int batch_gpu_run (BatchGpu * gpu, int n_ops, CfPngImage * img,
    BatchStats * stats, char *err, size_t err_len);

#endif /* CF_BATCH_CUDA_H */

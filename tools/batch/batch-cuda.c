/* cudafilters-batch: the CUDA backend (batch-cuda.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "batch-cuda.h"

/* Device rows start on 256-byte boundaries: the kernels read aligned
 * vectors, and cf_stats_cuda () needs at least 16. */
#define PITCH_ALIGN 256
/* Buffers grow in steps of this many bytes, so that pictures of nearly the
 * same size share them. */
#define GROW_STEP ((size_t) 4 << 20)

/* The plans of one resize or stencil op, for the last picture size it saw. */
typedef struct
{
  int valid;
  CfFormat format;
  int in_width, in_height, out_width, out_height;
  CfResizeDevicePlan *resize;
  CfStencilDevicePlan *stencil;
} OpPlans;

/* A device buffer that grows on its stream (stream-ordered, so growing never
 * waits for the other streams of the device). */
typedef struct
{
  void *ptr;
  size_t size;
} DeviceBuffer;

struct BatchGpu
{
  int device;
  cudaStream_t stream;
  BatchOp *const *ops;
  int n_ops, n_stats;
  OpPlans *plans;               /* [n_ops] */

  void *host_in, *host_out;     /* page-locked */
  size_t host_in_size, host_out_size;

  DeviceBuffer image[2];        /* ping-pong between the ops */
  DeviceBuffer workspace;       /* resize scratch */
  void *stats_workspace;        /* cf_stats_workspace_bytes (), kept cleared */
  CfStats *d_stats, *h_stats;   /* [n_stats], device and page-locked */
};

static size_t
round_up (size_t n, size_t step)
{
  return (n + step - 1) / step * step;
}

static int
set_cuda_error (char *err, size_t err_len, cudaError_t e, const char *what)
{
  snprintf (err, err_len, "CUDA error in %s: %s (%s)", what,
      cudaGetErrorName (e), cudaGetErrorString (e));
  return -1;
}

/* Returns -1 from the calling function, with @err set, unless @call
 * succeeded. */
#define TRY(call, what) do {                                            \
    cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess)                                              \
      return set_cuda_error (err, err_len, e_, what);                   \
  } while (0)

int
batch_cuda_device_count (void)
{
  int n = 0;

  if (cudaGetDeviceCount (&n) != cudaSuccess)
    return 0;
  return n;
}

void
batch_cuda_device_name (int device, char *name, size_t len)
{
  struct cudaDeviceProp prop;

  if (cudaGetDeviceProperties (&prop, device) == cudaSuccess)
    snprintf (name, len, "%s", prop.name);
  else if (len)
    name[0] = '\0';
}

BatchGpu *
batch_gpu_new (int device, BatchOp * const *ops, int n_ops, char *err,
    size_t err_len)
{
  BatchGpu *gpu = calloc (1, sizeof *gpu);
  cudaError_t e;
  const char *what = "cudaSetDevice";

  if (!gpu || !(gpu->plans = calloc (n_ops ? n_ops : 1, sizeof (OpPlans)))) {
    free (gpu);
    snprintf (err, err_len, "out of memory");
    return NULL;
  }
  gpu->device = device;
  gpu->ops = ops;
  gpu->n_ops = n_ops;
  for (int k = 0; k < n_ops; k++)
    gpu->n_stats += ops[k]->kind == OP_STATS;

  e = cudaSetDevice (device);
  if (e == cudaSuccess) {
    what = "cudaStreamCreateWithFlags";
    e = cudaStreamCreateWithFlags (&gpu->stream, cudaStreamNonBlocking);
  }
  if (e == cudaSuccess && gpu->n_stats) {
    what = "the statistics buffers";
    e = cudaMalloc (&gpu->stats_workspace, cf_stats_workspace_bytes ());
    if (e == cudaSuccess)
      e = cf_stats_workspace_init (gpu->stats_workspace, gpu->stream);
    if (e == cudaSuccess)
      e = cudaMalloc ((void **) &gpu->d_stats, gpu->n_stats * sizeof (CfStats));
    if (e == cudaSuccess)
      e = cudaHostAlloc ((void **) &gpu->h_stats,
          gpu->n_stats * sizeof (CfStats), cudaHostAllocPortable);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize (gpu->stream);
  }
  if (e != cudaSuccess) {
    set_cuda_error (err, err_len, e, what);
    batch_gpu_free (gpu);
    return NULL;
  }
  return gpu;
}

void
batch_gpu_free (BatchGpu * gpu)
{
  if (!gpu)
    return;
  cudaSetDevice (gpu->device);
  if (gpu->stream)
    cudaStreamSynchronize (gpu->stream);
  for (int k = 0; k < gpu->n_ops; k++) {
    cf_resize_device_plan_free (gpu->plans[k].resize);
    cf_stencil_device_plan_free (gpu->plans[k].stencil);
  }
  for (int i = 0; i < 2; i++)
    cudaFree (gpu->image[i].ptr);
  cudaFree (gpu->workspace.ptr);
  cudaFree (gpu->stats_workspace);
  cudaFree (gpu->d_stats);
  cudaFreeHost (gpu->h_stats);
  cudaFreeHost (gpu->host_in);
  cudaFreeHost (gpu->host_out);
  if (gpu->stream)
    cudaStreamDestroy (gpu->stream);
  free (gpu->plans);
  free (gpu);
}

int
batch_gpu_bind (BatchGpu * gpu, char *err, size_t err_len)
{
  TRY (cudaSetDevice (gpu->device), "cudaSetDevice");
  return 0;
}

/* Makes *@ptr at least @bytes of page-locked memory. Its old contents have
 * been used: every run ends with a synchronisation. */
static cudaError_t
grow_host (void **ptr, size_t *size, size_t bytes)
{
  cudaError_t e;

  if (bytes <= *size)
    return cudaSuccess;
  bytes = round_up (bytes, GROW_STEP);
  cudaFreeHost (*ptr);
  *ptr = NULL;
  *size = 0;
  /* portable: any context may copy from it */
  e = cudaHostAlloc (ptr, bytes, cudaHostAllocPortable);
  if (e == cudaSuccess)
    *size = bytes;
  else
    *ptr = NULL;
  return e;
}

void *
batch_gpu_input_alloc (size_t bytes, void *data)
{
  BatchGpu *gpu = data;

  if (grow_host (&gpu->host_in, &gpu->host_in_size, bytes) != cudaSuccess)
    return NULL;
  return gpu->host_in;
}

static cudaError_t
grow_device (BatchGpu * gpu, DeviceBuffer * buf, size_t bytes)
{
  cudaError_t e;

  if (bytes <= buf->size)
    return cudaSuccess;
  bytes = round_up (bytes, GROW_STEP);
  if (buf->ptr) {
    e = cudaFreeAsync (buf->ptr, gpu->stream);
    buf->ptr = NULL;
    buf->size = 0;
    if (e != cudaSuccess)
      return e;
  }
  e = cudaMallocAsync (&buf->ptr, bytes, gpu->stream);
  if (e == cudaSuccess)
    buf->size = bytes;
  else
    buf->ptr = NULL;
  return e;
}

/* @img (format and size set) laid out in @buf with aligned rows. */
static cudaError_t
device_image (BatchGpu * gpu, DeviceBuffer * buf, CfImage * img)
{
  size_t pitch = round_up (cf_plane_row_bytes (img->format, 0, img->width),
      PITCH_ALIGN);
  cudaError_t e = grow_device (gpu, buf, pitch * img->height);

  img->data[0] = buf->ptr;
  img->pitch[0] = pitch;
  return e;
}

/* The device plans of op @k for a @src -> @dst picture, made when the size
 * or format changed since the last file. */
static int
prepare_plans (BatchGpu * gpu, int k, const CfImage * src,
    const CfImage * dst, char *err, size_t err_len)
{
  const BatchOp *op = gpu->ops[k];
  OpPlans *p = &gpu->plans[k];
  cudaError_t e;

  if (p->valid && p->format == src->format && p->in_width == src->width
      && p->in_height == src->height && p->out_width == dst->width
      && p->out_height == dst->height)
    return 0;
  cf_resize_device_plan_free (p->resize);
  cf_stencil_device_plan_free (p->stencil);
  memset (p, 0, sizeof *p);

  if (op->kind == OP_RESIZE) {
    CfResizePlan plan;
    if (cf_resize_plan_init (&plan, src->format, op->method, src->width,
            src->height, dst->width, dst->height, 0, 0) < 0) {
      snprintf (err, err_len, "resize failed");
      return -1;
    }
    e = cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_AUTO, &p->resize);
    cf_resize_plan_clear (&plan);
  } else {
    CfStencilPlan plan;
    if (cf_stencil_plan_init (&plan, src->format, src->width, src->height,
            &op->params) < 0) {
      snprintf (err, err_len, "stencil failed");
      return -1;
    }
    e = cf_stencil_device_plan_new (&plan, &p->stencil);
    cf_stencil_plan_clear (&plan);
  }
  TRY (e, op->kind == OP_RESIZE ? "the resize plan" : "the stencil plan");
  p->valid = 1;
  p->format = src->format;
  p->in_width = src->width;
  p->in_height = src->height;
  p->out_width = dst->width;
  p->out_height = dst->height;
  return 0;
}

int
batch_gpu_run (BatchGpu * gpu, CfPngImage * img, BatchStats * stats,
    char *err, size_t err_len)
{
  cudaStream_t s = gpu->stream;
  CfImage cur = img->image, next;
  int b = 0;                    /* gpu->image[b] holds cur */
  size_t row;

  TRY (device_image (gpu, &gpu->image[0], &cur), "cudaMallocAsync");
  row = cf_plane_row_bytes (cur.format, 0, cur.width);
  TRY (cudaMemcpy2DAsync (cur.data[0], cur.pitch[0], img->image.data[0],
          img->image.pitch[0], row, cur.height, cudaMemcpyHostToDevice, s),
      "the upload");

  for (int k = 0; k < gpu->n_ops; k++) {
    const BatchOp *op = gpu->ops[k];

    if (op->kind == OP_STATS) {
      BatchStats *st = &stats[op->stats_index];
      st->width = cur.width;
      st->height = cur.height;
      st->format = cur.format;
      TRY (cf_stats_cuda (&cur, gpu->stats_workspace,
              &gpu->d_stats[op->stats_index], s), "cf_stats_cuda");
      continue;
    }
    next = cur;
    if (op->kind == OP_RESIZE)
      batch_output_size (op, cur.width, cur.height, &next.width, &next.height);
    TRY (device_image (gpu, &gpu->image[1 - b], &next), "cudaMallocAsync");
    if (prepare_plans (gpu, k, &cur, &next, err, err_len) < 0)
      return -1;
    if (op->kind == OP_RESIZE) {
      OpPlans *p = &gpu->plans[k];
      TRY (grow_device (gpu, &gpu->workspace,
              cf_resize_device_plan_workspace_bytes (p->resize)),
          "cudaMallocAsync");
      TRY (cf_resize_cuda (p->resize, &cur, &next, gpu->workspace.ptr, s),
          "cf_resize_cuda");
    } else {
      TRY (cf_stencil_cuda (gpu->plans[k].stencil, &cur, &next, NULL, s),
          "cf_stencil_cuda");
    }
    cur = next;
    b = 1 - b;
  }

  row = cf_plane_row_bytes (cur.format, 0, cur.width);
  TRY (grow_host (&gpu->host_out, &gpu->host_out_size, row * cur.height),
      "cudaHostAlloc");
  TRY (cudaMemcpy2DAsync (gpu->host_out, row, cur.data[0], cur.pitch[0], row,
          cur.height, cudaMemcpyDeviceToHost, s), "the download");
  if (gpu->n_stats)
    TRY (cudaMemcpyAsync (gpu->h_stats, gpu->d_stats,
            gpu->n_stats * sizeof (CfStats), cudaMemcpyDeviceToHost, s),
        "the statistics download");
  TRY (cudaStreamSynchronize (s), "the file's GPU work");

  for (int k = 0; k < gpu->n_ops; k++)
    if (gpu->ops[k]->kind == OP_STATS)
      stats[gpu->ops[k]->stats_index].stats =
          gpu->h_stats[gpu->ops[k]->stats_index];

  img->image.format = cur.format;
  img->image.width = cur.width;
  img->image.height = cur.height;
  img->image.data[0] = gpu->host_out;
  img->image.pitch[0] = row;
  img->borrowed = 1;
  return 0;
}

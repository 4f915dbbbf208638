/* cudafilters-batch: the CUDA backend (batch-cuda.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "batch-cuda.h"
#include "device.h"

/* Device rows start on 256-byte boundaries: the kernels read aligned
 * vectors, and cf_stats_cuda () needs at least 16. */
#define PITCH_ALIGN 256

/* The plans of one resize or stencil op, for the last picture size it saw. */
typedef struct
{
  int valid;
  CfFormat format;
  int in_width, in_height, out_width, out_height;
  CfResizeDevicePlan *resize;
  CfStencilDevicePlan *stencil;
} OpPlans;

struct BatchGpu
{
  int device;
  CfStream *stream;
  BatchOp *const *ops;
  int n_ops, n_stats;
  OpPlans *plans;               /* [n_ops] */

  CfGrowBuffer host_in, host_out;       /* page-locked */
  CfGrowBuffer image[2];        /* ping-pong between the ops */
  CfGrowBuffer workspace;       /* resize and stencil scratch */
  void *stats_workspace;        /* cf_stats_workspace_bytes (), kept cleared */
  CfStats *d_stats, *h_stats;   /* [n_stats], device and page-locked */
};

static int
set_cuda_error (char *err, size_t err_len, CfDeviceError e, const char *what)
{
  snprintf (err, err_len, "CUDA error in %s: %s (%s)", what,
      cf_device_error_name (e), cf_device_error_string (e));
  return -1;
}

/* Returns -1 from the calling function, with @err set, unless @call
 * succeeded. */
#define TRY(call, what) do {                                            \
    CfDeviceError e_ = (call);                                          \
    if (e_ != CF_DEVICE_OK)                                             \
      return set_cuda_error (err, err_len, e_, what);                   \
  } while (0)

int
batch_cuda_device_count (void)
{
  return cf_device_count (NULL);
}

void
batch_cuda_device_name (int device, char *name, size_t len)
{
  cf_device_name (device, name, len);
}

BatchGpu *
batch_gpu_new (int device, BatchOp * const *ops, int n_ops, char *err,
    size_t err_len)
{
  BatchGpu *gpu = calloc (1, sizeof *gpu);
  CfDeviceError e;
  const char *what = "the device";

  if (!gpu || !(gpu->plans = calloc (n_ops ? n_ops : 1, sizeof (OpPlans)))) {
    free (gpu);
    snprintf (err, err_len, "out of memory");
    return NULL;
  }
  gpu->device = device;
  gpu->ops = ops;
  gpu->n_ops = n_ops;
  gpu->host_in.host = gpu->host_out.host = 1;
  for (int k = 0; k < n_ops; k++)
    gpu->n_stats += ops[k]->kind == OP_STATS;

  e = cf_device_use (device);
  if (e == CF_DEVICE_OK) {
    what = "the stream";
    e = cf_stream_new (&gpu->stream);
  }
  if (e == CF_DEVICE_OK && gpu->n_stats) {
    what = "the statistics buffers";
    e = cf_device_alloc (&gpu->stats_workspace, cf_stats_workspace_bytes ());
    if (e == CF_DEVICE_OK)
      e = cf_stats_workspace_init (gpu->stats_workspace,
          cf_stream_handle (gpu->stream));
    if (e == CF_DEVICE_OK)
      e = cf_device_alloc ((void **) &gpu->d_stats,
          gpu->n_stats * sizeof (CfStats));
    if (e == CF_DEVICE_OK)
      e = cf_host_alloc ((void **) &gpu->h_stats,
          gpu->n_stats * sizeof (CfStats));
    if (e == CF_DEVICE_OK)
      e = cf_stream_finish (gpu->stream);
  }
  if (e != CF_DEVICE_OK) {
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
  cf_device_use (gpu->device);
  cf_stream_free (gpu->stream);
  for (int k = 0; k < gpu->n_ops; k++) {
    cf_resize_device_plan_free (gpu->plans[k].resize);
    cf_stencil_device_plan_free (gpu->plans[k].stencil);
  }
  for (int i = 0; i < 2; i++)
    cf_grow_buffer_clear (&gpu->image[i]);
  cf_grow_buffer_clear (&gpu->workspace);
  cf_grow_buffer_clear (&gpu->host_in);
  cf_grow_buffer_clear (&gpu->host_out);
  cf_device_free (gpu->stats_workspace);
  cf_device_free (gpu->d_stats);
  cf_host_free (gpu->h_stats);
  free (gpu->plans);
  free (gpu);
}

int
batch_gpu_device (const BatchGpu * gpu)
{
  return gpu->device;
}

int
batch_gpu_bind (BatchGpu * gpu, char *err, size_t err_len)
{
  TRY (cf_device_use (gpu->device), "cudaSetDevice");
  return 0;
}

/* The page-locked input buffer, grown when needed. Its old contents have
 * been used: every run ends with a synchronisation. */
void *
batch_gpu_input_alloc (size_t bytes, void *data)
{
  BatchGpu *gpu = data;

  if (cf_grow_buffer_reserve (&gpu->host_in, bytes) != CF_DEVICE_OK)
    return NULL;
  return gpu->host_in.data;
}

/* @img (format and size set) laid out in @buf with aligned rows. */
static CfDeviceError
device_image (CfGrowBuffer * buf, CfImage * img)
{
  CfImage layout;
  size_t bytes = cf_image_layout (img->format, img->width, img->height,
      PITCH_ALIGN, &layout);
  CfDeviceError e = cf_grow_buffer_reserve (buf, bytes);

  if (e == CF_DEVICE_OK)
    *img = cf_image_at (&layout, buf->data);
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
    if (cf_resize_plan_init (&plan, src->format, op->method, 1, src->width,
            src->height, dst->width, dst->height, 0, 0) < 0) {
      snprintf (err, err_len, "resize failed");
      return -1;
    }
    e = cf_resize_device_plan_new (&plan, CF_RESIZE_KERNELS_AUTO, &p->resize);
    cf_resize_plan_clear (&plan);
  } else {
    CfStencilPlan plan;
    if (batch_stencil_plan (op, src, &plan, err, err_len) < 0)
      return -1;
    e = cf_stencil_device_plan_new (&plan, CF_STENCIL_KERNELS_AUTO,
        &p->stencil);
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
batch_gpu_run (BatchGpu * gpu, int n_ops, CfPngImage * img,
    BatchStats * stats, char *err, size_t err_len)
{
  cudaStream_t s = cf_stream_handle (gpu->stream);
  CfImage cur = img->image, next, out;
  int b = 0;                    /* gpu->image[b] holds cur */

  if (n_ops < 0 || n_ops > gpu->n_ops) {
    snprintf (err, err_len, "%d operations asked of a context of %d", n_ops,
        gpu->n_ops);
    return -1;
  }
  TRY (device_image (&gpu->image[0], &cur), "cudaMalloc");
  /* decoded into page-locked memory, or (before the contexts were made)
   * into ordinary memory, which makes the copy synchronous */
  TRY (cf_image_copy_async (&img->image, &cur, gpu->stream), "the upload");

  for (int k = 0; k < n_ops; k++) {
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
    TRY (device_image (&gpu->image[1 - b], &next), "cudaMalloc");
    if (prepare_plans (gpu, k, &cur, &next, err, err_len) < 0)
      return -1;
    if (op->kind == OP_RESIZE) {
      OpPlans *p = &gpu->plans[k];
      TRY (cf_grow_buffer_reserve (&gpu->workspace,
              cf_resize_device_plan_workspace_bytes (p->resize)),
          "cudaMalloc");
      TRY (cf_resize_cuda (p->resize, &cur, &next, gpu->workspace.data, s),
          "cf_resize_cuda");
    } else {
      OpPlans *p = &gpu->plans[k];
      TRY (cf_grow_buffer_reserve (&gpu->workspace,
              cf_stencil_device_plan_workspace_bytes (p->stencil)),
          "cudaMalloc");
      TRY (cf_stencil_cuda (p->stencil, &cur, &next, gpu->workspace.data, s),
          "cf_stencil_cuda");
    }
    cur = next;
    b = 1 - b;
  }

  out = cur;
  out.pitch[0] = cf_plane_row_bytes (cur.format, 0, cur.width);
  TRY (cf_grow_buffer_reserve (&gpu->host_out, out.pitch[0] * cur.height),
      "cudaHostAlloc");
  out.data[0] = gpu->host_out.data;
  TRY (cf_image_copy_async (&cur, &out, gpu->stream), "the download");
  if (gpu->n_stats)
    TRY (cf_copy_async (gpu->h_stats, gpu->d_stats,
            gpu->n_stats * sizeof (CfStats), gpu->stream),
        "the statistics download");
  TRY (cf_stream_finish (gpu->stream), "the file's GPU work");

  for (int k = 0; k < n_ops; k++)
    if (gpu->ops[k]->kind == OP_STATS)
      stats[gpu->ops[k]->stats_index].stats =
          gpu->h_stats[gpu->ops[k]->stats_index];

  img->image = out;
  img->borrowed = 1;
  return 0;
}

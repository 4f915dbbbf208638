/* What touches the CUDA device (see device.h): the CUDA runtime's calls,
 * or, in a build without CUDA, the same functions failing with
 * CF_DEVICE_NO_CUDA. */
#include "device.h"
#include "threads.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of staged frames: what the kernels' vector loads want anyway. */
#define STAGING_ROW_ALIGN 16
/* A growing buffer grows to at least this factor of its old size. */
#define GROW_FACTOR 2

#ifdef HAVE_CUDA

#include <cuda_runtime_api.h>

struct CfStream {
  cudaStream_t stream;
  cudaEvent_t done;
};

const char *
cf_device_error_name (CfDeviceError error)
{
  return error == CF_DEVICE_NO_CUDA ? "CF_DEVICE_NO_CUDA" :
      cudaGetErrorName ((cudaError_t) error);
}

const char *
cf_device_error_string (CfDeviceError error)
{
  return error == CF_DEVICE_NO_CUDA ? "this build has no CUDA backend" :
      cudaGetErrorString ((cudaError_t) error);
}

int
cf_device_count (CfDeviceError * why)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);

  if (err == cudaSuccess && n < 1)
    err = cudaErrorNoDevice;
  if (err != cudaSuccess) {
    if (why)
      *why = err;
    return 0;
  }
  return n;
}

void
cf_device_name (int device, char *name, size_t len)
{
  struct cudaDeviceProp prop;

  if (cudaGetDeviceProperties (&prop, device) == cudaSuccess)
    snprintf (name, len, "%s", prop.name);
  else if (len)
    name[0] = '\0';
}

CfDeviceError
cf_device_use (int device)
{
  cudaError_t err = cudaSetDevice (device);

  /* a context must really come up, not just a device be listed */
  return err != cudaSuccess ? err : cudaFree (NULL);
}

CfDeviceError
cf_device_memory (size_t * free_bytes, size_t * total_bytes)
{
  return cudaMemGetInfo (free_bytes, total_bytes);
}

CfDeviceError
cf_stream_new (CfStream ** out)
{
  CfStream *s = calloc (1, sizeof (*s));
  cudaError_t err;

  *out = NULL;
  if (!s)
    return cudaErrorMemoryAllocation;
  err = cudaStreamCreateWithFlags (&s->stream, cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&s->done, cudaEventDisableTiming);
  if (err != cudaSuccess) {
    cf_stream_free (s);
    return err;
  }
  *out = s;
  return cudaSuccess;
}

void
cf_stream_free (CfStream * s)
{
  if (!s)
    return;
  if (s->stream) {
    cudaStreamSynchronize (s->stream);
    cudaStreamDestroy (s->stream);
  }
  if (s->done)
    cudaEventDestroy (s->done);
  free (s);
}

void *
cf_stream_handle (const CfStream * s)
{
  return s->stream;
}

CfDeviceError
cf_stream_mark (CfStream * s)
{
  return cudaEventRecord (s->done, s->stream);
}

CfDeviceError
cf_stream_wait (CfStream * s)
{
  return cudaEventSynchronize (s->done);
}

CfDeviceError
cf_stream_poll (CfStream * s)
{
  return cudaEventQuery (s->done);
}

CfDeviceError
cf_stream_finish (CfStream * s)
{
  return cudaStreamSynchronize (s->stream);
}

/* The side stream and its event (cf_stream_mark (): what cf_join () waits
 * for), and the event the side stream waits for at a fork. */
struct CfFork {
  CfStream *side;
  cudaEvent_t forked;
  pthread_mutex_t lock;
};

CfDeviceError
cf_fork_new (CfFork ** out)
{
  CfFork *f = calloc (1, sizeof (*f));
  cudaError_t err;

  *out = NULL;
  if (!f)
    return cudaErrorMemoryAllocation;
  if (pthread_mutex_init (&f->lock, NULL) != 0) {
    free (f);
    return cudaErrorMemoryAllocation;
  }
  err = cf_stream_new (&f->side);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&f->forked, cudaEventDisableTiming);
  if (err != cudaSuccess) {
    cf_fork_free (f);
    return err;
  }
  *out = f;
  return cudaSuccess;
}

void
cf_fork_free (CfFork * f)
{
  if (!f)
    return;
  cf_stream_free (f->side);
  if (f->forked)
    cudaEventDestroy (f->forked);
  pthread_mutex_destroy (&f->lock);
  free (f);
}

CfDeviceError
cf_fork (CfFork * f, void *stream, void **side)
{
  cudaError_t err;

  pthread_mutex_lock (&f->lock);
  err = cudaEventRecord (f->forked, (cudaStream_t) stream);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (f->side->stream, f->forked, 0);
  if (err != cudaSuccess) {
    pthread_mutex_unlock (&f->lock);
    return err;
  }
  *side = f->side->stream;
  return cudaSuccess;
}

CfDeviceError
cf_join (CfFork * f, void *stream)
{
  cudaError_t err = cf_stream_mark (f->side);

  if (err == cudaSuccess)
    err = cudaStreamWaitEvent ((cudaStream_t) stream, f->side->done, 0);
  pthread_mutex_unlock (&f->lock);
  return err;
}

CfDeviceError
cf_device_alloc (void **d_ptr, size_t bytes)
{
  return cudaMalloc (d_ptr, bytes);
}

void
cf_device_free (void *d_ptr)
{
  if (d_ptr)
    cudaFree (d_ptr);
}

CfDeviceError
cf_host_alloc (void **h_ptr, size_t bytes)
{
  /* portable: whichever context a later copy runs in may use it; mapped:
   * kernels may read and write it too, through the same pointer (unified
   * addressing), as cf_stats_cuda () does */
  return cudaHostAlloc (h_ptr, bytes, cudaHostAllocPortable |
      cudaHostAllocMapped);
}

void
cf_host_free (void *h_ptr)
{
  if (h_ptr)
    cudaFreeHost (h_ptr);
}

CfDeviceError
cf_copy_async (void *dst, const void *src, size_t bytes, CfStream * s)
{
  return cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDefault, s->stream);
}

CfDeviceError
cf_image_copy_async (const CfImage * src, const CfImage * dst, CfStream * s)
{
  const CfFormatInfo *info = cf_format_info (src->format);
  cudaError_t err = cudaSuccess;
  int p;

  if (!info || src->format != dst->format || src->width != dst->width ||
      src->height != dst->height)
    return cudaErrorInvalidValue;
  for (p = 0; err == cudaSuccess && p < info->n_planes; p++)
    err = cudaMemcpy2DAsync (dst->data[p], dst->pitch[p], src->data[p],
        src->pitch[p], cf_plane_row_bytes (src->format, p, src->width),
        cf_plane_height (src->format, p, src->height), cudaMemcpyDefault,
        s->stream);
  return err;
}

#else /* no CUDA: the same calls, failing */

struct CfStream {
  int unused;
};

const char *
cf_device_error_name (CfDeviceError error)
{
  return error == CF_DEVICE_OK ? "CF_DEVICE_OK" :
      error == CF_DEVICE_INVALID ? "CF_DEVICE_INVALID" : "CF_DEVICE_NO_CUDA";
}

const char *
cf_device_error_string (CfDeviceError error)
{
  return error == CF_DEVICE_OK ? "no error" :
      error == CF_DEVICE_INVALID ? "invalid argument" :
      "this build has no CUDA backend";
}

int
cf_device_count (CfDeviceError * why)
{
  if (why)
    *why = CF_DEVICE_NO_CUDA;
  return 0;
}

void
cf_device_name (int device, char *name, size_t len)
{
  if (len)
    name[0] = '\0';
}

CfDeviceError
cf_device_use (int device)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_device_memory (size_t * free_bytes, size_t * total_bytes)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_stream_new (CfStream ** out)
{
  *out = NULL;
  return CF_DEVICE_NO_CUDA;
}

void
cf_stream_free (CfStream * s)
{
}

void *
cf_stream_handle (const CfStream * s)
{
  return NULL;
}

CfDeviceError
cf_stream_mark (CfStream * s)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_stream_wait (CfStream * s)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_stream_poll (CfStream * s)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_stream_finish (CfStream * s)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_fork_new (CfFork ** out)
{
  *out = NULL;
  return CF_DEVICE_NO_CUDA;
}

void
cf_fork_free (CfFork * f)
{
}

CfDeviceError
cf_fork (CfFork * f, void *stream, void **side)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_join (CfFork * f, void *stream)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_device_alloc (void **d_ptr, size_t bytes)
{
  *d_ptr = NULL;
  return CF_DEVICE_NO_CUDA;
}

void
cf_device_free (void *d_ptr)
{
}

CfDeviceError
cf_host_alloc (void **h_ptr, size_t bytes)
{
  *h_ptr = NULL;
  return CF_DEVICE_NO_CUDA;
}

void
cf_host_free (void *h_ptr)
{
}

CfDeviceError
cf_copy_async (void *dst, const void *src, size_t bytes, CfStream * s)
{
  return CF_DEVICE_NO_CUDA;
}

CfDeviceError
cf_image_copy_async (const CfImage * src, const CfImage * dst, CfStream * s)
{
  return CF_DEVICE_NO_CUDA;
}

#endif /* HAVE_CUDA */

/* ---- built on the calls above, the same in both builds ---------------- */

CfDeviceError
cf_grow_buffer_reserve (CfGrowBuffer * b, size_t bytes)
{
  size_t size;
  CfDeviceError err;

  if (bytes <= b->size)
    return CF_DEVICE_OK;
  size = bytes > GROW_FACTOR * b->size ? bytes : GROW_FACTOR * b->size;
  cf_grow_buffer_clear (b);
  err = b->host ? cf_host_alloc (&b->data, size) :
      cf_device_alloc (&b->data, size);
  if (err != CF_DEVICE_OK) {
    b->data = NULL;
    return err;
  }
  b->size = size;
  return CF_DEVICE_OK;
}

void
cf_grow_buffer_clear (CfGrowBuffer * b)
{
  if (b->host)
    cf_host_free (b->data);
  else
    cf_device_free (b->data);
  b->data = NULL;
  b->size = 0;
}

/* ---- frame copies between host memories over a few threads --------- */

/* A copy splits into parts of whole rows, one per thread, run by the
 * kernel library's worker pool (threads.h) with the caller one of the
 * threads. */
#define COPY_MAX_THREADS 8
#define COPY_MIN_BYTES ((size_t) 1 << 20)

typedef struct {
  const CfImage *src, *dst;
  int total_rows, n_parts;
} CopyJob;

static pthread_once_t copy_once = PTHREAD_ONCE_INIT;
static int copy_threads = 1;

static void
copy_part (void *data, int part)
{
  const CopyJob *job = data;

  cf_image_copy_rows (job->src, job->dst, cf_parallel_split (job->total_rows,
          job->n_parts, part), cf_parallel_split (job->total_rows,
          job->n_parts, part + 1));
}

/* Half the cores, at most COPY_MAX_THREADS, the caller one of them; one
 * (the caller alone) on two cores or fewer. CF_COPY_THREADS=N
 * (1 .. COPY_MAX_THREADS) overrides the count: the tests run the split
 * copies on any machine with it. */
static void
copy_start (void)
{
  const char *env = getenv ("CF_COPY_THREADS");
  int want = cf_parallel_cores () / 2;

  if (env && atoi (env) >= 1)
    want = atoi (env);
  if (want < 2)
    want = 1;
  copy_threads = want > COPY_MAX_THREADS ? COPY_MAX_THREADS : want;
}

int
cf_image_copy_threads (const CfImage * src, const CfImage * dst)
{
  CopyJob job;
  size_t bytes = 0;
  int p;

  if (cf_image_check (src) != 0 || cf_image_check (dst) != 0 ||
      src->format != dst->format || src->width != dst->width ||
      src->height != dst->height)
    return -1;
  memset (&job, 0, sizeof (job));
  job.src = src;
  job.dst = dst;
  for (p = 0; p < cf_format_info (src->format)->n_planes; p++) {
    const int rows = cf_plane_height (src->format, p, src->height);

    job.total_rows += rows;
    bytes += cf_plane_row_bytes (src->format, p, src->width) * rows;
  }
  if (bytes < COPY_MIN_BYTES || pthread_once (&copy_once, copy_start) != 0)
    return cf_image_copy (src, dst);
  job.n_parts = cf_parallel_parts (copy_threads, job.total_rows);
  cf_parallel_for (copy_threads, job.n_parts, copy_part, &job);
  return 0;
}

/* @image's frame in @staging, densely laid out (grown when @grow). */
static CfDeviceError
staged (const CfImage * image, CfGrowBuffer * staging, int grow,
    CfImage * out)
{
  CfImage layout;
  size_t bytes = cf_image_layout (image->format, image->width, image->height,
      STAGING_ROW_ALIGN, &layout);
  CfDeviceError err;

  if (grow) {
    staging->host = 1;
    if ((err = cf_grow_buffer_reserve (staging, bytes)) != CF_DEVICE_OK)
      return err;
  }
  if (staging->size < bytes)
    return CF_DEVICE_INVALID;
  *out = cf_image_at (&layout, staging->data);
  return CF_DEVICE_OK;
}

CfDeviceError
cf_image_upload (const CfImage * src, int host_pinned, CfGrowBuffer * staging,
    const CfImage * dst, CfStream * stream)
{
  CfImage mid;
  CfDeviceError err;

  if (host_pinned)
    return cf_image_copy_async (src, dst, stream);
  if ((err = staged (src, staging, 1, &mid)) != CF_DEVICE_OK)
    return err;
  if (cf_image_copy_threads (src, &mid) != 0)
    return CF_DEVICE_INVALID;
  return cf_image_copy_async (&mid, dst, stream);
}

CfDeviceError
cf_image_download (const CfImage * src, const CfImage * dst, int host_pinned,
    CfGrowBuffer * staging, CfStream * stream)
{
  CfImage mid;
  CfDeviceError err;

  if (host_pinned)
    return cf_image_copy_async (src, dst, stream);
  if ((err = staged (src, staging, 1, &mid)) != CF_DEVICE_OK)
    return err;
  return cf_image_copy_async (src, &mid, stream);
}

void
cf_image_download_finish (const CfImage * dst, int host_pinned,
    CfGrowBuffer * staging)
{
  CfImage mid;

  if (!host_pinned && staged (dst, staging, 0, &mid) == CF_DEVICE_OK)
    cf_image_copy_threads (&mid, dst);
}

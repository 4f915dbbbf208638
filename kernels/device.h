/* gst-cudafilters kernel library: what touches the CUDA device.
 *
 * Every user of the GPU (the elements, the audio filter, the batch tool)
 * goes through this module for devices, streams, device and page-locked
 * memory and copies, so that the plumbing exists once. Plain C, no
 * GStreamer. In a build without CUDA every function is still there and
 * fails with CF_DEVICE_NO_CUDA (counts are 0), so callers need no #ifdef.
 *
 * Everything runs in the CUDA context current on the calling thread: the
 * runtime's primary context of a device after cf_device_use (), or a
 * context the caller pushed (the elements push GStreamer's shared
 * GstCudaContext). Streams, events and device memory belong to the context
 * they were made in; page-locked host memory is portable (every context may
 * copy from and to it).
 *
 * Errors are CfDeviceError: CF_DEVICE_OK, a CUDA runtime error code
 * (cudaError_t's values), or CF_DEVICE_NO_CUDA; cf_device_error_name () and
 * cf_device_error_string () describe any of them.
 */
#ifndef CF_DEVICE_H
#define CF_DEVICE_H

#include <stddef.h>

#include "format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int CfDeviceError;
#define CF_DEVICE_OK 0
/* cudaErrorNotReady: cf_stream_poll ()'s "still running" */
#define CF_DEVICE_NOT_READY 600
/* cudaErrorInvalidValue: images that do not match, a bad argument */
#define CF_DEVICE_INVALID 1
/* a build without CUDA */
#define CF_DEVICE_NO_CUDA (-1)

/* "cudaErrorMemoryAllocation", "CF_DEVICE_NO_CUDA", ... */
const char *cf_device_error_name (CfDeviceError error);
/* A sentence: "out of memory", "this build has no CUDA backend", ... */
const char *cf_device_error_string (CfDeviceError error);

/* The CUDA devices the process sees; 0 with *@why set (when not NULL) where
 * there are none, no driver, or no CUDA in the build. Creates no context. */
int cf_device_count (CfDeviceError * why);
/* "NVIDIA H100 80GB HBM3" into @name; "" on error. */
void cf_device_name (int device, char *name, size_t len);
/* Makes @device's primary context current on the calling thread, creating
 * it on first use (so a failure here means the device does not work). */
CfDeviceError cf_device_use (int device);
/* Free and total bytes of the current context's device. */
CfDeviceError cf_device_memory (size_t * free_bytes, size_t * total_bytes);

/* A non-blocking stream and an event marking how far its work has come. */
typedef struct CfStream CfStream;

CfDeviceError cf_stream_new (CfStream ** stream);
/* Waits for the stream's work, then frees it (NULL is fine). */
void cf_stream_free (CfStream * stream);
/* The cudaStream_t, for the kernel launchers. */
void *cf_stream_handle (const CfStream * stream);
/* Marks the work queued so far; cf_stream_wait () and cf_stream_poll ()
 * then tell about that work. */
CfDeviceError cf_stream_mark (CfStream * stream);
CfDeviceError cf_stream_wait (CfStream * stream);
/* CF_DEVICE_OK when the marked work is done, CF_DEVICE_NOT_READY while it
 * runs, another error when it failed. */
CfDeviceError cf_stream_poll (CfStream * stream);
/* Waits for all the work queued on the stream. */
CfDeviceError cf_stream_finish (CfStream * stream);

/* A stream of its own beside a caller's, for launches that need not wait
 * for one another (a frame's chroma planes beside its luma): cf_fork ()
 * makes it wait for the work queued on the caller's @stream so far, locks
 * it and gives its handle; cf_join () makes @stream wait for the work
 * queued on it since, and unlocks it. Every successful fork must be joined
 * on the same thread; a fork from another thread waits for that join, so
 * one CfFork serves any number of threads and streams. Made in, and used
 * with streams of, the current context. */
typedef struct CfFork CfFork;

CfDeviceError cf_fork_new (CfFork ** fork);
/* Waits for the work queued on its stream, then frees it (NULL is
 * fine). */
void cf_fork_free (CfFork * fork);
CfDeviceError cf_fork (CfFork * fork, void *stream, void **side);
CfDeviceError cf_join (CfFork * fork, void *stream);

/* Device memory of the current context, and page-locked host memory (NULL
 * frees nothing) that every context may copy from and to, and kernels may
 * read and write through the same pointer. */
CfDeviceError cf_device_alloc (void **d_ptr, size_t bytes);
void cf_device_free (void *d_ptr);
CfDeviceError cf_host_alloc (void **h_ptr, size_t bytes);
void cf_host_free (void *h_ptr);

/* A buffer that grows and never shrinks: device memory, or page-locked
 * host memory with @host. Growing drops the contents: a caller grows only
 * once the work that used the old memory is done. */
typedef struct {
  void *data;
  size_t size;
  int host;
} CfGrowBuffer;

/* At least @bytes; a larger size when it grows, so that a stream of
 * slightly growing requests does not reallocate each time. */
CfDeviceError cf_grow_buffer_reserve (CfGrowBuffer * buffer, size_t bytes);
void cf_grow_buffer_clear (CfGrowBuffer * buffer);

/* Queues a copy of @bytes, or of every plane's rows of @src into @dst (the
 * same format and size, any pitches), on @stream. Either side may be
 * device or host memory (unified addressing tells which); host memory that
 * is not page-locked makes the copy synchronous. */
CfDeviceError cf_copy_async (void *dst, const void *src, size_t bytes,
    CfStream * stream);
CfDeviceError cf_image_copy_async (const CfImage * src, const CfImage * dst,
    CfStream * stream);

/* cf_image_copy () (format.h) between host memories, a frame of 1 MiB or
 * more split by rows over a few threads of the kernel library's pool
 * (threads.h; half the cores, at most 8, the caller one of them; the
 * caller alone on two cores): the staging copies below use it. Safe from
 * several threads at once. Returns 0, or -1 when the images do not
 * match. */
int cf_image_copy_threads (const CfImage * src, const CfImage * dst);

/* Transfers of whole frames between host and device images, in @stream's
 * order. Page-locked host memory (@host_pinned) is copied straight; other
 * host memory goes through @staging (page-locked, grown to a dense layout
 * of the frame, cf_image_layout ()), which must stay untouched until the
 * stream is past the copy: an upload copies the rows into it at once; a
 * download lands in it, and cf_image_download_finish () copies the rows
 * out once the stream's work is done. Those two copies are
 * cf_image_copy_threads (). */
CfDeviceError cf_image_upload (const CfImage * src, int host_pinned,
    CfGrowBuffer * staging, const CfImage * dst, CfStream * stream);
CfDeviceError cf_image_download (const CfImage * src, const CfImage * dst,
    int host_pinned, CfGrowBuffer * staging, CfStream * stream);
void cf_image_download_finish (const CfImage * dst, int host_pinned,
    CfGrowBuffer * staging);

#ifdef __cplusplus
}
#endif
#endif /* CF_DEVICE_H */

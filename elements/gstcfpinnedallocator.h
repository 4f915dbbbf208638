/* GstCfPinnedAllocator: page-locked host memory (cudaHostAlloc).
 *
 * The pool that the project's elements propose upstream allocates from it,
 * so uploads and downloads of those buffers run asynchronously at full PCIe
 * speed. Used on the CUDA backend only.
 */
#ifndef __GST_CF_PINNED_ALLOCATOR_H__
#define __GST_CF_PINNED_ALLOCATOR_H__

#include <gst/gst.h>

#include "gstcfgpu.h"

G_BEGIN_DECLS

#define GST_CF_PINNED_MEMORY_TYPE "CfPinnedMemory"

#define GST_TYPE_CF_PINNED_ALLOCATOR (gst_cf_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCfPinnedAllocator, gst_cf_pinned_allocator, GST,
    CF_PINNED_ALLOCATOR, GstAllocator)

/* Memory is pinned for every CUDA context (portable); @gpu's context is
 * made current to allocate and free it, on whatever thread does. */
GstAllocator *gst_cf_pinned_allocator_new (const GstCfGpu * gpu);

/* TRUE when every memory of @buffer is pinned memory of this allocator. */
gboolean gst_cf_buffer_is_pinned (GstBuffer * buffer);

G_END_DECLS
#endif

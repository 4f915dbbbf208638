/* Page-locked host memory for the buffer pools proposed upstream. */
#ifdef HAVE_CUDA

#include "gstcfpinnedallocator.h"

#include <string.h>
#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_pinned_allocator_debug);
#define GST_CAT_DEFAULT gst_cf_pinned_allocator_debug

struct _GstCfPinnedAllocator {
  GstAllocator parent;
  gint device_id;
};

typedef struct {
  GstMemory mem;
  guint8 *data;                 /* start of the whole block (of the parent) */
} GstCfPinnedMemory;

G_DEFINE_TYPE (GstCfPinnedAllocator, gst_cf_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  GstCfPinnedAllocator *self = GST_CF_PINNED_ALLOCATOR (allocator);
  /* cudaHostAlloc returns page-aligned memory: any alignment up to a page
   * is met without padding */
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize = size + params->prefix + params->padding;
  GstCfPinnedMemory *mem;
  cudaError_t err;
  void *ptr = NULL;

  if (align >= 4096) {
    GST_ERROR_OBJECT (self, "alignment %" G_GSIZE_FORMAT " not supported",
        align + 1);
    return NULL;
  }
  if ((err = cudaSetDevice (MAX (self->device_id, 0))) != cudaSuccess ||
      (err = cudaHostAlloc (&ptr, maxsize, cudaHostAllocPortable))
      != cudaSuccess) {
    GST_ERROR_OBJECT (self, "cudaHostAlloc of %" G_GSIZE_FORMAT " bytes: %s",
        maxsize, cudaGetErrorName (err));
    return NULL;
  }
  GST_DEBUG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes at %p", maxsize, ptr);
  mem = g_new0 (GstCfPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  mem->data = ptr;
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstCfPinnedMemory *mem = (GstCfPinnedMemory *) memory;

  if (!memory->parent) {
    cudaError_t err;

    GST_DEBUG_OBJECT (allocator, "freeing %p", mem->data);
    err = cudaFreeHost (mem->data);
    if (err != cudaSuccess)
      GST_ERROR_OBJECT (allocator, "cudaFreeHost: %s", cudaGetErrorName (err));
  }
  g_free (mem);
}

static gpointer
pinned_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GstCfPinnedMemory *) memory)->data;
}

static void
pinned_unmap (GstMemory * memory)
{
}

static GstMemory *
pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstCfPinnedMemory *mem = (GstCfPinnedMemory *) memory, *sub;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (GstCfPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  sub->data = mem->data;
  return GST_MEMORY_CAST (sub);
}

/* copies need not be pinned: plain system memory */
static GstMemory *
pinned_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstMapInfo in, out;
  GstMemory *copy;

  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;
  copy = gst_allocator_alloc (NULL, size, NULL);
  if (!copy)
    return NULL;
  if (!gst_memory_map (memory, &in, GST_MAP_READ)) {
    gst_memory_unref (copy);
    return NULL;
  }
  if (gst_memory_map (copy, &out, GST_MAP_WRITE)) {
    memcpy (out.data, in.data + offset, size);
    gst_memory_unmap (copy, &out);
  }
  gst_memory_unmap (memory, &in);
  return copy;
}

static gboolean
pinned_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  return FALSE;
}

static void
gst_cf_pinned_allocator_class_init (GstCfPinnedAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  allocator_class->alloc = GST_DEBUG_FUNCPTR (pinned_alloc);
  allocator_class->free = GST_DEBUG_FUNCPTR (pinned_free);
  GST_DEBUG_CATEGORY_INIT (gst_cf_pinned_allocator_debug, "cfpinnedallocator",
      0, "gst-cudafilters page-locked host memory");
}

static void
gst_cf_pinned_allocator_init (GstCfPinnedAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR (self);

  alloc->mem_type = GST_CF_PINNED_MEMORY_TYPE;
  alloc->mem_map = pinned_map;
  alloc->mem_unmap = pinned_unmap;
  alloc->mem_share = pinned_share;
  alloc->mem_copy = pinned_copy;
  alloc->mem_is_span = pinned_is_span;
}

GstAllocator *
gst_cf_pinned_allocator_new (gint device_id)
{
  GstCfPinnedAllocator *self =
      g_object_new (GST_TYPE_CF_PINNED_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->device_id = device_id;
  return GST_ALLOCATOR (self);
}

gboolean
gst_cf_buffer_is_pinned (GstBuffer * buffer)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    if (!gst_memory_is_type (gst_buffer_peek_memory (buffer, i),
            GST_CF_PINNED_MEMORY_TYPE))
      return FALSE;
  }
  return n > 0;
}

#endif /* HAVE_CUDA */

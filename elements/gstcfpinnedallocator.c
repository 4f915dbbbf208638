/* Page-locked host memory for the buffer pools proposed upstream. */
#include "gstcfpinnedallocator.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_pinned_allocator_debug);
#define GST_CAT_DEFAULT gst_cf_pinned_allocator_debug

struct _GstCfPinnedAllocator {
  GstAllocator parent;
  GstCfGpu *gpu;                /* the context made current to allocate */
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
  CfDeviceError err;
  void *ptr = NULL;

  if (align >= 4096) {
    GST_ERROR_OBJECT (self, "alignment %" G_GSIZE_FORMAT " not supported",
        align + 1);
    return NULL;
  }
  /* upstream's thread: the element's context, not whatever is current */
  if (!gst_cf_gpu_push (self->gpu, NULL)) {
    GST_ERROR_OBJECT (self, "could not make the CUDA context current");
    return NULL;
  }
  err = cf_host_alloc (&ptr, maxsize);
  gst_cf_gpu_pop (self->gpu);
  if (err != CF_DEVICE_OK) {
    GST_ERROR_OBJECT (self, "page-locked allocation of %" G_GSIZE_FORMAT
        " bytes: %s", maxsize, cf_device_error_name (err));
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
    GstCfPinnedAllocator *self = GST_CF_PINNED_ALLOCATOR (allocator);

    GST_DEBUG_OBJECT (allocator, "freeing %p", mem->data);
    if (gst_cf_gpu_push (self->gpu, NULL)) {
      cf_host_free (mem->data);
      gst_cf_gpu_pop (self->gpu);
    }
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
gst_cf_pinned_allocator_finalize (GObject * object)
{
  GstCfPinnedAllocator *self = GST_CF_PINNED_ALLOCATOR (object);

  if (self->gpu) {
    gst_cf_gpu_clear (self->gpu);
    g_free (self->gpu);
  }
  G_OBJECT_CLASS (gst_cf_pinned_allocator_parent_class)->finalize (object);
}

static void
gst_cf_pinned_allocator_class_init (GstCfPinnedAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gst_cf_pinned_allocator_finalize;
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
gst_cf_pinned_allocator_new (const GstCfGpu * gpu)
{
  GstCfPinnedAllocator *self =
      g_object_new (GST_TYPE_CF_PINNED_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->gpu = gst_cf_gpu_copy (gpu);
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

/* Helpers shared by the element tests (GstCheck): elements on the run's
 * backend, video infos, frames of random content. */
#ifndef CF_CHECK_H
#define CF_CHECK_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <stdarg.h>
#include <string.h>

#include "cf-test.h"
#include "format.h"
#include "packed.h"

/* An element of @factory on the run's backend, with the properties given as
 * pairs of strings (name, value), NULL-terminated. */
static inline GstElement *
cf_check_element_new (const gchar * factory, const gchar * prop, ...)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  va_list args;

  fail_unless (e != NULL, "no %s element (GST_PLUGIN_PATH_1_0?)", factory);
  gst_util_set_object_arg (G_OBJECT (e), "backend", cf_test_backend_name ());
  va_start (args, prop);
  for (; prop; prop = va_arg (args, const gchar *))
      gst_util_set_object_arg (G_OBJECT (e), prop, va_arg (args,
            const gchar *));
  va_end (args);
  return e;
}

/* @format at @width x @height, 30 frames/s. */
static inline void
cf_check_set_info (GstVideoInfo * info, const gchar * format, gint width,
    gint height)
{
  GstVideoFormat f = gst_video_format_from_string (format);

  fail_if (f == GST_VIDEO_FORMAT_UNKNOWN, "unknown format %s", format);
  fail_unless (gst_video_info_set_format (info, f, width, height));
  GST_VIDEO_INFO_FPS_N (info) = 30;
  GST_VIDEO_INFO_FPS_D (info) = 1;
}

static inline void
cf_check_fill_random (GstBuffer * buf, GRand * rand)
{
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i += 4) {
    guint32 r = g_rand_int (rand);

    memcpy (map.data + i, &r, MIN (4, map.size - i));
  }
  gst_buffer_unmap (buf, &map);
}

/* A frame of @info with random content, its PTS and DTS @pts; with
 * @video_meta a GstVideoMeta describes its layout. */
static inline GstBuffer *
cf_check_frame_new (const GstVideoInfo * info, GRand * rand, GstClockTime pts,
    GstClockTime duration, gboolean video_meta)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);

  cf_check_fill_random (buf, rand);
  if (video_meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
        (gsize *) info->offset, (gint *) info->stride);
  GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = duration;
  return buf;
}

/* A frame of @info with random content whose rows are @extra_stride bytes
 * longer than @info's and whose planes lie @gap bytes apart (and @gap
 * bytes into the buffer), as a GstVideoMeta describes it. */
static inline GstBuffer *
cf_check_padded_frame_new (const GstVideoInfo * info, gint extra_stride,
    gsize gap, GRand * rand, GstClockTime pts, GstClockTime duration)
{
  const CfFormat cf = cf_format_from_name (GST_VIDEO_INFO_NAME (info));
  GstVideoInfo layout = *info;
  gsize offset = gap;
  GstBuffer *buf;
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    layout.stride[p] += extra_stride;
    layout.offset[p] = offset;
    offset += layout.stride[p] * cf_plane_height (cf, p,
        GST_VIDEO_INFO_HEIGHT (info)) + gap;
  }
  layout.size = offset;
  buf = cf_check_frame_new (&layout, rand, pts, duration, FALSE);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      layout.offset, layout.stride);
  return buf;
}

/* Tears down @h and lets go of @bus (may be NULL), the bus set on its
 * element: the messages left hold the element, which holds the bus. */
static inline void
cf_check_harness_free (GstHarness * h, GstBus * bus)
{
  gst_harness_teardown (h);
  if (bus) {
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
  }
}

/* Fails unless a @factory element (default properties) refuses the caps
 * @caps: a buffer pushed after them gives GST_FLOW_NOT_NEGOTIATED. */
static inline void
cf_check_refuses_caps (const gchar * factory, const gchar * caps)
{
  GstHarness *h = gst_harness_new_with_element (cf_check_element_new (factory,
          NULL), "sink", "src");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 4096, NULL);

  gst_object_unref (h->element);
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

/* Sends EOS, then pulls @n buffers, calling @check (buffer, index) on each
 * in order, and fails if fewer or more come out. */
static inline void
cf_check_eos_and_pull (GstHarness * h, void (*check) (GstBuffer *, guint),
    guint n)
{
  GstBuffer *out;
  guint i;

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    out = gst_harness_try_pull (h);
    fail_unless (out != NULL, "only %u of %u buffers came out", i, n);
    check (out, i);
    gst_buffer_unref (out);
  }
  out = gst_harness_try_pull (h);
  fail_unless (out == NULL, "more than %u buffers came out", n);
}

static inline GstPadProbeReturn
cf_check_log_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GString *log = user_data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    g_string_append_c (log, 'B');
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS)
    g_string_append_c (log, 'C');
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    g_string_append_c (log, 'E');
  return GST_PAD_PROBE_OK;
}

/* What reaches the harness @h from now on, in order: B a buffer, C caps,
 * E end of stream. Free it with g_string_free (). */
static inline GString *
cf_check_log_output (GstHarness * h)
{
  GString *log = g_string_new (NULL);

  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, cf_check_log_probe, log, NULL);
  return log;
}

/* ---- frames against an oracle ---------------------------------------- */

static inline CfFormat
cf_check_format (const GstVideoInfo * info)
{
  CfFormat f = cf_format_from_name (GST_VIDEO_INFO_NAME (info));

  fail_if (f == CF_FORMAT_COUNT);
  return f;
}

/* A mapped frame as a CfImage. */
static inline void
cf_check_image_of (GstVideoFrame * f, CfImage * img)
{
  guint p;

  memset (img, 0, sizeof (*img));
  img->format = cf_check_format (&f->info);
  img->width = GST_VIDEO_FRAME_WIDTH (f);
  img->height = GST_VIDEO_FRAME_HEIGHT (f);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (f); p++) {
    img->data[p] = GST_VIDEO_FRAME_PLANE_DATA (f, p);
    img->pitch[p] = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
  }
}

/* Maps @src (an @from frame) for reading and @dst (a @to frame) for
 * writing and runs @fn on them as CfImages, which must return 0: a copy
 * (cf_image_copy ()), or a conversion (cf_packed_unpack_cpu ()). */
static inline void
cf_check_frames_apply (const GstVideoInfo * from, GstBuffer * src,
    const GstVideoInfo * to, GstBuffer * dst,
    int (*fn) (const CfImage *, const CfImage *))
{
  GstVideoFrame fi, fo;
  CfImage a, b;

  fail_unless (gst_video_frame_map (&fi, from, src, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, to, dst, GST_MAP_WRITE));
  cf_check_image_of (&fi, &a);
  cf_check_image_of (&fo, &b);
  fail_unless_equals_int (fn (&a, &b), 0);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
}

/* The kernels' view of a frame: packed 4:2:2 (YUY2, UYVY) is worked on as
 * its planar twin, as the elements do. cf_check_planar_begin () replaces
 * @img of a packed format by a planar copy (cf_packed_unpack_cpu ());
 * cf_check_planar_end () packs that copy back into the frame when @write,
 * and frees it. Other formats stay as they are. */
typedef struct
{
  CfImage packed;
  guint8 *mem;
} CfCheckPlanar;

static inline void
cf_check_planar_begin (CfCheckPlanar * p, CfImage * img)
{
  CfImage layout;
  gsize bytes;

  memset (p, 0, sizeof (*p));
  if (cf_packed_planar (img->format) == img->format)
    return;
  p->packed = *img;
  bytes = cf_image_layout (cf_packed_planar (img->format), img->width,
      img->height, 16, &layout);
  p->mem = g_malloc (bytes);
  *img = cf_image_at (&layout, p->mem);
  fail_unless_equals_int (cf_packed_unpack_cpu (&p->packed, img), 0);
}

static inline void
cf_check_planar_end (CfCheckPlanar * p, const CfImage * img, gboolean write)
{
  if (!p->mem)
    return;
  if (write)
    fail_unless_equals_int (cf_packed_pack_cpu (img, &p->packed), 0);
  g_free (p->mem);
  p->mem = NULL;
}

/* The rows of every plane of @buf (as @info or its GstVideoMeta lays it
 * out), one after the other, without the padding after each row. */
static inline GBytes *
cf_check_pack (const GstVideoInfo * info, GstBuffer * buf)
{
  GByteArray *a = g_byte_array_new ();
  CfFormat cf = cf_check_format (info);
  GstVideoFrame f;
  guint p;
  gint y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);

    for (y = 0; y < cf_plane_height (cf, p, GST_VIDEO_INFO_HEIGHT (info)); y++)
      g_byte_array_append (a, d + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p),
          cf_plane_row_bytes (cf, p, GST_VIDEO_INFO_WIDTH (info)));
  }
  gst_video_frame_unmap (&f);
  return g_byte_array_free_to_bytes (a);
}

/* @buf (an @info frame) is @want, byte for byte; names the first
 * difference. */
static inline void
cf_check_assert_frame (const GstVideoInfo * info, GstBuffer * buf, GBytes * want,
    const gchar * what)
{
  CfFormat cf = cf_check_format (info);
  GBytes *got = cf_check_pack (info, buf);
  gsize n, i = 0, row, rows;
  const guint8 *g = g_bytes_get_data (got, &n);
  const guint8 *w = g_bytes_get_data (want, NULL);
  guint p;

  fail_unless_equals_uint64 (n, g_bytes_get_size (want));
  if (memcmp (g, w, n) != 0) {
    while (g[i] == w[i])
      i++;
    for (p = 0;; p++) {
      row = cf_plane_row_bytes (cf, p, GST_VIDEO_INFO_WIDTH (info));
      rows = cf_plane_height (cf, p, GST_VIDEO_INFO_HEIGHT (info));
      if (i < row * rows)
        break;
      i -= row * rows;
      g += row * rows;
      w += row * rows;
    }
    fail ("%s: plane %u, row %" G_GSIZE_FORMAT ", byte %" G_GSIZE_FORMAT
        " differs: got %u, want %u", what, p, i / row, i % row, g[i], w[i]);
  }
  g_bytes_unref (got);
}


/* ---- n-threads --------------------------------------------------------- */

/* The values of n-threads checked: 0 is all the cores, 64 more threads
 * than cf_check_n_threads ()'s frames have rows of chroma. */
static const gchar *const cf_check_n_threads_values[] = {
  "1", "2", "3", "0", "64"
};

/* What cf_check_n_threads () compares of an output buffer: by default the
 * rows of its frame (cf_check_pack ()); an analyser gives its results. */
typedef GBytes *(*CfCheckOutput) (const GstVideoInfo * out, GstBuffer * buf);

/* Pushes @n_frames random frames of @in_caps (the odd ones with padded rows
 * and planes apart, as a GstVideoMeta describes them) through a @factory
 * element on the CPU backend, once per cf_check_n_threads_values, with
 * its other properties @props (name, value, ..., NULL), downstream taking
 * @out_caps (NULL: any); fails unless every n-threads gives the bytes that
 * @output (NULL: the frame's rows) makes of n-threads=1's buffers. */
static inline void
cf_check_n_threads (const gchar * factory, const gchar * const *props,
    const gchar * in_caps, const gchar * out_caps, guint n_frames,
    CfCheckOutput output, GRand * rand)
{
  GstCaps *caps = gst_caps_from_string (in_caps);
  GBytes **want = g_new0 (GBytes *, n_frames);
  GstBuffer **frames = g_new0 (GstBuffer *, n_frames);
  GstVideoInfo in;
  guint v, i, k;

  fail_unless (gst_video_info_from_caps (&in, caps), "caps %s", in_caps);
  gst_caps_unref (caps);
  for (i = 0; i < n_frames; i++)
    frames[i] = i % 2 ? cf_check_padded_frame_new (&in, 7 * i, 3 * i, rand,
        i * GST_SECOND / 30, GST_SECOND / 30) : cf_check_frame_new (&in, rand,
        i * GST_SECOND / 30, GST_SECOND / 30, FALSE);
  for (v = 0; v < G_N_ELEMENTS (cf_check_n_threads_values); v++) {
    GstElement *e = cf_check_element_new (factory, "backend", "cpu",
        "n-threads", cf_check_n_threads_values[v], NULL);
    GstHarness *h;
    GstVideoInfo out;

    for (k = 0; props && props[k]; k += 2)
      gst_util_set_object_arg (G_OBJECT (e), props[k], props[k + 1]);
    h = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
    gst_harness_set_sink_caps_str (h, out_caps ? out_caps : "video/x-raw");
    gst_harness_set_src_caps_str (h, in_caps);
    for (i = 0; i < n_frames; i++) {
      /* a copy: a drawing element may change a buffer it can write */
      GstBuffer *buf = gst_buffer_copy_deep (frames[i]);
      GBytes *got;

      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
      if (i == 0) {
        caps = gst_pad_get_current_caps (h->sinkpad);
        fail_unless (gst_video_info_from_caps (&out, caps));
        gst_caps_unref (caps);
      }
      buf = gst_harness_pull (h);
      fail_unless (buf != NULL);
      got = output ? output (&out, buf) : cf_check_pack (&out, buf);
      if (v == 0) {
        want[i] = got;
      } else {
        gchar *what = g_strdup_printf ("%s n-threads=%s, frame %u", factory,
            cf_check_n_threads_values[v], i);
        gsize n = g_bytes_get_size (got);

        fail_unless_equals_uint64 (n, g_bytes_get_size (want[i]));
        if (output)
          fail_unless (memcmp (g_bytes_get_data (got, NULL),
                  g_bytes_get_data (want[i], NULL), n) == 0, "%s differs",
              what);
        else
          cf_check_assert_frame (&out, buf, want[i], what);
        g_free (what);
        g_bytes_unref (got);
      }
      gst_buffer_unref (buf);
    }
    gst_harness_teardown (h);
  }
  for (i = 0; i < n_frames; i++) {
    g_bytes_unref (want[i]);
    gst_buffer_unref (frames[i]);
  }
  g_free (want);
  g_free (frames);
}

#endif /* CF_CHECK_H */

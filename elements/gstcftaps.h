/* Filter taps as users write them, shared by cudastencil and cudaaudiofir:
 * a comma- or space-separated list of numbers ("1,2,1", "1 2 1"), or the
 * same list in GstValueArray's serialized form ("<1, 2, 1>", "<1.0,-2,1e-3>"),
 * which is what gst-launch lines and gst_util_set_object_arg () pass
 * through unchanged to a string property.
 */
#ifndef __GST_CF_TAPS_H__
#define __GST_CF_TAPS_H__

#include <glib.h>

G_BEGIN_DECLS

#define GST_CF_TAPS_ERROR (gst_cf_taps_error_quark ())
GQuark gst_cf_taps_error_quark (void);

/* Parses @s into a new array of doubles (at most @max_taps of them, each
 * finite; an empty or NULL @s gives an empty array, which callers refuse
 * where they need taps). Returns NULL with @error set (GST_CF_TAPS_ERROR,
 * code 0) naming what is wrong. */
GArray *gst_cf_taps_parse (const gchar * s, guint max_taps, GError ** error);

/* The taps as a string that gst_cf_taps_parse () reads back to the same
 * doubles ("<1, 2, 1>"); "" for none. Free with g_free (). */
gchar *gst_cf_taps_to_string (const gdouble * taps, guint n_taps);

G_END_DECLS
#endif /* __GST_CF_TAPS_H__ */

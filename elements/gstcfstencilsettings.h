/* The settings of a 1D stencil as users give them, shared by cudastencil
 * (its properties are these fields) and cudafilters-batch's --stencil (its
 * KEY=VALUE pairs set them by the properties' names): the names of the
 * directions, presets and borders, the limits and defaults, and how the
 * settings become a stencil plan, with the reason when they make none.
 * Both front ends thus take and refuse the same settings for the same
 * reasons. GLib only, no GStreamer: the batch tool compiles it too.
 */
#ifndef __GST_CF_STENCIL_SETTINGS_H__
#define __GST_CF_STENCIL_SETTINGS_H__

#include <glib.h>

#include "stencil.h"

G_BEGIN_DECLS

/* the preset "custom": the taps setting */
#define GST_CF_STENCIL_PRESET_CUSTOM CF_STENCIL_PRESET_COUNT

#define GST_CF_STENCIL_DEFAULT_DIRECTION CF_STENCIL_BOTH
#define GST_CF_STENCIL_DEFAULT_PRESET CF_STENCIL_PRESET_GAUSSIAN
#define GST_CF_STENCIL_DEFAULT_RADIUS 0
#define GST_CF_STENCIL_DEFAULT_SIGMA 1.0
#define GST_CF_STENCIL_DEFAULT_AMOUNT 1.0
#define GST_CF_STENCIL_DEFAULT_NORMALIZE TRUE
#define GST_CF_STENCIL_DEFAULT_BORDER CF_STENCIL_MIRROR
#define GST_CF_STENCIL_DEFAULT_FILTER_ALPHA FALSE

/* radius 0 .. CF_STENCIL_MAX_RADIUS, 0 being the preset's own */
#define GST_CF_STENCIL_MIN_SIGMA 0.01
#define GST_CF_STENCIL_MAX_SIGMA 64.0
#define GST_CF_STENCIL_MIN_AMOUNT 0.0
#define GST_CF_STENCIL_MAX_AMOUNT 20.0

#define GST_CF_STENCIL_SETTINGS_ERROR (gst_cf_stencil_settings_error_quark ())
GQuark gst_cf_stencil_settings_error_quark (void);

/* One value of a named setting: the element's enum values are made from
 * these, and the batch tool looks its words up in them. */
typedef struct
{
  gint value;
  const gchar *nick;            /* what users write: "gaussian" */
  const gchar *description;
} GstCfStencilName;

/* Each ends with a NULL nick. */
extern const GstCfStencilName
    gst_cf_stencil_direction_names[CF_STENCIL_DIRECTION_COUNT + 1];
extern const GstCfStencilName
    gst_cf_stencil_preset_names[CF_STENCIL_PRESET_COUNT + 2];
extern const GstCfStencilName
    gst_cf_stencil_border_names[CF_STENCIL_BORDER_COUNT + 1];

/* The value of @nick in @names (ASCII case ignored), or -1. */
gint gst_cf_stencil_name_lookup (const GstCfStencilName * names,
    const gchar * nick);

/* The nicks of @names joined by @separator ("box, gaussian, ..."). Free
 * with g_free (). */
gchar *gst_cf_stencil_names_join (const GstCfStencilName * names,
    const gchar * separator);

typedef struct
{
  CfStencilDirection direction;
  gint preset;                  /* CfStencilPreset or ..._PRESET_CUSTOM */
  gint radius;
  gdouble sigma, amount;
  gchar *taps;                  /* as written (gstcftaps.h); NULL: none */
  gboolean normalize;           /* the custom taps only */
  CfStencilBorder border;
  gchar *border_value;          /* as written; border constant only */
  gboolean filter_alpha;
} GstCfStencilSettings;

/* The defaults into @s (which holds nothing yet). */
void gst_cf_stencil_settings_init (GstCfStencilSettings * s);
/* Frees what @s holds; @s is then to be initialised again. */
void gst_cf_stencil_settings_clear (GstCfStencilSettings * s);

/* Sets the taps as written. As the property does, given taps (not empty)
 * select preset custom: returns TRUE when that changed the preset. */
gboolean gst_cf_stencil_settings_set_taps (GstCfStencilSettings * s,
    const gchar * taps);
void gst_cf_stencil_settings_set_border_value (GstCfStencilSettings * s,
    const gchar * border_value);

/* Sets the setting @key, one of cudastencil's property names ("direction",
 * "preset", "radius", "sigma", "amount", "taps", "normalize", "border",
 * "border-value", "filter-alpha"), from the text @value, taking what the
 * property takes: a name of the tables above, a number within the
 * property's range, a boolean (true, false, yes, no, 1, 0). Returns FALSE
 * with @error naming why when @key is no setting or @value no value of it
 * (then @s is unchanged). Lists (taps, border-value) are checked when the
 * plan is made, as the element does. */
gboolean gst_cf_stencil_settings_set (GstCfStencilSettings * s,
    const gchar * key, const gchar * value, GError ** error);

/* Makes the plan @s describes for @width x @height pictures of @format.
 * Returns FALSE with @error naming why when @s makes no filter (taps that
 * are no list or an even number of them, a sum of 0 or that float64
 * cannot divide by with normalize, a gain above CF_STENCIL_MAX_GAIN,
 * border values that are no samples of @format, ...), @plan then
 * cleared. */
gboolean gst_cf_stencil_settings_plan (const GstCfStencilSettings * s,
    CfFormat format, gint width, gint height, CfStencilPlan * plan,
    GError ** error);

G_END_DECLS
#endif /* __GST_CF_STENCIL_SETTINGS_H__ */

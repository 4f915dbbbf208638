/* The settings of a 1D stencil, shared by cudastencil and cudafilters-batch
 * (see .h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfstencilsettings.h"
#include "gstcftaps.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* in the kernel's enum orders */
const GstCfStencilName
    gst_cf_stencil_direction_names[CF_STENCIL_DIRECTION_COUNT + 1] = {
  {CF_STENCIL_HORIZONTAL, "horizontal", "Along the rows"},
  {CF_STENCIL_VERTICAL, "vertical", "Along the columns"},
  {CF_STENCIL_BOTH, "both", "Rows, then columns (separable 2D)"},
  {0, NULL, NULL},
};

const GstCfStencilName
    gst_cf_stencil_preset_names[CF_STENCIL_PRESET_COUNT + 2] = {
  {GST_CF_STENCIL_PRESET_CUSTOM, "custom", "The taps property"},
  {CF_STENCIL_PRESET_BOX, "box", "Box blur: equal taps"},
  {CF_STENCIL_PRESET_GAUSSIAN, "gaussian", "Gaussian blur (sigma)"},
  {CF_STENCIL_PRESET_SHARPEN, "sharpen", "Unsharp mask (amount, sigma)"},
  {CF_STENCIL_PRESET_DERIVATIVE, "derivative",
      "Central difference (in[i+1] - in[i-1]) / 2"},
  {CF_STENCIL_PRESET_LAPLACIAN, "laplacian", "Second difference [1, -2, 1]"},
  {0, NULL, NULL},
};

const GstCfStencilName
    gst_cf_stencil_border_names[CF_STENCIL_BORDER_COUNT + 1] = {
  {CF_STENCIL_CLAMP, "clamp", "Repeat the edge sample"},
  {CF_STENCIL_MIRROR, "mirror",
      "Reflect about the edge sample (dcb|abcd|cba)"},
  {CF_STENCIL_WRAP, "wrap", "Tile the picture"},
  {CF_STENCIL_CONSTANT, "constant", "The border-value"},
  {0, NULL, NULL},
};

GQuark
gst_cf_stencil_settings_error_quark (void)
{
  return g_quark_from_static_string ("gst-cf-stencil-settings-error-quark");
}

gint
gst_cf_stencil_name_lookup (const GstCfStencilName * names,
    const gchar * nick)
{
  for (; nick && names->nick; names++)
    if (g_ascii_strcasecmp (names->nick, nick) == 0)
      return names->value;
  return -1;
}

gchar *
gst_cf_stencil_names_join (const GstCfStencilName * names,
    const gchar * separator)
{
  GString *s = g_string_new (NULL);

  for (; names->nick; names++)
    g_string_append_printf (s, "%s%s", s->len ? separator : "", names->nick);
  return g_string_free (s, FALSE);
}

void
gst_cf_stencil_settings_init (GstCfStencilSettings * s)
{
  memset (s, 0, sizeof (*s));
  s->direction = GST_CF_STENCIL_DEFAULT_DIRECTION;
  s->preset = GST_CF_STENCIL_DEFAULT_PRESET;
  s->radius = GST_CF_STENCIL_DEFAULT_RADIUS;
  s->sigma = GST_CF_STENCIL_DEFAULT_SIGMA;
  s->amount = GST_CF_STENCIL_DEFAULT_AMOUNT;
  s->normalize = GST_CF_STENCIL_DEFAULT_NORMALIZE;
  s->border = GST_CF_STENCIL_DEFAULT_BORDER;
  s->filter_alpha = GST_CF_STENCIL_DEFAULT_FILTER_ALPHA;
}

void
gst_cf_stencil_settings_clear (GstCfStencilSettings * s)
{
  g_clear_pointer (&s->taps, g_free);
  g_clear_pointer (&s->border_value, g_free);
}

gboolean
gst_cf_stencil_settings_set_taps (GstCfStencilSettings * s,
    const gchar * taps)
{
  /* given taps are meant to be used */
  const gboolean custom = taps && taps[0] &&
      s->preset != GST_CF_STENCIL_PRESET_CUSTOM;

  g_free (s->taps);
  s->taps = g_strdup (taps);
  if (custom)
    s->preset = GST_CF_STENCIL_PRESET_CUSTOM;
  return custom;
}

void
gst_cf_stencil_settings_set_border_value (GstCfStencilSettings * s,
    const gchar * border_value)
{
  g_free (s->border_value);
  s->border_value = g_strdup (border_value);
}

/* ---- one setting from text: what the property takes ---- */

static gboolean
parse_name (const GstCfStencilName * names, const gchar * key,
    const gchar * value, gint * out, GError ** error)
{
  const gint v = gst_cf_stencil_name_lookup (names, value);
  gchar *all;

  if (v >= 0) {
    *out = v;
    return TRUE;
  }
  all = gst_cf_stencil_names_join (names, ", ");
  g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0,
      "%s=%s: not one of %s", key, value, all);
  g_free (all);
  return FALSE;
}

static gboolean
parse_int (const gchar * key, const gchar * value, gint lo, gint hi,
    gint * out, GError ** error)
{
  gchar *end;
  gint64 v;

  errno = 0;
  v = g_ascii_strtoll (value, &end, 10);
  if (!*value || g_ascii_isspace (*value) || *end || errno || v < lo
      || v > hi) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0,
        "%s=%s: not an integer in %d .. %d", key, value, lo, hi);
    return FALSE;
  }
  *out = (gint) v;
  return TRUE;
}

static gboolean
parse_double (const gchar * key, const gchar * value, gdouble lo,
    gdouble hi, gdouble * out, GError ** error)
{
  gchar *end;
  gdouble v = g_ascii_strtod (value, &end);

  /* NaN fails the range too */
  if (!*value || g_ascii_isspace (*value) || *end || !(v >= lo && v <= hi)) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0,
        "%s=%s: not a number in %g .. %g", key, value, lo, hi);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

static gboolean
parse_boolean (const gchar * key, const gchar * value, gboolean * out,
    GError ** error)
{
  static const gchar *const yes[] = { "true", "yes", "1" };
  static const gchar *const no[] = { "false", "no", "0" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (yes); i++) {
    if (g_ascii_strcasecmp (value, yes[i]) == 0) {
      *out = TRUE;
      return TRUE;
    }
    if (g_ascii_strcasecmp (value, no[i]) == 0) {
      *out = FALSE;
      return TRUE;
    }
  }
  g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0,
      "%s=%s: not true, false, yes, no, 1 or 0", key, value);
  return FALSE;
}

gboolean
gst_cf_stencil_settings_set (GstCfStencilSettings * s, const gchar * key,
    const gchar * value, GError ** error)
{
  gint named;

  if (!strcmp (key, "direction")) {
    if (!parse_name (gst_cf_stencil_direction_names, key, value, &named,
            error))
      return FALSE;
    s->direction = named;
  } else if (!strcmp (key, "preset")) {
    return parse_name (gst_cf_stencil_preset_names, key, value, &s->preset,
        error);
  } else if (!strcmp (key, "radius")) {
    return parse_int (key, value, 0, CF_STENCIL_MAX_RADIUS, &s->radius,
        error);
  } else if (!strcmp (key, "sigma")) {
    return parse_double (key, value, GST_CF_STENCIL_MIN_SIGMA,
        GST_CF_STENCIL_MAX_SIGMA, &s->sigma, error);
  } else if (!strcmp (key, "amount")) {
    return parse_double (key, value, GST_CF_STENCIL_MIN_AMOUNT,
        GST_CF_STENCIL_MAX_AMOUNT, &s->amount, error);
  } else if (!strcmp (key, "taps")) {
    gst_cf_stencil_settings_set_taps (s, value);
  } else if (!strcmp (key, "normalize")) {
    return parse_boolean (key, value, &s->normalize, error);
  } else if (!strcmp (key, "border")) {
    if (!parse_name (gst_cf_stencil_border_names, key, value, &named, error))
      return FALSE;
    s->border = named;
  } else if (!strcmp (key, "border-value")) {
    gst_cf_stencil_settings_set_border_value (s, value);
  } else if (!strcmp (key, "filter-alpha")) {
    return parse_boolean (key, value, &s->filter_alpha, error);
  } else {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0,
        "%s: no such setting", key);
    return FALSE;
  }
  return TRUE;
}

/* ---- the plan ---- */

/* The taps of @s into @taps and @axis (radius, normalize). */
static gboolean
taps_of (const GstCfStencilSettings * s, gdouble * taps,
    CfStencilTaps * axis, GError ** error)
{
  GArray *list;
  GError *why = NULL;

  if (s->preset != GST_CF_STENCIL_PRESET_CUSTOM) {
    if (cf_stencil_preset_taps (s->preset, s->radius, s->sigma, s->amount,
            taps, &axis->radius, &axis->normalize) == 0)
      return TRUE;
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0,
        "preset %d: radius %d, sigma %g and amount %g make no taps",
        s->preset, s->radius, s->sigma, s->amount);
    return FALSE;
  }
  list = gst_cf_taps_parse (s->taps, CF_STENCIL_MAX_TAPS, &why);
  if (!list) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "taps %s",
        why->message);
    g_error_free (why);
    return FALSE;
  }
  if (list->len % 2 == 0) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "%u taps: preset "
        "custom needs an odd number (2 radius + 1) of taps", list->len);
    g_array_unref (list);
    return FALSE;
  }
  memcpy (taps, list->data, list->len * sizeof (gdouble));
  axis->radius = list->len / 2;
  axis->normalize = s->normalize;
  g_array_unref (list);
  return TRUE;
}

/* Why cf_stencil_taps_check () refused @axis, in words. */
static void
set_taps_error (GError ** error, CfStencilTapsStatus status,
    const CfStencilTaps * axis)
{
  const gint n = 2 * axis->radius + 1;
  gdouble sum = 0, abs_sum = 0;
  gint t;

  for (t = 0; t < n && axis->taps; t++) {
    sum += axis->taps[t];
    abs_sum += fabs (axis->taps[t]);
  }
  switch (status) {
    case CF_STENCIL_TAPS_SUM_ZERO:
      g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "the taps sum "
          "to 0, and normalize divides by their sum (normalize=false "
          "takes them as they are)");
      break;
    case CF_STENCIL_TAPS_SUM_OVERFLOW:
      g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "the sum of the "
          "taps overflows a double (it is infinite), and normalize divides "
          "by it: scale the taps down");
      break;
    case CF_STENCIL_TAPS_SUM_SUBNORMAL:
      g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "the sum of the "
          "taps (%g) underflows the normal doubles (below %g), where the "
          "taps have lost the digits that normalize divides into weights: "
          "scale them up", sum, DBL_MIN);
      break;
    case CF_STENCIL_TAPS_GAIN:
      g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "the gain of the "
          "taps (the sum of the |weights|%s) is %g, above %d",
          axis->normalize ? ", after normalize" : "",
          axis->normalize ? abs_sum / fabs (sum) : abs_sum,
          CF_STENCIL_MAX_GAIN);
      break;
    default:
      g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "radius %d: the "
          "taps are not %d finite numbers", axis->radius, n);
      break;
  }
}

/* CONSTANT's border values of @s into @values, for samples of @info. */
static gboolean
border_values_of (const GstCfStencilSettings * s, const CfFormatInfo * info,
    uint16_t * values, GError ** error)
{
  /* values, not samples: 1023 for P010's 10 bits */
  const gint max = (gint) CF_FORMAT_MAX_VALUE (info);
  GError *why = NULL;
  GArray *list = gst_cf_taps_parse (s->border_value, CF_STENCIL_MAX_TAPS,
      &why);
  guint i;

  if (!list) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "border-value %s",
        why->message);
    g_error_free (why);
    return FALSE;
  }
  if (list->len > CF_MAX_CHANNELS) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "border-value has "
        "%u values, at most %d", list->len, CF_MAX_CHANNELS);
    g_array_unref (list);
    return FALSE;
  }
  for (i = 0; i < CF_MAX_CHANNELS; i++) {
    /* a short list: its last value for the channels after it */
    const gdouble v = list->len == 0 ? 0 : g_array_index (list, gdouble,
        MIN (i, list->len - 1));

    if (v < 0 || v > max || v != floor (v)) {
      g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "border-value "
          "%g is not a value of %s (an integer 0 .. %d)", v,
          info->name, max);
      g_array_unref (list);
      return FALSE;
    }
    values[i] = (uint16_t) v;
  }
  g_array_unref (list);
  return TRUE;
}

gboolean
gst_cf_stencil_settings_plan (const GstCfStencilSettings * s,
    CfFormat format, gint width, gint height, CfStencilPlan * plan,
    GError ** error)
{
  const CfFormatInfo *info = cf_format_info (format);
  gdouble taps[CF_STENCIL_MAX_TAPS];
  CfStencilParams params = { 0, };
  CfStencilTaps axis = { 0, };
  CfStencilTapsStatus status;

  cf_stencil_plan_clear (plan);
  if (!info) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "format %d has "
        "no stencil", format);
    return FALSE;
  }
  if (!taps_of (s, taps, &axis, error))
    return FALSE;
  axis.taps = taps;
  status = cf_stencil_taps_check (&axis, format);
  if (status != CF_STENCIL_TAPS_OK) {
    set_taps_error (error, status, &axis);
    return FALSE;
  }
  /* border-value counts only for border constant */
  if (s->border == CF_STENCIL_CONSTANT && !border_values_of (s, info,
          params.border_value, error))
    return FALSE;
  params.direction = s->direction;
  params.x = params.y = axis;
  params.border = s->border;
  params.filter_alpha = s->filter_alpha;
  if (cf_stencil_plan_init (plan, format, width, height, &params) != 0) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "no stencil for "
        "%s pictures of %dx%d", info->name, width, height);
    return FALSE;
  }
  return TRUE;
}

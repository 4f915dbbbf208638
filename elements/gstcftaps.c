/* Filter taps as users write them (see .h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcftaps.h"

#include <errno.h>
#include <math.h>
#include <string.h>

GQuark
gst_cf_taps_error_quark (void)
{
  return g_quark_from_static_string ("gst-cf-taps-error-quark");
}

GArray *
gst_cf_taps_parse (const gchar * s, guint max_taps, GError ** error)
{
  GArray *taps = g_array_new (FALSE, FALSE, sizeof (gdouble));
  const gchar *p = s ? s : "";
  gboolean bracketed;

  while (g_ascii_isspace (*p))
    p++;
  bracketed = *p == '<';
  if (bracketed)
    p++;
  for (;;) {
    gchar *end;
    gdouble v;

    while (g_ascii_isspace (*p) || *p == ',')
      p++;
    if (*p == '\0' || (bracketed && *p == '>'))
      break;
    errno = 0;
    v = g_ascii_strtod (p, &end);
    if (end == p) {
      g_set_error (error, GST_CF_TAPS_ERROR, 0,
          "\"%s\": \"%.16s\" is not a number", s, p);
      goto fail;
    }
    if (!isfinite (v)) {
      /* "1e400" reads as infinity: say why it is not "inf" */
      g_set_error (error, GST_CF_TAPS_ERROR, 0,
          "\"%s\": tap %u is not finite%s", s, taps->len,
          errno == ERANGE ? " (it overflows a double)" : "");
      goto fail;
    }
    if (taps->len == max_taps) {
      g_set_error (error, GST_CF_TAPS_ERROR, 0,
          "\"%s\": more than %u taps", s, max_taps);
      goto fail;
    }
    g_array_append_val (taps, v);
    p = end;
    if (*p != '\0' && *p != ',' && *p != '>' && !g_ascii_isspace (*p)) {
      g_set_error (error, GST_CF_TAPS_ERROR, 0,
          "\"%s\": unexpected \"%.16s\" after tap %u", s, p, taps->len);
      goto fail;
    }
  }
  if (bracketed) {
    if (*p != '>') {
      g_set_error (error, GST_CF_TAPS_ERROR, 0, "\"%s\": no closing '>'", s);
      goto fail;
    }
    p++;
    while (g_ascii_isspace (*p))
      p++;
    if (*p != '\0') {
      g_set_error (error, GST_CF_TAPS_ERROR, 0,
          "\"%s\": unexpected \"%.16s\" after '>'", s, p);
      goto fail;
    }
  }
  return taps;

fail:
  g_array_free (taps, TRUE);
  return NULL;
}

gchar *
gst_cf_taps_to_string (const gdouble * taps, guint n_taps)
{
  GString *s = g_string_new (NULL);
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint i;

  if (n_taps == 0)
    return g_string_free (s, FALSE);
  g_string_append_c (s, '<');
  for (i = 0; i < n_taps; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "",
        g_ascii_dtostr (buf, sizeof (buf), taps[i]));
  g_string_append_c (s, '>');
  return g_string_free (s, FALSE);
}

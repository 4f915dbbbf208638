/* The drawing rules of the overlay family that the CPU reference
 * (cpu/overlay.c) and the CUDA kernel (overlay.cu) share: the text lines,
 * the histogram's bars and what a pixel of the panel shows. Included by
 * both, once each; not a public header. On the device the statistics are
 * read through the read-only cache (ld ()).
 */
#ifndef CF_OVERLAY_SHARED_H
#define CF_OVERLAY_SHARED_H

#include "overlay.h"

#ifdef __CUDACC__
#define CF_OVL_FN static __device__ __forceinline__
#define CF_OVL_LD(p) ld (p)
#else
#define CF_OVL_FN static inline
#define CF_OVL_LD(p) (*(p))
#endif

/* @a / @b (@b > 0). On the device, below 2^53 both are exact doubles and
 * the correctly rounded quotient is the true one's floor k or k + 1
 * (rounding is monotonic and k, k + 1 are doubles): a few floating-point
 * instructions and one correction instead of the 64-bit integer division
 * routine, on a serial path of every block. */
CF_OVL_FN uint64_t
quotient (uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
  if (a < (1ull << 53) && b < (1ull << 53)) {
    const uint64_t q = (uint64_t) ((double) a / (double) b);

    return q * b > a ? q - 1 : q;
  }
#endif
  return a / b;
}

/* ---- text ---- */

/* The decimal digits of @v at @buf[@n]. Digits are written from the last,
 * with no scratch array, and in 32-bit arithmetic where @v fits (the same
 * digits): on the GPU this is one thread's serial work, and a scratch array
 * would live in local memory, 64-bit division by 10 be several times the
 * instructions. */
CF_OVL_FN int
put_uint (char *buf, int n, uint64_t v)
{
  int len = 1, i;

  if (v <= UINT32_MAX) {
    uint32_t w = (uint32_t) v, t;

    for (t = w / 10; t; t /= 10)
      len++;
    for (i = n + len - 1; i >= n; i--) {
      buf[i] = (char) ('0' + w % 10);
      w /= 10;
    }
  } else {
    uint64_t t;

    for (t = v / 10; t; t /= 10)
      len++;
    for (i = n + len - 1; i >= n; i--) {
      buf[i] = (char) ('0' + v % 10);
      v /= 10;
    }
  }
  return n + len;
}

CF_OVL_FN int
put_str (char *buf, int n, const char *s)
{
  while (*s)
    buf[n++] = *s++;
  return n;
}

/* tenths as "I.F" */
CF_OVL_FN int
put_tenths (char *buf, int n, uint64_t v)
{
  n = put_uint (buf, n, v / 10);
  buf[n++] = '.';
  buf[n++] = (char) ('0' + v % 10);
  return n;
}

/* What a text line shows of the statistics: a kernel loads it early, so
 * that the load's latency overlaps other work, and formats it later. */
typedef struct {
  uint64_t count, sum;
  uint32_t min, max;
} CfOvlLineStats;

CF_OVL_FN void
text_line_stats (const CfOverlayPlan * plan, const CfStats * stats, int line,
    CfOvlLineStats * ls)
{
  if (line == plan->text_lines - 1) {
    ls->count = ls->sum = 0;
    ls->min = ls->max = 0;
  } else {
    ls->count = CF_OVL_LD (&stats->count[line]);
    ls->sum = CF_OVL_LD (&stats->sum[line]);
    ls->min = CF_OVL_LD (&stats->min[line]);
    ls->max = CF_OVL_LD (&stats->max[line]);
  }
}

/* Line @line (valid) from @ls, text_line_stats () of it. */
CF_OVL_FN int
text_line_format (const CfOverlayPlan * plan, const CfOvlLineStats * ls,
    int fps_x10, int line, char *buf)
{
  int n = 0;

  if (line == plan->text_lines - 1) {
    n = put_str (buf, n, "FPS ");
    if (fps_x10 < 0)
      buf[n++] = '-';
    else
      n = put_tenths (buf, n, (uint64_t) fps_x10);
  } else {
    buf[n++] = plan->letter[line];
    if (ls->count == 0) {
      n = put_str (buf, n, " -");
    } else {
      n = put_str (buf, n, " MIN ");
      n = put_uint (buf, n, ls->min);
      n = put_str (buf, n, " MAX ");
      n = put_uint (buf, n, ls->max);
      n = put_str (buf, n, " MEAN ");
      n = put_tenths (buf, n, quotient (ls->sum * 10 + ls->count / 2,
              ls->count));
    }
  }
  buf[n] = '\0';
  return n;
}

/* cf_overlay_text_line () of a valid line */
CF_OVL_FN int
cf_ovl_text_line (const CfOverlayPlan * plan, const CfStats * stats,
    int fps_x10, int line, char *buf)
{
  CfOvlLineStats ls;

  text_line_stats (plan, stats, line, &ls);
  return text_line_format (plan, &ls, fps_x10, line, buf);
}

/* The glyph pixels of line @line of @text in font pixel column @tc
 * (CfOvlColumn.text: character tc / CF_OVERLAY_CELL_W, glyph column
 * tc % CF_OVERLAY_CELL_W): bit gy set where glyph row gy is lit. */
CF_OVL_FN uint32_t
line_column (const CfOverlayPlan * plan,
    char (*text)[CF_OVERLAY_LINE_CHARS + 1], const int *text_len, int line,
    int tc)
{
  const int ci = tc / CF_OVERLAY_CELL_W, gx = tc % CF_OVERLAY_CELL_W;
  uint32_t bits = 0;
  int ch, gy;

  if (ci >= text_len[line])
    return 0;
  ch = (unsigned char) text[line][ci];
  ch = ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch;
  ch -= CF_OVERLAY_FIRST_CHAR;
  if (ch < 0 || ch >= CF_OVERLAY_GLYPHS)
    return 0;
  for (gy = 0; gy < CF_OVERLAY_GLYPH_H; gy++)
    bits |= (uint32_t) (plan->font[ch][gy] >> (CF_OVERLAY_GLYPH_W - 1 - gx)
        & 1) << gy;
  return bits;
}

/* Every line's line_column (), line l's at bit l * CF_OVERLAY_CELL_H: bit
 * CfOvlRow.text of the word is the pixel of that row. */
CF_OVL_FN uint32_t
text_column (const CfOverlayPlan * plan,
    char (*text)[CF_OVERLAY_LINE_CHARS + 1], const int *text_len, int tc)
{
  uint32_t bits = 0;
  int line;

  for (line = 0; line < plan->text_lines; line++)
    bits |= line_column (plan, text, text_len, line, tc) <<
        (line * CF_OVERLAY_CELL_H);
  return bits;
}

/* ---- histogram ---- */

/* log2 (n + 1) with 4 fraction bits, linear between powers of two */
CF_OVL_FN uint32_t
log_level (uint64_t n)
{
  const uint64_t v = n + 1;
  uint32_t e = 0, f;

  /* e: the index of v's leading one (0 for v = 0) */
#ifdef __CUDA_ARCH__
  e = v ? 63 - __clzll ((long long) v) : 0;
#else
  while (e < 63 && v >> (e + 1))
    e++;
#endif
  f = (uint32_t) (e >= 4 ? v >> (e - 4) : v << (4 - e)) & 15;
  return 16 * e + f;
}

/* Value of bin @b of graph channel @c. */
CF_OVL_FN uint64_t
bin_value (const CfOverlayPlan * plan, const CfStats * stats, int c, int b)
{
  if (plan->luma_weighted)
    return (77 * (uint64_t) CF_OVL_LD (&stats->histogram[0][b]) +
        150 * (uint64_t) CF_OVL_LD (&stats->histogram[1][b]) +
        29 * (uint64_t) CF_OVL_LD (&stats->histogram[2][b]) + 128) >> 8;
  return CF_OVL_LD (&stats->histogram[c][b]);
}

CF_OVL_FN uint64_t
scaled (const CfOverlayPlan * plan, uint64_t v)
{
  return plan->log_scale ? log_level (v) : v;
}

/* Number of graph channels. */
CF_OVL_FN int
graph_channels (const CfOverlayPlan * plan)
{
  return plan->channels == CF_OVERLAY_CHANNELS_LUMA ? 1 : plan->n_colour;
}

/* The bins histogram column @col shows: returns the first, *@b1 the one
 * past the last (at least one bin). */
CF_OVL_FN int
column_bins (const CfOverlayPlan * plan, int col, int *b1)
{
  const int b0 = col * CF_STATS_BINS / plan->hist_width;

  *b1 = (col + 1) * CF_STATS_BINS / plan->hist_width;
  *b1 = *b1 > b0 ? *b1 : b0 + 1;
  return b0;
}

/* Height in rows (of @rows) of a bar whose largest bin is @v, @top its
 * channel's top (graph_tops () of the C reference). */
CF_OVL_FN int
bar_rows (const CfOverlayPlan * plan, uint64_t v, unsigned long long top,
    int rows)
{
  if (top == 0)
    return 0;
  return (int) quotient (scaled (plan, v) * (uint64_t) rows, top);
}

/* Rows of graph channel @c's bars: those of its band in _EACH (band c of n
 * holds rows h c / n .. h (c + 1) / n - 1), the graph's otherwise. */
CF_OVL_FN int
graph_rows (const CfOverlayPlan * plan, int c)
{
  const int h = plan->hist_height, n = plan->n_colour;

  return plan->channels == CF_OVERLAY_CHANNELS_EACH ?
      h * (c + 1) / n - h * c / n : h;
}

/* Height of graph channel @c's bar at histogram column @col (@top: the
 * channel's top): bar_rows () of the largest of the column's bins, of
 * graph_rows (). (The kernel puts the same pieces together from bins it
 * keeps in shared memory.) */
CF_OVL_FN int
column_bar (const CfOverlayPlan * plan, const CfStats * stats,
    unsigned long long top, int c, int col)
{
  int b1, b = column_bins (plan, col, &b1);
  uint64_t v = 0;

  for (; b < b1; b++) {
    const uint64_t x = bin_value (plan, stats, c, b);

    v = x > v ? x : v;
  }
  return bar_rows (plan, v, top, graph_rows (plan, c));
}

/* ---- a pixel ---- */

/* What a pixel of the panel shows depends on its column and its row
 * separately, then on the two together: a kernel works each part out once
 * per column and once per row, not once per pixel (ovl_index ()). */
typedef struct {
  int panel;                    /* in the panel's columns */
  int text;                     /* font pixel column in the text (character
                                 * ci * CF_OVERLAY_CELL_W + glyph column gx,
                                 * gx < CF_OVERLAY_GLYPH_W), or -1 */
  int hist;                     /* histogram column, or -1 */
} CfOvlColumn;

typedef struct {
  int panel;                    /* in the panel's rows */
  int text;                     /* font pixel row in the text (line *
                                 * CF_OVERLAY_CELL_H + glyph row gy, gy <
                                 * CF_OVERLAY_GLYPH_H, line < text_lines),
                                 * or -1 */
  int channels;                 /* histogram row: the graph channels whose
                                 * bars it shows (bit c: channel c; the
                                 * channel of its band in _EACH); 0 outside */
  int level;                    /* histogram row: rows under it in its band
                                 * (the graph): a bar of more lights it */
} CfOvlRow;

/* Luma column @x. @text: whether to work out the text column (only a row
 * with text needs it). */
CF_OVL_FN void
ovl_column (const CfOverlayPlan * plan, int x, int text, CfOvlColumn * col)
{
  col->panel = x >= plan->panel_x && x < plan->panel_x + plan->panel_width;
  col->text = -1;
  col->hist = -1;
  if (!col->panel)
    return;
  if (text && plan->text_lines && x >= plan->text_x) {
    const int c = (x - plan->text_x) / plan->scale;

    if (c % CF_OVERLAY_CELL_W < CF_OVERLAY_GLYPH_W)
      col->text = c;
  }
  if (x >= plan->hist_x && x < plan->hist_x + plan->hist_width)
    col->hist = x - plan->hist_x;
}

/* Luma row @y. */
CF_OVL_FN void
ovl_row (const CfOverlayPlan * plan, int y, CfOvlRow * row)
{
  row->panel = y >= plan->panel_y && y < plan->panel_y + plan->panel_height;
  row->text = -1;
  row->channels = 0;
  row->level = 0;
  if (!row->panel)
    return;
  if (plan->text_lines && y >= plan->text_y) {
    const int r = (y - plan->text_y) / plan->scale;

    if (r / CF_OVERLAY_CELL_H < plan->text_lines
        && r % CF_OVERLAY_CELL_H < CF_OVERLAY_GLYPH_H)
      row->text = r;
  }
  if (y >= plan->hist_y && y < plan->hist_y + plan->hist_height) {
    const int r = y - plan->hist_y, h = plan->hist_height;

    if (plan->channels == CF_OVERLAY_CHANNELS_EACH) {
      const int n = plan->n_colour;
      int c;

      /* band c holds rows h c / n .. h (c + 1) / n - 1 */
      for (c = 0; c < n - 1 && r >= h * (c + 1) / n; c++);
      row->channels = 1 << c;
      row->level = h * (c + 1) / n - 1 - r;
    } else {
      row->channels = (1 << graph_channels (plan)) - 1;
      row->level = h - 1 - r;
    }
  }
}

/* What the pixel at @col and @row shows: a palette index, or -1 outside the
 * panel. Text covers bars, bars the background. What a caller has worked
 * out per column it passes, otherwise NULL: @glyphs, text_column () of the
 * column (else line_column () from @text, @text_len, the plan's lines);
 * @bars, column_bar () per graph channel, 0 for a channel with no graph
 * (else from @stats and @top, the channels' tops). Channels are visited
 * with constant indices so that a kernel's @bars stay in registers. */
CF_OVL_FN int
ovl_index (const CfOverlayPlan * plan, const CfStats * stats,
    const unsigned long long *top, const int *bars, const uint32_t * glyphs,
    char (*text)[CF_OVERLAY_LINE_CHARS + 1], const int *text_len,
    const CfOvlColumn * col, const CfOvlRow * row)
{
  if (!col->panel || !row->panel)
    return -1;
  if (row->text >= 0 && col->text >= 0) {
    const int line = row->text / CF_OVERLAY_CELL_H;
    const uint32_t bits = glyphs ? *glyphs :
        line_column (plan, text, text_len, line, col->text) <<
        (line * CF_OVERLAY_CELL_H);

    if (bits >> row->text & 1)
      return CF_OVERLAY_TEXT;
  }
  if (col->hist >= 0) {
    int mask = 0, c;

    /* a bar lights the row when it is taller than the row's level; only
     * the row's channels count (a bar not shown is not worked out) */
    for (c = 0; c < 3; c++) {
      const int bar = bars ? bars[c] : row->channels >> c & 1 ?
          column_bar (plan, stats, top[c], c, col->hist) : 0;

      mask |= (row->level < bar) << c;
    }
    mask &= row->channels;
    if (mask)
      return mask;
  }
  return CF_OVERLAY_BACKGROUND;
}

/* What luma pixel (@x, @y) of the panel shows: a palette index, or -1
 * outside the panel. @text: the plan's lines. */
CF_OVL_FN int
panel_index (const CfOverlayPlan * plan, const CfStats * stats,
    const unsigned long long *top, char (*text)[CF_OVERLAY_LINE_CHARS + 1],
    const int *text_len, int x, int y)
{
  CfOvlColumn col;
  CfOvlRow row;

  ovl_row (plan, y, &row);
  if (!row.panel)
    return -1;
  ovl_column (plan, x, row.text >= 0, &col);
  return ovl_index (plan, stats, top, NULL, NULL, text, text_len, &col,
      &row);
}

/* ---- where to draw (host code of both) ---- */

/* The samples of plane @p of @image that the overlay visits, as
 * [*x0, *x1) x [*y0, *y1) (empty when x1 <= x0 or y1 <= y0): those whose
 * top-left luma pixel is in the panel, or the whole first plane with zebra. */
static inline void
cf_ovl_plane_rect (const CfOverlayPlan * plan, const CfImage * image, int p,
    int *x0, int *y0, int *x1, int *y1)
{
  const CfPlaneLayout *l = &cf_format_info (image->format)->plane[p];
  const int sx = l->shift_x, sy = l->shift_y;
  const int pw = cf_plane_width (image->format, p, image->width);
  const int ph = cf_plane_height (image->format, p, image->height);

  if (plan->zebra && p == 0) {
    *x0 = *y0 = 0;
    *x1 = pw;
    *y1 = ph;
    return;
  }
  *x0 = (plan->panel_x + (1 << sx) - 1) >> sx;
  *y0 = (plan->panel_y + (1 << sy) - 1) >> sy;
  *x1 = (plan->panel_x + plan->panel_width + (1 << sx) - 1) >> sx;
  *y1 = (plan->panel_y + plan->panel_height + (1 << sy) - 1) >> sy;
  *x1 = *x1 < pw ? *x1 : pw;
  *y1 = *y1 < ph ? *y1 : ph;
}

#endif /* CF_OVERLAY_SHARED_H */

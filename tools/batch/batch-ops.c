/* cudafilters-batch: operation sizes and the CPU backend (batch-ops.h). */
#include <math.h>
#include <stdio.h>

#include "batch-ops.h"

void
batch_op_free (void *data)
{
  BatchOp *op = data;

  gst_cf_stencil_settings_clear (&op->stencil);
  g_free (op);
}

int
batch_stencil_plan (const BatchOp * op, const CfImage * src,
    CfStencilPlan * plan, char *err, size_t err_len)
{
  GError *error = NULL;

  if (gst_cf_stencil_settings_plan (&op->stencil, src->format, src->width,
          src->height, plan, &error))
    return 0;
  snprintf (err, err_len, "stencil: %s", error->message);
  g_error_free (error);
  return -1;
}

static int
clamp_side (double r)
{
  return r < 1 ? 1 : r > CF_MAX_SIDE ? CF_MAX_SIDE : (int) r;
}

void
batch_output_size (const BatchOp * op, int w, int h, int *ow, int *oh)
{
  switch (op->size_mode) {
    case SIZE_BOTH:
      *ow = op->width;
      *oh = op->height;
      return;
    case SIZE_WIDTH:
      *ow = op->width;
      *oh = clamp_side (round ((double) h * op->width / w));
      return;
    case SIZE_HEIGHT:
      *oh = op->height;
      *ow = clamp_side (round ((double) w * op->height / h));
      return;
    default:
      *ow = clamp_side (round (w * op->percent / 100.0));
      *oh = clamp_side (round (h * op->percent / 100.0));
      return;
  }
}

/* Replaces @img with the result of one resize or stencil. */
static int
filter_cpu (const BatchOp * op, int n_threads, CfPngImage * img, char *err,
    size_t err_len)
{
  CfPngImage out = { 0 };
  const CfImage *src = &img->image;
  int ow = src->width, oh = src->height, ok;

  if (op->kind == OP_RESIZE)
    batch_output_size (op, src->width, src->height, &ow, &oh);
  if (cf_png_image_alloc (&out, src->format, ow, oh) < 0) {
    snprintf (err, err_len, "out of memory for %dx%d", ow, oh);
    return -1;
  }
  if (op->kind == OP_RESIZE) {
    CfResizePlan plan;
    ok = cf_resize_plan_init (&plan, src->format, op->method, 1, src->width,
        src->height, ow, oh, 0, 0) == 0;
    ok = ok && cf_resize_cpu_threads (&plan, src, &out.image, n_threads) == 0;
    cf_resize_plan_clear (&plan);
  } else {
    CfStencilPlan plan;
    if (batch_stencil_plan (op, src, &plan, err, err_len) < 0) {
      cf_png_image_clear (&out);
      return -1;
    }
    ok = cf_stencil_cpu_threads (&plan, src, &out.image, n_threads) == 0;
    cf_stencil_plan_clear (&plan);
  }
  if (!ok) {
    cf_png_image_clear (&out);
    snprintf (err, err_len, "%s failed",
        op->kind == OP_RESIZE ? "resize" : "stencil");
    return -1;
  }
  /* the writer keeps the file's PNG type where the new pixels still fit */
  out.png_color_type = img->png_color_type;
  out.png_bit_depth = img->png_bit_depth;
  cf_png_image_clear (img);
  *img = out;
  return 0;
}

int
batch_run_cpu (BatchOp * const *ops, int n_ops, int n_threads,
    CfPngImage * img, BatchStats * stats, char *err, size_t err_len)
{
  for (int k = 0; k < n_ops; k++) {
    const BatchOp *op = ops[k];
    const CfImage *src = &img->image;

    if (op->kind != OP_STATS) {
      if (filter_cpu (op, n_threads, img, err, err_len) < 0)
        return -1;
      continue;
    }
    stats[op->stats_index].width = src->width;
    stats[op->stats_index].height = src->height;
    stats[op->stats_index].format = src->format;
    if (cf_stats_cpu_threads (src, &stats[op->stats_index].stats,
            n_threads) < 0) {
      snprintf (err, err_len, "statistics failed");
      return -1;
    }
  }
  return 0;
}

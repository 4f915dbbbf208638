/* cudafilters-batch: the operations applied to each picture, and the CPU
 * backend that applies them.
 *
 * The command line becomes a list of BatchOp, applied in order to every
 * file. The CPU backend (batch_run_cpu ()) and the CUDA backend
 * (batch-cuda.h) take the same list and give the same bytes: both call the
 * kernel library, whose CUDA kernels match their C references bit for bit.
 */
#ifndef CF_BATCH_OPS_H
#define CF_BATCH_OPS_H

#include "gstcfstencilsettings.h"
#include "png-io.h"
#include "resize.h"
#include "stats.h"
#include "stencil.h"

typedef enum
{
  OP_RESIZE,
  OP_STENCIL,
  OP_STATS
} BatchOpKind;

typedef enum
{
  SIZE_BOTH,                    /* WxH */
  SIZE_WIDTH,                   /* W: height keeps the aspect ratio */
  SIZE_HEIGHT,                  /* xH: width keeps the aspect ratio */
  SIZE_PERCENT                  /* N%: both sides scaled */
} BatchSizeMode;

typedef struct
{
  BatchOpKind kind;
  /* resize */
  BatchSizeMode size_mode;
  int width, height;
  double percent;
  CfResizeMethod method;
  /* stencil: cudastencil's settings, made into a plan per picture as the
   * element makes one per caps */
  GstCfStencilSettings stencil;
  /* stats: which --stats this is, 0-based */
  int stats_index;
} BatchOp;

/* The statistics of one --stats, with the picture they describe. */
typedef struct
{
  CfStats stats;
  int width, height;
  CfFormat format;
} BatchStats;

/* Frees @op (a BatchOp) and what it holds. */
void batch_op_free (void *op);

/* The size a resize op makes of a @w x @h picture. */
void batch_output_size (const BatchOp * op, int w, int h, int *ow, int *oh);

/* The stencil plan of @op for @src's size and format. Returns 0, or -1 with
 * the reason in @err (settings that make no filter for this format, such
 * as a border value beyond its samples). */
int batch_stencil_plan (const BatchOp * op, const CfImage * src,
    CfStencilPlan * plan, char *err, size_t err_len);

/* Applies @ops[0 .. @n_ops - 1] to @img on the CPU, each over @n_threads
 * threads (the kernels' _threads functions), replacing it with the result
 * (which keeps the PNG type hint of the input); --stats results go to
 * @stats[op->stats_index]. Returns 0, or -1 with a message in @err. */
int batch_run_cpu (BatchOp * const *ops, int n_ops, int n_threads,
    CfPngImage * img, BatchStats * stats, char *err, size_t err_len);

#endif /* CF_BATCH_OPS_H */

/* Per-frame statistics of the elements that compute them (see .h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfstatsslot.h"

void
gst_cf_stats_slot_free (GstCfBaseFilter * base, gpointer user, gboolean cuda)
{
  GstCfStatsSlot *s = user;

#ifdef HAVE_CUDA
  if (cuda) {
    cudaFreeHost (s->h_result);
    cudaFree (s->d_result);
    cudaFree (s->d_workspace);
    g_free (s);
    return;
  }
#endif
  g_free (s->h_result);
  g_free (s);
}

gboolean
gst_cf_stats_slot_alloc (GstCfBaseFilter * base, gboolean cuda, gpointer * user)
{
  GstCfStatsSlot *s = g_new0 (GstCfStatsSlot, 1);

  *user = s;
#ifdef HAVE_CUDA
  if (cuda) {
    /* the workspace is cleared on the legacy stream once; frames then run
     * on non-blocking streams, hence the synchronize */
    if (!GST_CF_CUDA_OK (base, cudaHostAlloc ((void **) &s->h_result,
                sizeof (CfStats), cudaHostAllocPortable)) ||
        !GST_CF_CUDA_OK (base, cudaMalloc ((void **) &s->d_result,
                sizeof (CfStats))) ||
        !GST_CF_CUDA_OK (base, cudaMalloc (&s->d_workspace,
                cf_stats_workspace_bytes ())) ||
        !GST_CF_CUDA_OK (base, cf_stats_workspace_init (s->d_workspace, 0)) ||
        !GST_CF_CUDA_OK (base, cudaStreamSynchronize (0)))
      return FALSE;
    return TRUE;
  }
#endif
  s->h_result = g_new0 (CfStats, 1);
  return TRUE;
}

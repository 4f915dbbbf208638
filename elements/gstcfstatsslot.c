/* Per-frame statistics of the elements that compute them (see .h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfstatsslot.h"

void
gst_cf_stats_slot_free (GstCfBaseFilter * base, gpointer user, gboolean cuda)
{
  GstCfStatsSlot *s = user;

  if (cuda) {
    cf_host_free (s->h_result);
    cf_device_free (s->d_result);
    cf_device_free (s->d_workspace);
  } else {
    g_free (s->h_result);
  }
  g_free (s);
}

/* The kernel's workspace, cleared once on the context's default stream;
 * frames then run on non-blocking streams, hence the wait. */
static CfDeviceError
workspace_new (void **d_workspace)
{
#ifdef HAVE_CUDA
  CfDeviceError err = cf_device_alloc (d_workspace,
      cf_stats_workspace_bytes ());

  if (err == CF_DEVICE_OK)
    err = cf_stats_workspace_init (*d_workspace, 0);
  if (err == CF_DEVICE_OK)
    err = cudaStreamSynchronize (0);
  return err;
#else
  return CF_DEVICE_NO_CUDA;
#endif
}

gboolean
gst_cf_stats_slot_alloc (GstCfBaseFilter * base, gboolean cuda, gpointer * user)
{
  GstCfStatsSlot *s = g_new0 (GstCfStatsSlot, 1);

  *user = s;
  if (!cuda) {
    s->h_result = g_new0 (CfStats, 1);
    return TRUE;
  }
  return GST_CF_OK (base, cf_host_alloc ((void **) &s->h_result,
          sizeof (CfStats))) &&
      GST_CF_OK (base, cf_device_alloc ((void **) &s->d_result,
          sizeof (CfStats))) && GST_CF_OK (base, workspace_new (&s->d_workspace));
}

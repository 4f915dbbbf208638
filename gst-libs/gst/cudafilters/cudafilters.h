/* gst-cudafilters statistics library: everything an application needs to
 * read what the cudastats element attaches to buffers.
 *
 *   #include <gst/cudafilters/cudafilters.h>
 *   pkg-config --cflags --libs gstreamer-cudafilters-1.0
 */
#ifndef __GST_CUDAFILTERS_H__
#define __GST_CUDAFILTERS_H__

#include <gst/cudafilters/cudafilters-prelude.h>
#include <gst/cudafilters/gstcfstatsmeta.h>

#endif /* __GST_CUDAFILTERS_H__ */

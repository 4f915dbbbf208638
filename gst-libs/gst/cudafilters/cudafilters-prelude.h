/* gst-cudafilters statistics library: what every public header includes.
 *
 * GST_CUDAFILTERS_API marks the library's exported functions (the library
 * is built with every other symbol hidden), as GST_VIDEO_API does for
 * libgstvideo. */
#ifndef __GST_CUDAFILTERS_PRELUDE_H__
#define __GST_CUDAFILTERS_PRELUDE_H__

#include <gst/gst.h>

#ifndef GST_CUDAFILTERS_API
# ifdef BUILDING_GST_CUDAFILTERS
#  define GST_CUDAFILTERS_API GST_API_EXPORT
# else
#  define GST_CUDAFILTERS_API GST_API_IMPORT
# endif
#endif

#endif /* __GST_CUDAFILTERS_PRELUDE_H__ */

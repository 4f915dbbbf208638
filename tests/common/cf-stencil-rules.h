/* The rules that cudastencil's properties and cudafilters-batch's
 * --stencil share (elements/gstcfstencilsettings.h), as rows both tests
 * check: /batch-cli/stencil-rules (tests/batch/test-batch-cli.c) passes
 * each as --stencil, the element's test_stencil_rules
 * (tests/check/elements/cudastencil.c) sets it as properties. @spec is in
 * --stencil's syntax; @cause is NULL when the settings make a filter, else
 * words the error must contain (the property that refuses a value, or the
 * reason). Checked against 16-bit samples. */
#ifndef CF_STENCIL_RULES_H
#define CF_STENCIL_RULES_H

static const struct
{
  const char *spec, *cause;
} cf_stencil_rules[] = {
  {"gaussian:sigma=2,border=wrap", NULL},
  {"gaussian:sigma=0.001", "sigma"},
  {"gaussian:sigma=65", "sigma"},
  {"sharpen:amount=20,sigma=0.5", NULL},
  {"sharpen:amount=21", "amount"},
  {"box:radius=0", NULL},
  {"box:radius=64,direction=vertical", NULL},
  {"box:radius=65", "radius"},
  {"blur", "preset"},
  {"box:direction=diagonal", "direction"},
  {"box:border=reflect", "border"},
  {"box:normalize=maybe", "normalize"},
  {"laplacian:filter-alpha=true,border=clamp", NULL},
  {"taps=1,2,1:direction=horizontal,normalize=false", NULL},
  {"taps=<1, 2, 1>", NULL},
  {"taps=1,2", "odd number"},
  {"taps=1,x,1", "not a number"},
  {"taps=1,-1,0", "sum to 0"},
  {"taps=1,-1,0:normalize=false", NULL},
  {"taps=1e308,1e308,1e308", "overflows"},
  {"taps=-1e308,-1e308,-1e308", "overflows"},
  {"taps=1e308,1e308,1e308:normalize=false", "gain"},
  {"taps=1e-323,1.4e-323,1e-323", "underflows"},
  {"taps=1e300,2e300,1e300", NULL},
  {"taps=100,0,0:normalize=false", "gain"},
  {"box:border=constant,border-value=16,128,128", NULL},
  {"box:border=constant,border-value=65535", NULL},
  {"box:border=constant,border-value=65536", "border-value"},
  {"box:border=constant,border-value=1,2,3,4,5", "border-value"},
  {"box:border=constant,border-value=1.5", "border-value"},
  {"box:border=wrap,border-value=65536", NULL},
};

#endif /* CF_STENCIL_RULES_H */

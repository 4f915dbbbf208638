#!/usr/bin/env python3
"""resize-fixed-sections.py RESIZE_CU OUTDIR: writes the parts of
kernels/resize.cu that test-resize-emulated.cpp runs on the host:
  fixed-halve.inc  the halve section (halve_kernel and its helpers),
  fixed-third.inc  the third section (third_kernel and its helpers, and
                   the direct kernel's weight_pair ()),
  fixed-host.inc   fixed_axis () .. third_ratio () (which planes they take),
with each vector store of the output (fixed_store ()'s two) wrapped in
checked_store<T> () and the launch functions (<<< >>>) left out. It fails
loudly when a marker it looks for is gone, so that a change to resize.cu's
layout breaks the build, not the test's meaning."""
import os, re, sys

src, out = sys.argv[1], sys.argv[2]
s = open(src).read()


def between(a, b):
    i = s.index(a)
    return s[i:s.index(b, i)]


def for_host(t):
    t, n = re.subn(r'\*\((uint[24]) \*\) d = ', r'*checked_store<\1> (d) = ', t)
    t = re.sub(r'/\* Launches [^\n]*\*/\ntemplate <[^>]*>\nvoid\nlaunch_\w+ \(.*?\n}\n\n',
               '', t, flags=re.S)
    if '<<<' in t:
        sys.exit('resize-fixed-sections.py: a launch is left in ' + t[:60])
    return t, n


mark = '/* ------------------------------------------------------------ %s */'
halve, n_halve = for_host(between(mark % 'halve', mark % 'third'))
# third_sums () packs its dp2a weights with the direct kernel's
# weight_pair () (dot2 (), in cuda-common.cuh, is PTX: the test has a stand-in)
pair = between('/* The int16 weights of a tap pair', '/* Adds the tap pair')
third, n_third = for_host(pair + between(mark % 'third', mark % 'fused'))
# both vector stores are in fixed_store () (the halve section), which
# third_kernel calls too
if n_halve != 2 or n_third != 0:
    sys.exit('resize-fixed-sections.py: expected 2 and 0 vector stores, found %d and %d'
             % (n_halve, n_third))
host = between('/* Whether every output ', "/* Chooses @t's kernel")
for name, text in (('fixed-halve.inc', halve), ('fixed-third.inc', third),
                   ('fixed-host.inc', host)):
    open(os.path.join(out, name), 'w').write(text)

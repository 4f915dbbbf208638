/* Clears the instruction-set macros that kernels/cpu/simd16.c defines
 * before each inclusion of simd16-loops.h, so that the next set can define
 * them. No include guard: included once per instruction set. */
#undef SIMD_NAME
#undef SIMD_LABEL
#undef V
#undef VBYTES
#undef LOAD
#undef STORE
#undef SET1
#undef ZERO
#undef MADD
#undef UNPLO
#undef UNPHI
#undef SRA
#undef PACKS
#undef PACKUS
#undef FIX

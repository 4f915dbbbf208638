/* The sizes (in w, in h, out w, out h) at which test-resize.c checks
 * cudaresize's kernels of fixed patterns on the GPU (/resize/cuda/halve,
 * /resize/cuda/third, /resize/cuda/two-thirds), which
 * test-resize-emulated.cpp also runs on the host. gpu_check_all () takes
 * size s at chroma siting s % 4. */
#ifndef CF_RESIZE_FIXED_SIZES_H
#define CF_RESIZE_FIXED_SIZES_H

/* exact 2x: rows ending inside a thread's 16 bytes or a warp, 1, 3 and 5
 * output rows */
static const int cf_halve_sizes[][4] = {
  {6, 6, 3, 3}, {8, 10, 4, 5}, {34, 14, 17, 7}, {64, 64, 32, 32},
  {130, 6, 65, 3}, {644, 484, 322, 242}, {1090, 40, 545, 20},
  /* the chroma planes of 4:2:0 odd sizes: 321 x 241 to 161 x 121, not 2x */
  {642, 482, 321, 241},
  /* 4-byte pixels: one thread's 4 rows; a row ending inside a thread's
   * second 16 bytes (8216 bytes) */
  {20, 8, 10, 4}, {2054, 14, 1027, 7},
};

/* exact 3x: at 0 and 4 (centred) 4:2:0 chroma planes of 99 x 75 to 33 x
 * 25 and 1635 x 30 to 545 x 10, rows of 2-byte pixels ending inside a
 * thread and a warp; rows of 1-byte pixels ending inside a thread's 24
 * bytes, one thread's 2 rows, odd row counts */
static const int cf_third_sizes[][4] = {
  {198, 150, 66, 50}, {12, 15, 4, 5}, {51, 21, 17, 7}, {96, 96, 32, 32},
  {3270, 60, 1090, 20}, {966, 726, 322, 242}, {195, 9, 65, 3},
  {9, 9, 3, 3},
};

/* exact 1.5x: at 0 and 4 (centred) 4:2:0 chroma planes of 201 x 150 to
 * 134 x 100 (rows of 2-byte pixels ending inside a thread) and 1635 x 30
 * to 1090 x 20; rows of 1-byte pixels ending inside a thread's 12 bytes */
static const int cf_two_thirds_sizes[][4] = {
  {402, 300, 268, 200}, {18, 15, 12, 10}, {51, 21, 34, 14},
  {96, 96, 64, 64}, {3270, 60, 2180, 40}, {966, 726, 644, 484},
  {195, 9, 130, 6}, {9, 9, 6, 6},
};

#endif /* CF_RESIZE_FIXED_SIZES_H */

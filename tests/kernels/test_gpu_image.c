/*
 * GPU resize kernel tests: ResizeBilinear, ResizeBilinearGrad, ResizeNearestNeighbor and
 * ResizeNearestNeighborGrad (kernels_image_gpu.c) against their CPU kernels on the same inputs
 * (gpu_compare.h), in half, float and double, with every flag combination (legacy,
 * align_corners, half_pixel_centers), on odd shapes that upsample one axis and downsample the
 * other, same-size, 1x1, single-pixel inputs and empty batches or channels.
 *
 * Both devices share the sampling arithmetic (device/resize_plan.h) and the gradients add in
 * the CPU's order, so every comparison demands equality (tol 0): forward values, gradient sums
 * in float and double, and the nearest gradient's half sums rounded at every step. Half runs
 * the half kernels on both devices (the inputs are fed as half). Bad input must fail on both
 * devices with the CPU kernel's code and text (the bad argument is fed, so no shape function
 * sees it before the kernel).
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_compare.c"

/* A fed tensor of uniform values in [lo, hi) of dt (half: rounded from float). */
static gc_arg fed_any(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi) {
  if (dt != TF_HALF) return gc_fed(dt, nd, dims, lo, hi);
  TF_Tensor *f = gc_rand(TF_FLOAT, nd, dims, lo, hi);
  int64_t n = TF_TensorElementCount(f);
  TF_Tensor *h = TF_AllocateTensor(TF_HALF, dims, nd, (size_t)n * sizeof(uint16_t));
  for (int64_t i = 0; i < n; i++)
    ((uint16_t *)TF_TensorData(h))[i] = tfc_float_to_half(((const float *)TF_TensorData(f))[i]);
  TF_DeleteTensor(f);
  return GC_FED(h);
}

/* A CPU constant of dt and shape, all zeros (an original image: only its shape and dtype count). */
static gc_arg zeros_const(TF_DataType dt, int nd, const int64_t *dims) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  size_t bytes = (size_t)n * TF_DataTypeSize(dt);
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, bytes);
  if (bytes) memset(TF_TensorData(t), 0, bytes);
  return GC_CONST(t);
}

/* A fed int32 vector (a bad size argument). */
static gc_arg fed_ints(const int32_t *v, int n) { return GC_FED(gc_ints(v, n)); }

static const TF_DataType kTypes[] = {TF_FLOAT, TF_DOUBLE, TF_HALF};
#define N_TYPES 3

/* {align_corners, half_pixel_centers}: TF allows all but both. */
static const int kFlags[3][2] = {{0, 0}, {1, 0}, {0, 1}};

/* Image shapes [b, h, w, c] and output sizes: up and down per axis, same size, 1x1 in and out,
 * and empty batches and channels. */
static const struct {
  int64_t in[4];
  int32_t size[2];
} kCases[] = {
    {{2, 5, 7, 3}, {11, 4}}, {{1, 9, 4, 2}, {3, 13}}, {{3, 6, 5, 1}, {6, 5}}, {{1, 1, 1, 2}, {4, 3}},
    {{2, 4, 3, 5}, {1, 1}},  {{0, 5, 7, 3}, {3, 2}},  {{2, 5, 7, 0}, {3, 2}}, {{1, 17, 31, 2}, {40, 9}},
};
#define N_CASES (sizeof kCases / sizeof kCases[0])

static gc_op resize_op(const char *type, int k) {
  return (gc_op){.type = type,
                 .attrs = {GC_BOOL("align_corners", kFlags[k][0]), GC_BOOL("half_pixel_centers", kFlags[k][1])}};
}

/* ---- forward ---- */

static void forward_matches_cpu(const char *type) {
  gc_need_gpu();
  for (int t = 0; t < N_TYPES; t++)
    for (size_t c = 0; c < N_CASES; c++)
      for (int k = 0; k < 3; k++) {
        gc_arg a[2] = {fed_any(kTypes[t], 4, kCases[c].in, -9, 9), gc_konst(kCases[c].size, 2)};
        char label[160];
        snprintf(label, sizeof label, "%s dtype %d [%lld,%lld,%lld,%lld] to %dx%d align %d half %d", type,
                 (int)kTypes[t], (long long)kCases[c].in[0], (long long)kCases[c].in[1], (long long)kCases[c].in[2],
                 (long long)kCases[c].in[3], kCases[c].size[0], kCases[c].size[1], kFlags[k][0], kFlags[k][1]);
        gc_op o = resize_op(type, k);
        gc_check(&o, a, 2, 0, label);
        gc_free_args(a, 2);
      }
}

static void resize_bilinear_matches_cpu_bit_for_bit(void) { forward_matches_cpu("ResizeBilinear"); }
static void resize_nearest_matches_cpu_bit_for_bit(void) { forward_matches_cpu("ResizeNearestNeighbor"); }

/* ---- gradients ---- */

static void resize_bilinear_grad_matches_cpu_bit_for_bit(void) {
  gc_need_gpu();
  for (int t = 0; t < N_TYPES; t++)
    for (size_t c = 0; c < N_CASES; c++)
      for (int k = 0; k < 3; k++) {
        const int64_t *in = kCases[c].in;
        int64_t g_dims[4] = {in[0], kCases[c].size[0], kCases[c].size[1], in[3]};
        gc_arg a[2] = {gc_fed(TF_FLOAT, 4, g_dims, -1, 1), zeros_const(kTypes[t], 4, in)};
        char label[160];
        snprintf(label, sizeof label, "ResizeBilinearGrad dtype %d to [%lld,%lld,%lld,%lld] from %dx%d align %d half %d",
                 (int)kTypes[t], (long long)in[0], (long long)in[1], (long long)in[2], (long long)in[3],
                 kCases[c].size[0], kCases[c].size[1], kFlags[k][0], kFlags[k][1]);
        gc_op o = resize_op("ResizeBilinearGrad", k);
        gc_check(&o, a, 2, 0, label);
        gc_free_args(a, 2);
      }
}

static void resize_nearest_grad_matches_cpu_bit_for_bit(void) {
  gc_need_gpu();
  for (int t = 0; t < N_TYPES; t++)
    for (size_t c = 0; c < N_CASES; c++)
      for (int k = 0; k < 3; k++) {
        /* grads of the resized shape into the original image's size. */
        const int64_t *in = kCases[c].in;
        int64_t g_dims[4] = {in[0], kCases[c].size[0], kCases[c].size[1], in[3]};
        int32_t orig[2] = {(int32_t)in[1], (int32_t)in[2]};
        gc_arg a[2] = {fed_any(kTypes[t], 4, g_dims, -1, 1), gc_konst(orig, 2)};
        char label[160];
        snprintf(label, sizeof label,
                 "ResizeNearestNeighborGrad dtype %d [%lld,%d,%d,%lld] to %dx%d align %d half %d", (int)kTypes[t],
                 (long long)in[0], kCases[c].size[0], kCases[c].size[1], (long long)in[3], orig[0], orig[1],
                 kFlags[k][0], kFlags[k][1]);
        gc_op o = resize_op("ResizeNearestNeighborGrad", k);
        gc_check(&o, a, 2, 0, label);
        gc_free_args(a, 2);
      }
  /* Empty grads into a non-empty image: zeros on both devices. */
  static const int32_t to[2] = {3, 4};
  gc_arg e[2] = {fed_any(TF_FLOAT, 4, (int64_t[]){2, 0, 0, 3}, -1, 1), gc_konst(to, 2)};
  gc_op o = resize_op("ResizeNearestNeighborGrad", 0);
  gc_check(&o, e, 2, 0, "ResizeNearestNeighborGrad of empty grads");
  gc_free_args(e, 2);
}

/* ---- bad input ---- */

static void resizes_refuse_bad_input_with_cpu_texts(void) {
  gc_need_gpu();
  static const int32_t ok[2] = {4, 4}, three[3] = {4, 4, 4}, zero[2] = {0, 4}, neg[2] = {-1, 4};
  static const char *const fwd[2] = {"ResizeBilinear", "ResizeNearestNeighbor"};
  for (int f = 0; f < 2; f++) {
    gc_op o = resize_op(fwd[f], 0);
    gc_arg a[2] = {fed_any(TF_FLOAT, 3, (int64_t[]){2, 3, 4}, 0, 1), fed_ints(ok, 2)};
    gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "input must be 4-dimensional[2,3,4]", "3-D images");
    gc_free_args(a, 2);
    a[0] = fed_any(TF_FLOAT, 4, (int64_t[]){1, 3, 4, 2}, 0, 1);
    a[1] = fed_ints(three, 3);
    gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "shape_t must have two elements[3]", "three sizes");
    gc_free_args(a + 1, 1);
    a[1] = fed_ints(zero, 2);
    gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "output dimensions must be positive", "a zero size");
    gc_free_args(a + 1, 1);
    a[1] = fed_ints(ok, 2);
    gc_op both = {.type = fwd[f], .attrs = {GC_BOOL("align_corners", 1), GC_BOOL("half_pixel_centers", 1)}};
    gc_check_error(&both, a, 2, TF_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.",
                   "both flags");
    gc_free_args(a, 2);
    a[0] = fed_any(TF_FLOAT, 4, (int64_t[]){1, 0, 4, 2}, 0, 1);
    a[1] = fed_ints(ok, 2);
    gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "input image must be of non-zero size", "an empty image");
    gc_free_args(a, 2);
  }
  gc_op bg = resize_op("ResizeBilinearGrad", 0);
  gc_arg b[2] = {gc_fed(TF_FLOAT, 3, (int64_t[]){2, 3, 4}, 0, 1), zeros_const(TF_FLOAT, 4, (int64_t[]){2, 3, 4, 1})};
  gc_check_error(&bg, b, 2, TF_INVALID_ARGUMENT, "input_grad must be 4-dimensional[2,3,4]", "3-D grads");
  gc_free_args(b, 2);
  b[0] = gc_fed(TF_FLOAT, 4, (int64_t[]){1, 0, 4, 1}, 0, 1);
  b[1] = zeros_const(TF_FLOAT, 4, (int64_t[]){1, 3, 4, 1});
  gc_check_error(&bg, b, 2, TF_INVALID_ARGUMENT, "resized dimensions must be positive", "empty grads");
  gc_free_args(b, 2);
  gc_op ng = resize_op("ResizeNearestNeighborGrad", 0);
  b[0] = fed_any(TF_FLOAT, 4, (int64_t[]){1, 3, 4, 2}, 0, 1);
  b[1] = fed_ints(neg, 2);
  gc_check_error(&ng, b, 2, TF_INVALID_ARGUMENT, "output dimensions must be non-negative", "a negative size");
  gc_free_args(b, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(resize_bilinear_matches_cpu_bit_for_bit),
    TFC_TEST(resize_nearest_matches_cpu_bit_for_bit),
    TFC_TEST(resize_bilinear_grad_matches_cpu_bit_for_bit),
    TFC_TEST(resize_nearest_grad_matches_cpu_bit_for_bit),
    TFC_TEST(resizes_refuse_bad_input_with_cpu_texts),
    {0},
};

TFC_TEST_MAIN(tests)

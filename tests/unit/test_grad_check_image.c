/*
 * test_grad_check_image — finite-difference checks of the image geometry gradients built by
 * TF_AddGradients: ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic (float64 images,
 * up and down scaling, every align_corners / half_pixel_centers combination; the ops are
 * linear in the image, so a wide step is exact up to the float output's rounding) and
 * CropAndResize with respect to the image (bilinear and nearest) and to the boxes (bilinear,
 * float32, a small step away from the sampling grid's kinks).
 */
#include "grad_check.h"

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

typedef struct {
  const char *op;
  int64_t size[2];
  int align, half;
} resize_arg;

static TF_Output build_resize(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  resize_arg *a = arg;
  TF_Output size = gc_ivec(g, "size", a->size, 2);
  TF_OperationDescription *d = TF_NewOperation(g, a->op, "y");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, size);
  TF_SetAttrBool(d, "align_corners", (unsigned char)a->align);
  TF_SetAttrBool(d, "half_pixel_centers", (unsigned char)a->half);
  TF_Output y = {gc_finish(d), 0};
  if (TF_OperationOutputType(y) == TF_DOUBLE) return y;
  /* Bilinear and bicubic give float: back to double so the seed matches the double x. */
  TF_OperationDescription *cast = TF_NewOperation(g, "Cast", "y_double");
  TF_AddInput(cast, y);
  TF_SetAttrType(cast, "DstT", TF_DOUBLE);
  return (TF_Output){gc_finish(cast), 0};
}

static void check_resize(const char *op) {
  static const int flags[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  static const int64_t sizes[3][2] = {{5, 7}, {2, 3}, {4, 2}};
  for (int f = 0; f < 3; f++)
    for (int s = 0; s < 3; s++) {
      resize_arg a = {op, {sizes[s][0], sizes[s][1]}, flags[f][0], flags[f][1]};
      gc_input in = IN(-1, 1, 4, 2, 3, 4, 2);
      char what[96];
      snprintf(what, sizeof what, "%s to %lldx%lld align %d half %d", op, (long long)a.size[0], (long long)a.size[1],
               a.align, a.half);
      gc_check_ex(what, build_resize, &a, &in, 1, TF_DOUBLE, 0.25, 1e-4);
    }
}

static void grad_resize_bilinear(void) { check_resize("ResizeBilinear"); }
static void grad_resize_nearest_neighbor(void) { check_resize("ResizeNearestNeighbor"); }
static void grad_resize_bicubic(void) { check_resize("ResizeBicubic"); }

typedef struct {
  const char *method;
  int64_t crop[2];
  int boxes_fed; /* 1: boxes are x[1]; 0: a fixed Const */
} crop_arg;

static TF_Output build_crop(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  crop_arg *a = arg;
  static const double boxes[12] = {0.1, 0.2, 0.8, 0.9, 0.85, 0.7, 0.15, 0.05, -0.2, 0.3, 0.6, 1.2};
  int64_t bd[2] = {3, 4}, id = 3;
  double ind[3] = {1, 0, 1};
  TF_Output b = a->boxes_fed ? x[1] : gc_const(g, "boxes", TF_FLOAT, bd, 2, boxes);
  TF_Output in[4] = {x[0], b, gc_const(g, "box_ind", TF_INT32, &id, 1, ind), gc_ivec(g, "crop_size", a->crop, 2)};
  TF_OperationDescription *d = TF_NewOperation(g, "CropAndResize", "y");
  for (int i = 0; i < 4; i++) TF_AddInput(d, in[i]);
  TF_SetAttrString(d, "method", a->method, strlen(a->method));
  TF_SetAttrFloat(d, "extrapolation_value", 0.25f);
  return (TF_Output){gc_finish(d), 0};
}

static void grad_crop_and_resize_image(void) {
  static const char *methods[2] = {"bilinear", "nearest"};
  static const int64_t crops[3][2] = {{3, 4}, {1, 1}, {5, 2}};
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 3; k++) {
      crop_arg a = {methods[m], {crops[k][0], crops[k][1]}, 0};
      gc_input in = IN(-1, 1, 4, 2, 5, 6, 2);
      gc_check_ex(methods[m], build_crop, &a, &in, 1, TF_FLOAT, 0.25, 1e-3);
    }
}

static void grad_crop_and_resize_boxes(void) {
  static const int64_t crops[3][2] = {{3, 4}, {1, 1}, {4, 1}};
  for (int k = 0; k < 3; k++) {
    crop_arg a = {"bilinear", {crops[k][0], crops[k][1]}, 1};
    /* image and box_ind [1, 0, 1] over a batch of 2; boxes inside the image */
    gc_input in[2] = {IN(-1, 1, 4, 2, 5, 6, 2), IN(0.05, 0.95, 2, 3, 4)};
    char what[64];
    snprintf(what, sizeof what, "CropAndResize boxes crop %lldx%lld", (long long)a.crop[0], (long long)a.crop[1]);
    gc_check_ex(what, build_crop, &a, in, 2, TF_FLOAT, 1e-4, 2e-2);
  }
}

static const tfc_test tests[] = {
    TFC_TEST(grad_resize_bilinear),
    TFC_TEST(grad_resize_nearest_neighbor),
    TFC_TEST(grad_resize_bicubic),
    TFC_TEST(grad_crop_and_resize_image),
    TFC_TEST(grad_crop_and_resize_boxes),
    {0}};
TFC_TEST_MAIN(tests)

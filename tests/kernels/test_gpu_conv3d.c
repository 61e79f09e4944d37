/*
 * GPU kernels of Conv3D and its backprops, the 3-D pools and their gradients, LRN / LRNGrad,
 * _FusedConv2D and the CropAndResize family against their CPU kernels, through a session
 * (gpu_compare.h: one copy of the op on /device:CPU:0, one on /device:GPU:0, the same inputs).
 *
 * Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2: odd sizes, SAME with odd totals
 * (cuDNN pads symmetrically: the GPU pads the rest explicitly), VALID, strides, dilations, a
 * 1x1x1 filter, batch 0 and a 1x1x1 image under a 3x3x3 SAME filter, in float, double and
 * half. The pools: max and average, forward and backward, odd SAME padding, inputs full of ties
 * (MaxPool3DGrad sends a window's gradient to EVERY maximum, the CPU kernel's rule), float and
 * half. NCDHW runs only on the GPU (TF's CPU kernels refuse it, as the CPU here does): its CPU
 * reference is the NDHWC op between Transposes.
 *
 * LRN and LRNGrad over odd depths, radius 0, a radius past the depth and other attrs.
 * _FusedConv2D with every fusion the shared parse accepts (BiasAdd, then Add, then Relu,
 * Relu6, Elu or LeakyRelu), NHWC and NCHW, float and double; a fusion neither device takes
 * fails on both with the same text. CropAndResize (bilinear, nearest, flipped boxes, boxes
 * reaching outside the image, one-row and one-column crops) and its two gradients in float,
 * double and half; a box index outside the batch is OUT_OF_RANGE on both devices.
 *
 * Bad input must fail on both devices with the CPU kernel's code and text. Without a CUDA
 * build or a GPU the comparisons skip with the reason; with TFC_GC_SELF_TEST=1 their "GPU"
 * copies run on the CPU (gpu_compare.h), which checks these graphs and their CPU half here.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_compare.c"

/* Runs g with in's feeds and fetches n outputs into out (new tensors), failing on an error. */
static void run_fetch(TF_Graph *g, const gc_inputs *in, const TF_Output *fetch, int n, TF_Tensor **out,
                      const char *label) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_SessionRun(sess, NULL, in->feeds, in->vals, in->n_feeds, fetch, out, n, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteStatus(s);
}

/* A CPU Transpose of x by the 5-D perm. */
static TF_Output transpose5(TF_Graph *g, TF_Output x, const int32_t perm[5], const char *name, TF_Status *s,
                            const char *label) {
  char pname[48];
  snprintf(pname, sizeof pname, "%s_perm", name);
  TF_Tensor *p = gc_ints(perm, 5);
  TF_Output pc = gc_const(g, pname, p, s, label);
  TF_DeleteTensor(p);
  TF_OperationDescription *d = TF_NewOperation(g, "Transpose", name);
  TF_SetDevice(d, GC_CPU);
  TF_AddInput(d, x);
  TF_AddInput(d, pc);
  return (TF_Output){gc_finish(d, s, 0, label), 0};
}

static const int32_t to_ndhwc[5] = {0, 2, 3, 4, 1}, to_ncdhw[5] = {0, 4, 1, 2, 3};

/* (n, d, h, w, c) as the 5 dims of the layout. */
static void dims5(int ncdhw, const int64_t c5[5], int64_t out[5]) {
  out[0] = c5[0];
  for (int k = 0; k < 3; k++) out[ncdhw ? k + 2 : k + 1] = c5[k + 1];
  out[ncdhw ? 1 : 4] = c5[4];
}

static gc_arg sizes_const(const int64_t d[5]) {
  return GC_CONST(gc_ints((int32_t[]){(int32_t)d[0], (int32_t)d[1], (int32_t)d[2], (int32_t)d[3], (int32_t)d[4]}, 5));
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t dil, const char *padding) {
  if (strcmp(padding, "SAME") == 0) return (in + s - 1) / s;
  return (in - ((k - 1) * dil + 1) + s) / s;
}

/* ---- one op in either layout: native NCDHW (the GPU) or NDHWC between Transposes ---- */

enum { IN_ACT = 0, IN_ASIS = 1, IN_SIZES = 2 };

/* The op over NCDHW data v on dev: natively (o_nc) or as the NDHWC op (o_nd) between
 * Transposes. roles: per input, an activation (transposed), as is (a filter), or the host
 * sizes of an activation (a constant of sizes_c = (n, d, h, w, c) in the copy's layout).
 * out_act: the output is an activation (transposed back). Returns the output as float. */
static TF_Output in_layout(TF_Graph *g, const gc_op *o_nc, const gc_op *o_nd, const char *dev, int native,
                           const TF_Output *v, const int *roles, int n_in, const int64_t sizes_c[5], int out_act,
                           const char *pre, TF_Status *s, const char *label) {
  TF_Output in[4];
  char name[48];
  for (int i = 0; i < n_in; i++) {
    if (roles[i] == IN_SIZES) {
      int64_t d[5];
      dims5(native, sizes_c, d);
      TF_Tensor *t = gc_ints((int32_t[]){(int32_t)d[0], (int32_t)d[1], (int32_t)d[2], (int32_t)d[3], (int32_t)d[4]}, 5);
      snprintf(name, sizeof name, "%s_sizes%d", pre, i);
      in[i] = gc_const(g, name, t, s, label);
      TF_DeleteTensor(t);
    } else if (roles[i] == IN_ASIS || native) {
      in[i] = v[i];
    } else {
      snprintf(name, sizeof name, "%s_in%d", pre, i);
      in[i] = transpose5(g, v[i], to_ndhwc, name, s, label);
    }
  }
  snprintf(name, sizeof name, "%s_op", pre);
  TF_Output out = {gc_add_op(g, native ? o_nc : o_nd, name, dev, in, n_in, s, 0, label), 0};
  if (TF_OperationOutputType(out) == TF_HALF) {
    snprintf(name, sizeof name, "%s_float", pre);
    out = gc_unary(g, "Cast", name, out, "DstT", TF_FLOAT, s, label);
  }
  if (native || !out_act) return out;
  snprintf(name, sizeof name, "%s_back", pre);
  return transpose5(g, out, to_ncdhw, name, s, label);
}

/* The NCDHW op on the GPU against the NDHWC op between Transposes on the CPU. args: the fed
 * NCDHW data per input (NULL tensors for IN_SIZES inputs); half: the GPU copy in half. */
static void check_ncdhw(const gc_op *o_nc, const gc_op *o_nd, gc_arg *args, const int *roles, int n_in,
                        const int64_t sizes_c[5], int out_act, int half, double tol, const char *label) {
  gc_arg fed[4] = {{0}};
  int idx[4] = {0}, n_fed = 0;
  for (int i = 0; i < n_in; i++)
    if (roles[i] != IN_SIZES) idx[n_fed] = i, fed[n_fed++] = args[i];
  gc_op feed_op = {.type = o_nc->type, .half = half};
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  gc_inputs in;
  gc_make_inputs(g, &feed_op, fed, n_fed, &in, s, label);
  TF_Output vc[4] = {{0}}, vg[4] = {{0}};
  for (int k = 0; k < n_fed; k++) vc[idx[k]] = in.cpu_in[k], vg[idx[k]] = in.gpu_in[k];
  TF_Output fetch[2] = {
      in_layout(g, o_nc, o_nd, gc_gpu_dev(), !gc_self_test(), vg, roles, n_in, sizes_c, out_act, "gpu", s, label),
      in_layout(g, o_nc, o_nd, GC_CPU, 0, vc, roles, n_in, sizes_c, out_act, "cpu", s, label)};
  TF_Tensor *out[2] = {0};
  run_fetch(g, &in, fetch, 2, out, label);
  gc_compare(label, out[0], out[1], tol);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- Conv3D ---- */

typedef struct c3_case {
  int64_t n, d, h, w, ic, kd, kh, kw, oc;
  int64_t st[3], dil[3];
  const char *padding;
} c3_case;

/* Odd sizes; SAME with odd totals at stride 2; VALID with strides; dilations (with an odd SAME
 * total); a 1x1x1 filter; batch 0; a 1x1x1 image under a 3x3x3 SAME filter. */
static const c3_case c3_cases[] = {
    {2, 5, 6, 7, 3, 3, 3, 3, 4, {1, 1, 1}, {1, 1, 1}, "SAME"},
    {1, 7, 8, 6, 2, 3, 2, 3, 3, {2, 2, 1}, {1, 1, 1}, "SAME"},
    {2, 6, 5, 5, 3, 2, 3, 2, 2, {1, 2, 2}, {1, 1, 1}, "VALID"},
    {1, 7, 8, 7, 2, 3, 3, 2, 2, {1, 2, 1}, {2, 2, 1}, "SAME"},
    {1, 4, 5, 3, 2, 1, 1, 1, 3, {1, 1, 1}, {1, 1, 1}, "VALID"},
    {0, 4, 4, 4, 2, 3, 3, 3, 3, {1, 1, 1}, {1, 1, 1}, "SAME"},
    {2, 1, 1, 1, 3, 3, 3, 3, 2, {1, 1, 1}, {1, 1, 1}, "SAME"},
};
#define N_C3 (int)(sizeof c3_cases / sizeof c3_cases[0])

static const char *const c3_ops[3] = {"Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"};

/* The attrs' storage of one window op. */
typedef struct win5 {
  int64_t st[5], dil[5], ks[5];
} win5;

static gc_op c3_op(const c3_case *cc, int kind, int ncdhw, win5 *w, int half) {
  gc_op o = {.type = c3_ops[kind], .half = half};
  int64_t st_c[5] = {1, cc->st[0], cc->st[1], cc->st[2], 1}, dil_c[5] = {1, cc->dil[0], cc->dil[1], cc->dil[2], 1};
  dims5(ncdhw, st_c, w->st);
  dims5(ncdhw, dil_c, w->dil);
  o.attrs[0] = (gc_attr)GC_STR("data_format", ncdhw ? "NCDHW" : "NDHWC");
  o.attrs[1] = (gc_attr)GC_STR("padding", cc->padding);
  o.attrs[2] = (gc_attr)GC_INTS("strides", w->st, 5);
  o.attrs[3] = (gc_attr)GC_INTS("dilations", w->dil, 5);
  return o;
}

/* x, y (canonical n, d, h, w, c) and filter dims of case cc. */
static void c3_shapes(const c3_case *cc, int64_t x[5], int64_t y[5], int64_t f[5]) {
  int64_t xi[5] = {cc->n, cc->d, cc->h, cc->w, cc->ic};
  int64_t k[3] = {cc->kd, cc->kh, cc->kw};
  memcpy(x, xi, sizeof xi);
  y[0] = cc->n, y[4] = cc->oc;
  for (int i = 0; i < 3; i++) y[i + 1] = out_size(xi[i + 1], k[i], cc->st[i], cc->dil[i], cc->padding);
  int64_t fi[5] = {cc->kd, cc->kh, cc->kw, cc->ic, cc->oc};
  memcpy(f, fi, sizeof fi);
}

static double tol_of(TF_DataType dt) { return dt == TF_DOUBLE ? 1e-10 : dt == TF_HALF ? 5e-2 : 1e-3; }

/* kind 0 forward, 1 input backprop, 2 filter backprop, NDHWC on both devices. */
static void c3_check(const c3_case *cc, int kind, TF_DataType dt) {
  TF_DataType feed = dt == TF_HALF ? TF_FLOAT : dt;
  int64_t xc[5], yc[5], f[5], xd[5], yd[5];
  c3_shapes(cc, xc, yc, f);
  dims5(0, xc, xd);
  dims5(0, yc, yd);
  gc_arg args[3];
  args[0] = kind == 1 ? sizes_const(xd) : gc_fed(feed, 5, xd, -1, 1);
  args[1] = kind == 2 ? sizes_const(f) : gc_fed(feed, 5, f, -1, 1);
  if (kind) args[2] = gc_fed(feed, 5, yd, -1, 1);
  win5 w;
  gc_op o = c3_op(cc, kind, 0, &w, dt == TF_HALF);
  char label[128];
  snprintf(label, sizeof label, "%s NDHWC dtype %d case %d", c3_ops[kind], (int)dt, (int)(cc - c3_cases));
  gc_check(&o, args, kind ? 3 : 2, tol_of(dt), label);
  gc_free_args(args, kind ? 3 : 2);
}

static void c3_check_ncdhw(const c3_case *cc, int kind, TF_DataType dt) {
  TF_DataType feed = dt == TF_HALF ? TF_FLOAT : dt;
  int64_t xc[5], yc[5], f[5], xd[5], yd[5];
  c3_shapes(cc, xc, yc, f);
  dims5(1, xc, xd);
  dims5(1, yc, yd);
  gc_arg args[3] = {kind == 1 ? GC_FED(NULL) : gc_fed(feed, 5, xd, -1, 1),
                    kind == 2 ? GC_FED(NULL) : gc_fed(feed, 5, f, -1, 1),
                    kind ? gc_fed(feed, 5, yd, -1, 1) : GC_FED(NULL)};
  int roles[3] = {kind == 1 ? IN_SIZES : IN_ACT, kind == 2 ? IN_SIZES : IN_ASIS, IN_ACT};
  if (kind == 2) { /* the filter sizes are the same in both layouts: a constant kept as is */
    TF_DeleteTensor(args[1].t);
    args[1] = sizes_const(f);
    roles[1] = IN_ASIS;
  }
  win5 wn, wd;
  gc_op onc = c3_op(cc, kind, 1, &wn, dt == TF_HALF), ond = c3_op(cc, kind, 0, &wd, 0);
  char label[128];
  snprintf(label, sizeof label, "%s NCDHW dtype %d case %d", c3_ops[kind], (int)dt, (int)(cc - c3_cases));
  check_ncdhw(&onc, &ond, args, roles, kind ? 3 : 2, xc, kind != 2, dt == TF_HALF, tol_of(dt), label);
  gc_free_args(args, 3);
}

static void conv3d_matches_cpu_ndhwc(void) {
  gc_need_gpu();
  for (int c = 0; c < N_C3; c++)
    for (int kind = 0; kind < 3; kind++) {
      c3_check(&c3_cases[c], kind, TF_FLOAT);
      c3_check(&c3_cases[c], kind, TF_DOUBLE);
    }
  if (gc_self_test()) return; /* the CPU has no half Conv3D */
  for (int kind = 0; kind < 3; kind++) {
    c3_check(&c3_cases[0], kind, TF_HALF);
    c3_check(&c3_cases[1], kind, TF_HALF);
  }
}

static void conv3d_ncdhw_matches_cpu_ndhwc(void) {
  gc_need_gpu();
  for (int c = 0; c < N_C3; c++)
    for (int kind = 0; kind < 3; kind++) {
      c3_check_ncdhw(&c3_cases[c], kind, TF_FLOAT);
      c3_check_ncdhw(&c3_cases[c], kind, TF_DOUBLE);
    }
  if (gc_self_test()) return;
  for (int kind = 0; kind < 3; kind++) c3_check_ncdhw(&c3_cases[3], kind, TF_HALF);
}

static void conv3d_reports_cpu_errors(void) {
  gc_need_gpu();
  c3_case cc = {1, 4, 4, 4, 3, 3, 3, 3, 2, {1, 1, 1}, {1, 1, 1}, "SAME"};
  win5 w;
  gc_op fwd = c3_op(&cc, 0, 0, &w, 0);
  int64_t x[5] = {1, 4, 4, 4, 3}, f2[5] = {3, 3, 3, 2, 2}, f3[5] = {3, 3, 3, 3, 2};
  gc_arg a[2] = {gc_fed(TF_FLOAT, 5, x, -1, 1), gc_fed(TF_FLOAT, 5, f2, -1, 1)};
  gc_check_error(&fwd, a, 2, TF_INVALID_ARGUMENT, "input and filter must have the same depth: 3 vs 2", "depth");
  gc_free_args(a, 2);
  gc_op bi = c3_op(&cc, 1, 0, &w, 0);
  int64_t dy_bad[5] = {1, 4, 3, 4, 2};
  gc_arg b[3] = {GC_FED(gc_ints((int32_t[]){1, 4, 4, 4, 3}, 5)), gc_fed(TF_FLOAT, 5, f3, -1, 1),
                 gc_fed(TF_FLOAT, 5, dy_bad, -1, 1)};
  gc_check_error(&bi, b, 3, TF_INVALID_ARGUMENT,
                 "Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = 3, computed = 4",
                 "input backprop size");
  gc_free_args(b, 3);
  gc_op bf = c3_op(&cc, 2, 0, &w, 0);
  int64_t dy_batch[5] = {2, 4, 4, 4, 2};
  gc_arg c[3] = {gc_fed(TF_FLOAT, 5, x, -1, 1), GC_FED(gc_ints((int32_t[]){3, 3, 3, 3, 2}, 5)),
                 gc_fed(TF_FLOAT, 5, dy_batch, -1, 1)};
  gc_check_error(&bf, c, 3, TF_INVALID_ARGUMENT, "input and out_backprop must have the same batch size",
                 "filter backprop batch");
  gc_free_args(c, 3);
}

/* TF's CPU kernels refuse NCDHW (the GPU runs it: conv3d_ncdhw_matches_cpu_ndhwc). */
static void conv3d_ncdhw_is_refused_on_cpu(void) {
  c3_case cc = {1, 3, 3, 3, 2, 2, 2, 2, 2, {1, 1, 1}, {1, 1, 1}, "SAME"};
  win5 w;
  gc_op o = c3_op(&cc, 0, 1, &w, 0);
  int64_t x[5] = {1, 2, 3, 3, 3}, f[5] = {2, 2, 2, 2, 2};
  gc_arg a[2] = {gc_fed(TF_FLOAT, 5, x, -1, 1), gc_fed(TF_FLOAT, 5, f, -1, 1)};
  char msg[1024];
  TF_Code code = gc_run_alone(&o, a, 2, GC_CPU, msg, sizeof msg, "NCDHW on CPU");
  EXPECT_EQ(code, TF_INVALID_ARGUMENT);
  if (!strstr(msg, "CPU implementation of Conv3D currently only supports the NHWC tensor format."))
    tfc_test_fail(__FILE__, __LINE__, "unexpected message: %s", msg);
  gc_free_args(a, 2);
}

/* ---- the 3-D pools ---- */

typedef struct p3_case {
  int64_t n, d, h, w, c, k[3], st[3];
  const char *padding;
} p3_case;

static const p3_case p3_cases[] = {
    {2, 5, 6, 7, 3, {2, 2, 2}, {2, 2, 2}, "SAME"},  /* odd totals: the extra element after */
    {1, 7, 5, 6, 2, {3, 2, 3}, {2, 1, 2}, "SAME"},
    {2, 6, 6, 5, 3, {3, 3, 2}, {1, 2, 2}, "VALID"},
    {0, 4, 4, 4, 2, {2, 2, 2}, {1, 1, 1}, "SAME"},  /* batch 0 */
    {1, 1, 1, 1, 4, {3, 3, 3}, {1, 1, 1}, "SAME"},  /* a 1x1x1 image under a 3x3x3 window */
};
#define N_P3 (int)(sizeof p3_cases / sizeof p3_cases[0])

static const char *const p3_ops[4] = {"MaxPool3D", "AvgPool3D", "MaxPool3DGrad", "AvgPool3DGrad"};

static gc_op p3_op(const p3_case *pc, int kind, int ncdhw, win5 *w, int half) {
  gc_op o = {.type = p3_ops[kind], .half = half};
  int64_t st_c[5] = {1, pc->st[0], pc->st[1], pc->st[2], 1}, ks_c[5] = {1, pc->k[0], pc->k[1], pc->k[2], 1};
  dims5(ncdhw, st_c, w->st);
  dims5(ncdhw, ks_c, w->ks);
  o.attrs[0] = (gc_attr)GC_STR("data_format", ncdhw ? "NCDHW" : "NDHWC");
  o.attrs[1] = (gc_attr)GC_STR("padding", pc->padding);
  o.attrs[2] = (gc_attr)GC_INTS("strides", w->st, 5);
  o.attrs[3] = (gc_attr)GC_INTS("ksize", w->ks, 5);
  return o;
}

static void p3_shapes(const p3_case *pc, int64_t x[5], int64_t y[5]) {
  int64_t xi[5] = {pc->n, pc->d, pc->h, pc->w, pc->c};
  memcpy(x, xi, sizeof xi);
  y[0] = pc->n, y[4] = pc->c;
  for (int i = 0; i < 3; i++) y[i + 1] = out_size(xi[i + 1], pc->k[i], pc->st[i], 1, pc->padding);
}

/* Element offset of canonical (b, z, y, x, ch) in dims c5 stored in the layout. */
static int64_t at5(int ncdhw, const int64_t c5[5], int64_t b, int64_t z, int64_t y, int64_t x, int64_t ch) {
  return ncdhw ? (((b * c5[4] + ch) * c5[1] + z) * c5[2] + y) * c5[3] + x
               : (((b * c5[1] + z) * c5[2] + y) * c5[3] + x) * c5[4] + ch;
}

/* A float input of canonical dims xc in the layout with values in {0, 0.5, 1, 1.5} (windows
 * full of ties), and its max pooling (TF's window: SAME's padding before is total / 2). */
static void tie_input(const p3_case *pc, int ncdhw, TF_Tensor **x, TF_Tensor **y) {
  int64_t xc[5], yc[5], xd[5], yd[5];
  p3_shapes(pc, xc, yc);
  dims5(ncdhw, xc, xd);
  dims5(ncdhw, yc, yd);
  *x = gc_rand(TF_FLOAT, 5, xd, 0, 4);
  float *xv = TF_TensorData(*x);
  for (int64_t i = 0; i < TF_TensorElementCount(*x); i++) xv[i] = floorf(xv[i]) * 0.5f;
  *y = TF_AllocateTensor(TF_FLOAT, yd, 5, sizeof(float) * (size_t)(yd[0] * yd[1] * yd[2] * yd[3] * yd[4]));
  float *yv = TF_TensorData(*y);
  int64_t pad[3];
  for (int i = 0; i < 3; i++) {
    int64_t total = (yc[i + 1] - 1) * pc->st[i] + pc->k[i] - xc[i + 1];
    pad[i] = strcmp(pc->padding, "SAME") == 0 && total > 0 ? total / 2 : 0;
  }
  for (int64_t b = 0; b < yc[0]; b++)
    for (int64_t oz = 0; oz < yc[1]; oz++)
      for (int64_t oy = 0; oy < yc[2]; oy++)
        for (int64_t ox = 0; ox < yc[3]; ox++)
          for (int64_t ch = 0; ch < yc[4]; ch++) {
            float best = -INFINITY;
            for (int64_t z = oz * pc->st[0] - pad[0]; z < oz * pc->st[0] - pad[0] + pc->k[0]; z++)
              for (int64_t yy = oy * pc->st[1] - pad[1]; yy < oy * pc->st[1] - pad[1] + pc->k[1]; yy++)
                for (int64_t xx = ox * pc->st[2] - pad[2]; xx < ox * pc->st[2] - pad[2] + pc->k[2]; xx++)
                  if (z >= 0 && z < xc[1] && yy >= 0 && yy < xc[2] && xx >= 0 && xx < xc[3]) {
                    float v = xv[at5(ncdhw, xc, b, z, yy, xx, ch)];
                    if (v > best) best = v;
                  }
            yv[at5(ncdhw, yc, b, oz, oy, ox, ch)] = best;
          }
}

/* The args of pool kind on case pc in the layout (sizes: the orig_input_shape constant). */
static void p3_args(const p3_case *pc, int kind, int ncdhw, gc_arg *args, int *n_in) {
  int64_t xc[5], yc[5], xd[5], yd[5];
  p3_shapes(pc, xc, yc);
  dims5(ncdhw, xc, xd);
  dims5(ncdhw, yc, yd);
  if (kind < 2) {
    args[0] = gc_fed(TF_FLOAT, 5, xd, -2, 2);
    *n_in = 1;
  } else if (kind == 2) {
    TF_Tensor *x, *y;
    tie_input(pc, ncdhw, &x, &y);
    args[0] = GC_FED(x), args[1] = GC_FED(y), args[2] = gc_fed(TF_FLOAT, 5, yd, -1, 1);
    *n_in = 3;
  } else {
    args[0] = sizes_const(xd), args[1] = gc_fed(TF_FLOAT, 5, yd, -1, 1);
    *n_in = 2;
  }
}

static void p3_check(const p3_case *pc, int kind, int half) {
  gc_arg args[3];
  int n_in;
  p3_args(pc, kind, 0, args, &n_in);
  win5 w;
  gc_op o = p3_op(pc, kind, 0, &w, half);
  char label[128];
  snprintf(label, sizeof label, "%s NDHWC half %d case %d", p3_ops[kind], half, (int)(pc - p3_cases));
  gc_check(&o, args, n_in, half ? 2e-2 : 1e-5, label);
  gc_free_args(args, n_in);
}

static void p3_check_ncdhw(const p3_case *pc, int kind, int half) {
  gc_arg args[3];
  int n_in;
  p3_args(pc, kind, 1, args, &n_in);
  int64_t xc[5], yc[5];
  p3_shapes(pc, xc, yc);
  int roles[3] = {IN_ACT, IN_ACT, IN_ACT};
  if (kind == 3) {
    TF_DeleteTensor(args[0].t);
    args[0] = GC_FED(NULL);
    roles[0] = IN_SIZES;
  }
  win5 wn, wd;
  gc_op onc = p3_op(pc, kind, 1, &wn, half), ond = p3_op(pc, kind, 0, &wd, 0);
  char label[128];
  snprintf(label, sizeof label, "%s NCDHW half %d case %d", p3_ops[kind], half, (int)(pc - p3_cases));
  check_ncdhw(&onc, &ond, args, roles, n_in, xc, 1, half, half ? 2e-2 : 1e-5, label);
  gc_free_args(args, n_in);
}

static void pool3d_matches_cpu(void) {
  gc_need_gpu();
  for (int c = 0; c < N_P3; c++)
    for (int kind = 0; kind < 4; kind++) {
      p3_check(&p3_cases[c], kind, 0);
      p3_check_ncdhw(&p3_cases[c], kind, 0);
    }
  if (gc_self_test()) return; /* the CPU has no half 3-D pools */
  for (int kind = 0; kind < 4; kind++) {
    p3_check(&p3_cases[0], kind, 1);
    p3_check_ncdhw(&p3_cases[1], kind, 1);
  }
}

/* Every maximum of a window gets the window's gradient: a 2x2x2 input of equal values pooled
 * by one 2x2x2 window sends dy to all eight elements. */
static void max_pool3d_grad_sends_ties_to_every_maximum(void) {
  gc_need_gpu();
  p3_case pc = {1, 2, 2, 2, 1, {2, 2, 2}, {2, 2, 2}, "VALID"};
  win5 w;
  gc_op o = p3_op(&pc, 2, 0, &w, 0);
  int64_t xd[5] = {1, 2, 2, 2, 1}, yd[5] = {1, 1, 1, 1, 1};
  TF_Tensor *x = gc_rand(TF_FLOAT, 5, xd, 0, 1), *y = gc_rand(TF_FLOAT, 5, yd, 0, 1), *dy = gc_rand(TF_FLOAT, 5, yd, 0, 1);
  for (int i = 0; i < 8; i++) ((float *)TF_TensorData(x))[i] = 1.5f;
  ((float *)TF_TensorData(y))[0] = 1.5f;
  ((float *)TF_TensorData(dy))[0] = 0.25f;
  gc_arg a[3] = {GC_FED(x), GC_FED(y), GC_FED(dy)};
  const char *devs[2] = {GC_CPU, gc_gpu_dev()};
  for (int d = 0; d < 2; d++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    gc_inputs in;
    gc_make_inputs(g, &o, a, 3, &in, s, "ties");
    TF_Output out = {gc_add_op(g, &o, "op", devs[d], in.cpu_in, 3, s, 0, "ties"), 0};
    TF_Tensor *t = NULL;
    run_fetch(g, &in, &out, 1, &t, "ties");
    for (int i = 0; i < 8; i++) EXPECT_EQ(((float *)TF_TensorData(t))[i], 0.25f);
    TF_DeleteTensor(t);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
  gc_free_args(a, 3);
}

static void pool3d_reports_cpu_errors(void) {
  gc_need_gpu();
  p3_case pc = {1, 4, 4, 4, 2, {2, 2, 2}, {1, 1, 1}, "VALID"};
  win5 w;
  gc_op o = p3_op(&pc, 0, 0, &w, 0);
  w.ks[4] = 2; /* pooling across channels */
  int64_t x[5] = {1, 4, 4, 4, 2};
  gc_arg a[1] = {gc_fed(TF_FLOAT, 5, x, -1, 1)};
  gc_check_error(&o, a, 1, TF_UNIMPLEMENTED, "Pooling is not yet supported on the depth dimension.", "depth pool");
  gc_free_args(a, 1);
  gc_op g2 = p3_op(&pc, 2, 0, &w, 0);
  int64_t y_bad[5] = {1, 3, 3, 2, 2};
  gc_arg b[3] = {gc_fed(TF_FLOAT, 5, x, -1, 1), gc_fed(TF_FLOAT, 5, y_bad, -1, 1), gc_fed(TF_FLOAT, 5, y_bad, -1, 1)};
  gc_check_error(&g2, b, 3, TF_INVALID_ARGUMENT, "Expected orig_output shape to be [1,3,3,3,2], but got [1,3,3,2,2]",
                 "orig_output shape");
  gc_free_args(b, 3);
}

/* ---- LRN ---- */

typedef struct lrn_case {
  int64_t dims[4];
  int64_t radius;
  double bias, alpha, beta;
} lrn_case;

static const lrn_case lrn_cases[] = {
    {{2, 3, 4, 7}, 2, 1.0, 1.0, 0.5},   {{1, 2, 2, 5}, 0, 2.0, 0.5, 0.75},
    {{1, 3, 3, 4}, 10, 1.0, 0.3, 0.5},  /* a radius past the depth */
    {{3, 1, 1, 16}, 5, 0.5, 0.1, 1.0},  {{2, 5, 3, 33}, 3, 1.5, 2e-2, 0.6},
    {{0, 2, 2, 3}, 2, 1.0, 1.0, 0.5},   /* empty */
};
#define N_LRN (int)(sizeof lrn_cases / sizeof lrn_cases[0])

static gc_op lrn_op(const lrn_case *lc, int grad) {
  gc_op o = {.type = grad ? "LRNGrad" : "LRN",
             .attrs = {GC_INT("depth_radius", lc->radius), GC_FLOAT("bias", lc->bias), GC_FLOAT("alpha", lc->alpha),
                       GC_FLOAT("beta", lc->beta)}};
  return o;
}

static void lrn_matches_cpu(void) {
  gc_need_gpu();
  for (int c = 0; c < N_LRN; c++) {
    const lrn_case *lc = &lrn_cases[c];
    char label[64];
    snprintf(label, sizeof label, "LRN case %d", c);
    gc_op o = lrn_op(lc, 0);
    gc_arg a[1] = {gc_fed(TF_FLOAT, 4, lc->dims, -2, 2)};
    gc_check(&o, a, 1, 1e-4, label);
    gc_free_args(a, 1);
    snprintf(label, sizeof label, "LRNGrad case %d", c);
    gc_op og = lrn_op(lc, 1);
    gc_arg b[3] = {gc_fed(TF_FLOAT, 4, lc->dims, -1, 1), gc_fed(TF_FLOAT, 4, lc->dims, -2, 2),
                   gc_fed(TF_FLOAT, 4, lc->dims, -1, 1)};
    gc_check(&og, b, 3, 1e-4, label);
    gc_free_args(b, 3);
  }
}

static void lrn_reports_cpu_errors(void) {
  gc_need_gpu();
  lrn_case lc = {{1, 2, 2, 3}, 2, 1.0, 1.0, 0.5};
  gc_op o = lrn_op(&lc, 0);
  int64_t d3[3] = {2, 2, 3};
  gc_arg a[1] = {gc_fed(TF_FLOAT, 3, d3, -1, 1)};
  gc_check_error(&o, a, 1, TF_INVALID_ARGUMENT, "in must be 4-dimensional", "LRN rank");
  gc_free_args(a, 1);
  gc_op og = lrn_op(&lc, 1);
  int64_t other[4] = {1, 2, 2, 4};
  gc_arg b[3] = {gc_fed(TF_FLOAT, 4, lc.dims, -1, 1), gc_fed(TF_FLOAT, 4, lc.dims, -1, 1),
                 gc_fed(TF_FLOAT, 4, other, -1, 1)};
  gc_check_error(&og, b, 3, TF_INVALID_ARGUMENT, "input_grads, input_image and output_image must have the same shape",
                 "LRNGrad shapes");
  gc_free_args(b, 3);
}

/* ---- _FusedConv2D ---- */

typedef struct fused_case {
  const char *ops[3];
  int n_ops;
  int nchw;
} fused_case;

static const fused_case fused_cases[] = {
    {{"BiasAdd"}, 1, 0},           {{"BiasAdd", "Relu"}, 2, 0},          {{"BiasAdd", "Relu6"}, 2, 1},
    {{"BiasAdd", "Elu"}, 2, 0},    {{"BiasAdd", "LeakyRelu"}, 2, 1},     {{"BiasAdd", "Add"}, 2, 1},
    {{"BiasAdd", "Add", "Relu"}, 3, 0}, {{"BiasAdd", "Add", "LeakyRelu"}, 3, 1}, {{"BiasAdd", "Add", "Elu"}, 3, 1},
};
#define N_FUSED (int)(sizeof fused_cases / sizeof fused_cases[0])

/* The op over an n x h x w x ic input (layout nchw), a 3x3 filter to oc channels at stride
 * (1, 2), SAME (odd total: the GPU pads explicitly). */
static gc_op fused_op(const char *const *ops, int n_ops, int nchw, int n_args, int64_t st[4], int64_t dil[4]) {
  for (int i = 0; i < 4; i++) st[i] = dil[i] = 1;
  st[nchw ? 3 : 2] = 2;
  gc_op o = {.type = "_FusedConv2D", .list = n_args, .list_at = 2,
             .attrs = {GC_STR("data_format", nchw ? "NCHW" : "NHWC"), GC_STR("padding", "SAME"),
                       GC_INTS("strides", st, 4), GC_INTS("dilations", dil, 4), GC_STRS("fused_ops", ops, n_ops),
                       GC_INT("num_args", n_args), GC_FLOAT("leakyrelu_alpha", 0.3)}};
  return o;
}

static void fused_check(const fused_case *fc, TF_DataType dt) {
  int64_t n = 2, h = 7, w = 9, ic = 3, oc = 5, oh = 7, ow = 5;
  int add = fc->n_ops > 1 && strcmp(fc->ops[1], "Add") == 0;
  int64_t xd[4], yd[4], fd[4] = {3, 3, ic, oc}, st[4], dil[4];
  xd[0] = yd[0] = n;
  xd[fc->nchw ? 1 : 3] = ic, yd[fc->nchw ? 1 : 3] = oc;
  xd[fc->nchw ? 2 : 1] = h, yd[fc->nchw ? 2 : 1] = oh;
  xd[fc->nchw ? 3 : 2] = w, yd[fc->nchw ? 3 : 2] = ow;
  gc_arg args[4] = {gc_fed(dt, 4, xd, -1, 1), gc_fed(dt, 4, fd, -1, 1), gc_fed(dt, 1, &oc, -1, 1),
                    add ? gc_fed(dt, 4, yd, -1, 1) : GC_FED(NULL)};
  gc_op o = fused_op(fc->ops, fc->n_ops, fc->nchw, 1 + add, st, dil);
  char label[128];
  snprintf(label, sizeof label, "_FusedConv2D case %d dtype %d", (int)(fc - fused_cases), (int)dt);
  gc_check(&o, args, 3 + add, dt == TF_DOUBLE ? 1e-10 : 1e-4, label);
  gc_free_args(args, 4);
}

static void fused_conv2d_matches_cpu(void) {
  gc_need_gpu();
  for (int c = 0; c < N_FUSED; c++) {
    fused_check(&fused_cases[c], TF_FLOAT);
    fused_check(&fused_cases[c], TF_DOUBLE);
  }
}

/* A fusion the shared parse does not take fails on both devices with its text; so does a bias
 * of the wrong size. */
static void fused_conv2d_reports_cpu_errors(void) {
  gc_need_gpu();
  int64_t xd[4] = {1, 5, 5, 2}, fd[4] = {3, 3, 2, 4}, oc = 4, bad = 3, st[4], dil[4];
  static const char *const bn[2] = {"BiasAdd", "FusedBatchNorm"};
  gc_op o = fused_op(bn, 2, 0, 1, st, dil);
  gc_arg a[3] = {gc_fed(TF_FLOAT, 4, xd, -1, 1), gc_fed(TF_FLOAT, 4, fd, -1, 1), gc_fed(TF_FLOAT, 1, &oc, -1, 1)};
  gc_check_error(&o, a, 3, TF_UNIMPLEMENTED, "Fusion is not implemented: [BiasAdd,FusedBatchNorm]", "fusion");
  gc_free_args(a, 3);
  static const char *const ba[1] = {"BiasAdd"};
  gc_op ob = fused_op(ba, 1, 0, 1, st, dil);
  gc_arg b[3] = {gc_fed(TF_FLOAT, 4, xd, -1, 1), gc_fed(TF_FLOAT, 4, fd, -1, 1), gc_fed(TF_FLOAT, 1, &bad, -1, 1)};
  gc_check_error(&ob, b, 3, TF_INVALID_ARGUMENT, "Must provide as many biases as the last dimension", "bias size");
  gc_free_args(b, 3);
}

/* ---- CropAndResize ---- */

/* Boxes: inside, flipped in both axes, reaching outside the image, a degenerate point. */
static TF_Tensor *crop_boxes(void) {
  static const float v[5][4] = {
      {0.1f, 0.2f, 0.8f, 0.9f}, {0.9f, 0.7f, 0.05f, 0.1f}, {-0.3f, -0.2f, 1.2f, 1.4f}, {0.5f, 0.5f, 0.5f, 0.5f},
      {0.0f, 0.0f, 1.0f, 1.0f}};
  int64_t d[2] = {5, 4};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, d, 2, sizeof v);
  memcpy(TF_TensorData(t), v, sizeof v);
  return t;
}

static TF_Tensor *crop_ind(void) { return gc_ints((int32_t[]){1, 0, 2, 1, 0}, 5); }

static void crop_check(TF_DataType dt, int nearest, int ch, int cw) {
  int half = dt == TF_HALF;
  TF_DataType feed = half ? TF_FLOAT : dt;
  int64_t img[4] = {3, 6, 7, 4}, gd[4] = {5, ch, cw, 4};
  const char *method = nearest ? "nearest" : "bilinear";
  char label[128];
  snprintf(label, sizeof label, "CropAndResize %s dtype %d crop %dx%d", method, (int)dt, ch, cw);
  gc_op f = {.type = "CropAndResize", .half = half, .half_args = 1u,
             .attrs = {GC_STR("method", method), GC_FLOAT("extrapolation_value", -0.75)}};
  gc_arg a[4] = {gc_fed(feed, 4, img, -2, 2), GC_FED(crop_boxes()), GC_FED(crop_ind()),
                 GC_CONST(gc_ints((int32_t[]){ch, cw}, 2))};
  gc_check(&f, a, 4, half ? 5e-3 : 1e-6, label);
  gc_free_args(a, 4);
  snprintf(label, sizeof label, "CropAndResizeGradImage %s dtype %d crop %dx%d", method, (int)dt, ch, cw);
  gc_op gi = {.type = "CropAndResizeGradImage", .attrs = {GC_STR("method", method), GC_TYPE("T", dt)}};
  gc_arg b[4] = {gc_fed(TF_FLOAT, 4, gd, -1, 1), GC_FED(crop_boxes()), GC_FED(crop_ind()),
                 GC_CONST(gc_ints((int32_t[]){3, 6, 7, 4}, 4))};
  gc_check(&gi, b, 4, half ? 2e-2 : dt == TF_DOUBLE ? 1e-10 : 1e-5, label);
  gc_free_args(b, 4);
  if (nearest) return; /* TF's box gradient is the bilinear one */
  snprintf(label, sizeof label, "CropAndResizeGradBoxes dtype %d crop %dx%d", (int)dt, ch, cw);
  gc_op gb = {.type = "CropAndResizeGradBoxes", .half = half, .half_args = 1u << 1};
  gc_arg c[4] = {gc_fed(TF_FLOAT, 4, gd, -1, 1), gc_fed(feed, 4, img, -2, 2), GC_FED(crop_boxes()),
                 GC_FED(crop_ind())};
  gc_check(&gb, c, 4, half ? 2e-2 : 1e-5, label);
  gc_free_args(c, 4);
}

static void crop_and_resize_matches_cpu(void) {
  gc_need_gpu();
  static const int sizes[3][2] = {{4, 5}, {1, 3}, {3, 1}};
  for (int k = 0; k < 3; k++)
    for (int nearest = 0; nearest < 2; nearest++) {
      crop_check(TF_FLOAT, nearest, sizes[k][0], sizes[k][1]);
      crop_check(TF_DOUBLE, nearest, sizes[k][0], sizes[k][1]);
      crop_check(TF_HALF, nearest, sizes[k][0], sizes[k][1]);
    }
}

static void crop_and_resize_reports_cpu_errors(void) {
  gc_need_gpu();
  int64_t img[4] = {3, 6, 7, 4};
  gc_op f = {.type = "CropAndResize", .attrs = {GC_STR("method", "bilinear")}};
  gc_arg a[4] = {gc_fed(TF_FLOAT, 4, img, -1, 1), GC_FED(crop_boxes()), GC_FED(gc_ints((int32_t[]){1, 0, 3, 1, 0}, 5)),
                 GC_CONST(gc_ints((int32_t[]){2, 2}, 2))};
  gc_check_error(&f, a, 4, TF_OUT_OF_RANGE, "box_index has values outside [0, batch_size)", "box index");
  TF_DeleteTensor(a[3].t);
  a[3] = GC_CONST(gc_ints((int32_t[]){0, 2}, 2));
  gc_check_error(&f, a, 4, TF_INVALID_ARGUMENT, "crop dimensions must be positive", "crop size");
  gc_free_args(a, 4);
  int64_t gd[4] = {5, 2, 2, 4};
  gc_op gi = {.type = "CropAndResizeGradImage", .attrs = {GC_STR("method", "bilinear"), GC_TYPE("T", TF_FLOAT)}};
  gc_arg b[4] = {gc_fed(TF_FLOAT, 4, gd, -1, 1), GC_FED(crop_boxes()), GC_FED(gc_ints((int32_t[]){1, 0, 2, -1, 0}, 5)),
                 GC_CONST(gc_ints((int32_t[]){3, 6, 7, 4}, 4))};
  gc_check_error(&gi, b, 4, TF_OUT_OF_RANGE, "box_index has values outside [0, batch_size)", "grad image box index");
  gc_free_args(b, 4);
  int64_t img5[4] = {3, 6, 7, 5};
  gc_op gb = {.type = "CropAndResizeGradBoxes"};
  gc_arg c[4] = {gc_fed(TF_FLOAT, 4, gd, -1, 1), gc_fed(TF_FLOAT, 4, img5, -1, 1), GC_FED(crop_boxes()),
                 GC_FED(crop_ind())};
  gc_check_error(&gb, c, 4, TF_INVALID_ARGUMENT, "image, grads depth differ", "grad boxes depth");
  gc_free_args(c, 4);
}

static const tfc_test tests[] = {
    TFC_TEST(conv3d_matches_cpu_ndhwc),
    TFC_TEST(conv3d_ncdhw_matches_cpu_ndhwc),
    TFC_TEST(conv3d_reports_cpu_errors),
    TFC_TEST(conv3d_ncdhw_is_refused_on_cpu),
    TFC_TEST(pool3d_matches_cpu),
    TFC_TEST(max_pool3d_grad_sends_ties_to_every_maximum),
    TFC_TEST(pool3d_reports_cpu_errors),
    TFC_TEST(lrn_matches_cpu),
    TFC_TEST(lrn_reports_cpu_errors),
    TFC_TEST(fused_conv2d_matches_cpu),
    TFC_TEST(fused_conv2d_reports_cpu_errors),
    TFC_TEST(crop_and_resize_matches_cpu),
    TFC_TEST(crop_and_resize_reports_cpu_errors),
    {0},
};

TFC_TEST_MAIN(tests)

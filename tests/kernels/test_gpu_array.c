/*
 * GPU array, state and training kernel tests: each kernel of kernels_array_gpu.c,
 * kernels_state_gpu.c and kernels_training_gpu.c against its CPU kernel on the same inputs,
 * through a session. A graph feeds CPU placeholders into two copies of the op, one pinned to
 * /device:CPU:0 and one to /device:GPU:0 (no soft placement, so a missing GPU kernel is an
 * error rather than a silent CPU run); shape and axis arguments are CPU int32 constants, as
 * a graph's shape math is. Copies must match bit for bit; arithmetic within a tolerance per
 * type. Sizes are odd (7, 13, 1023), axes negative where the op allows it.
 *
 * Variables: the same optimizer steps on a CPU and a GPU variable, compared after several
 * steps; and an int32 VariableV2 requested on the GPU lands on the CPU under soft placement.
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/gpu/gpu_platform.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

#define CPU "/device:CPU:0"
#define GPU "/device:GPU:0"

static void need_gpu(void) {
  const tfc_gpu_platform *cuda = tfc_gpu_platform_cuda();
  if (!cuda) tfc_test_skip("this build has no CUDA (nvcc was not found): the CUDA kernels are not built");
  if (tfc_gpu_platform_get() != cuda) tfc_test_skip("the GPU platform in use is not CUDA");
  if (cuda->device_count() == 0) tfc_test_skip("no CUDA GPU on this machine");
}

/* ---- graph building ---- */

static TF_Operation *finish(TF_OperationDescription *d, int line) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, line, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static TF_Output placeholder(TF_Graph *g, const char *name, TF_DataType dt) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetDevice(d, CPU);
  TF_SetAttrType(d, "dtype", dt);
  return (TF_Output){finish(d, __LINE__), 0};
}

/* A CPU int32 constant (a vector of n, or a scalar when n < 0). */
static TF_Output ints(TF_Graph *g, const char *name, const int32_t *v, int n) {
  int64_t dim = n;
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, &dim, n < 0 ? 0 : 1, sizeof(int32_t) * (size_t)(n < 0 ? 1 : n));
  memcpy(TF_TensorData(t), v, sizeof(int32_t) * (size_t)(n < 0 ? 1 : n));
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetDevice(d, CPU);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_SetAttrTensor(d, "value", t, s);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return (TF_Output){finish(d, __LINE__), 0};
}

/* One op: inputs, an optional list input (first n_list of in), attrs. */
typedef struct op_spec {
  const char *type;
  int list; /* inputs [0, list) form one list input (AddN, Pack, ConcatV2's values) */
  const char *int_attr[2];
  int64_t int_val[2];
  int num_split; /* Split/SplitV/Unpack: outputs to compare */
  const char *num_attr;
  const char *type_attr;
  TF_DataType type_val;
} op_spec;

static TF_Operation *add_op(TF_Graph *g, const op_spec *o, const char *name, const char *dev, const TF_Output *in,
                            int n_in) {
  TF_OperationDescription *d = TF_NewOperation(g, o->type, name);
  TF_SetDevice(d, dev);
  int i = 0;
  if (o->list) {
    TF_AddInputList(d, in, o->list);
    i = o->list;
  }
  for (; i < n_in; i++) TF_AddInput(d, in[i]);
  for (int k = 0; k < 2; k++)
    if (o->int_attr[k]) TF_SetAttrInt(d, o->int_attr[k], o->int_val[k]);
  if (o->num_attr) TF_SetAttrInt(d, o->num_attr, o->num_split);
  if (o->type_attr) TF_SetAttrType(d, o->type_attr, o->type_val);
  return finish(d, __LINE__);
}

/* ---- data ---- */

static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static TF_Tensor *make(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * TF_DataTypeSize(dt));
  for (int64_t i = 0; i < n; i++) {
    double v = lo + (hi - lo) * uniform();
    switch (dt) {
      case TF_FLOAT: ((float *)TF_TensorData(t))[i] = (float)v; break;
      case TF_DOUBLE: ((double *)TF_TensorData(t))[i] = v; break;
      case TF_INT64: ((int64_t *)TF_TensorData(t))[i] = (int64_t)floor(v); break;
      case TF_INT32: ((int32_t *)TF_TensorData(t))[i] = (int32_t)floor(v); break;
      case TF_BOOL: ((unsigned char *)TF_TensorData(t))[i] = v >= 0.5; break;
      default: tfc_test_fail(__FILE__, __LINE__, "no generator for dtype %d", (int)dt);
    }
  }
  return t;
}

static double value_at(const TF_Tensor *t, int64_t i) {
  switch (TF_TensorType(t)) {
    case TF_FLOAT: return ((const float *)TF_TensorData(t))[i];
    case TF_DOUBLE: return ((const double *)TF_TensorData(t))[i];
    case TF_INT64: return (double)((const int64_t *)TF_TensorData(t))[i];
    case TF_INT32: return ((const int32_t *)TF_TensorData(t))[i];
    case TF_BOOL: return ((const unsigned char *)TF_TensorData(t))[i];
    default: tfc_test_fail(__FILE__, __LINE__, "cannot compare dtype %d", (int)TF_TensorType(t));
  }
}

/* gpu ~= cpu: same dtype and shape; |g - c| <= tol * max(1, |c|). */
static void compare(const char *what, const TF_Tensor *gpu, const TF_Tensor *cpu, double tol) {
  if (TF_TensorType(gpu) != TF_TensorType(cpu))
    tfc_test_fail(__FILE__, __LINE__, "%s: dtype %d on GPU, %d on CPU", what, (int)TF_TensorType(gpu),
                  (int)TF_TensorType(cpu));
  if (TF_NumDims(gpu) != TF_NumDims(cpu))
    tfc_test_fail(__FILE__, __LINE__, "%s: rank %d on GPU, %d on CPU", what, TF_NumDims(gpu), TF_NumDims(cpu));
  for (int d = 0; d < TF_NumDims(cpu); d++)
    if (TF_Dim(gpu, d) != TF_Dim(cpu, d))
      tfc_test_fail(__FILE__, __LINE__, "%s: dim %d is %lld on GPU, %lld on CPU", what, d, (long long)TF_Dim(gpu, d),
                    (long long)TF_Dim(cpu, d));
  int64_t n = TF_TensorElementCount(cpu);
  for (int64_t i = 0; i < n; i++) {
    double g = value_at(gpu, i), c = value_at(cpu, i);
    if (isnan(c) && isnan(g)) continue;
    double scale = fabs(c) > 1 ? fabs(c) : 1;
    if (!(fabs(g - c) <= tol * scale))
      tfc_test_fail(__FILE__, __LINE__, "%s: element %lld of %lld is %.17g on GPU, %.17g on CPU", what, (long long)i,
                    (long long)n, g, c);
  }
}

/* ---- one comparison ---- */

#define MAX_IN 6
typedef struct arg {
  TF_Tensor *fed; /* a fed data input (owned by the case), or NULL for a constant */
  const int32_t *ints;
  int n_ints; /* < 0: scalar */
} arg;

/* Runs o on the CPU and on the GPU with the same inputs, compares every output. */
static void check_op(const op_spec *o, const arg *args, int n_args, double tol, const char *label) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output in[MAX_IN], feeds[MAX_IN];
  TF_Tensor *vals[MAX_IN];
  int n_feeds = 0;
  for (int i = 0; i < n_args; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    if (args[i].fed) {
      in[i] = feeds[n_feeds] = placeholder(g, name, TF_TensorType(args[i].fed));
      vals[n_feeds++] = args[i].fed;
    } else {
      in[i] = ints(g, name, args[i].ints, args[i].n_ints);
    }
  }
  TF_Operation *oc = add_op(g, o, "on_cpu", CPU, in, n_args), *og = add_op(g, o, "on_gpu", GPU, in, n_args);
  int n_out = o->num_split ? o->num_split : 1;
  TF_Output fetch[16];
  TF_Tensor *out[16] = {0};
  for (int k = 0; k < n_out; k++) {
    fetch[2 * k] = (TF_Output){og, k};
    fetch[2 * k + 1] = (TF_Output){oc, k};
  }
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_SessionRun(sess, NULL, feeds, vals, n_feeds, fetch, out, 2 * n_out, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  const char *dev = TFC_SessionOperationDevice(sess, og, s);
  if (!dev || !strstr(dev, "GPU:0")) tfc_test_fail(__FILE__, __LINE__, "%s: placed on %s", label, dev ? dev : "?");
  for (int k = 0; k < n_out; k++) {
    char what[96];
    snprintf(what, sizeof what, "%s output %d", label, k);
    compare(what, out[2 * k], out[2 * k + 1], tol);
    TF_DeleteTensor(out[2 * k]);
    TF_DeleteTensor(out[2 * k + 1]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static arg fed(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi) {
  return (arg){make(dt, nd, dims, lo, hi), NULL, 0};
}
static void free_args(arg *a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].fed) TF_DeleteTensor(a[i].fed);
}

static const TF_DataType data_types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_BOOL};
#define N_DATA 4

/* ---- tests: array ---- */

static void shape_ops_match_cpu(void) {
  need_gpu();
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    static const int32_t shape[] = {13, -1}, dim[] = {-2};
    arg a[2] = {fed(dt, 3, (int64_t[]){7, 1, 13}, -3, 3), {NULL, shape, 2}};
    check_op(&(op_spec){.type = "Reshape"}, a, 2, 0, "Reshape");
    a[1] = (arg){NULL, dim, -1};
    check_op(&(op_spec){.type = "ExpandDims"}, a, 2, 0, "ExpandDims");
    check_op(&(op_spec){.type = "Squeeze"}, a, 1, 0, "Squeeze");
    check_op(&(op_spec){.type = "Shape"}, a, 1, 0, "Shape");
    check_op(&(op_spec){.type = "Size"}, a, 1, 0, "Size");
    check_op(&(op_spec){.type = "Rank"}, a, 1, 0, "Rank");
    check_op(&(op_spec){.type = "ZerosLike"}, a, 1, 0, "ZerosLike");
    check_op(&(op_spec){.type = "OnesLike"}, a, 1, 0, "OnesLike");
    free_args(a, 2);
  }
}

static void fill_cast_addn_select_match_cpu(void) {
  need_gpu();
  static const int32_t dims[] = {7, 13};
  arg f[2] = {{NULL, dims, 2}, fed(TF_FLOAT, 0, NULL, -2, 2)};
  check_op(&(op_spec){.type = "Fill"}, f, 2, 0, "Fill");
  free_args(f, 2);
  static const TF_DataType cast_types[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64, TF_BOOL};
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++) {
      arg x = fed(cast_types[a], 1, (int64_t[]){1023}, -40, 40);
      char label[48];
      snprintf(label, sizeof label, "Cast %d to %d", (int)cast_types[a], (int)cast_types[b]);
      check_op(&(op_spec){.type = "Cast", .type_attr = "DstT", .type_val = cast_types[b]}, &x, 1, 0, label);
      free_args(&x, 1);
    }
  for (int t = 0; t < 3; t++) {
    TF_DataType dt = data_types[t];
    int64_t d[2] = {7, 13};
    arg a[3] = {fed(dt, 2, d, -9, 9), fed(dt, 2, d, -9, 9), fed(dt, 2, d, -9, 9)};
    check_op(&(op_spec){.type = "AddN", .list = 3}, a, 3, 1e-6, "AddN");
    /* Select: element-wise, one cond per row, a scalar cond. */
    arg sel[3] = {fed(TF_BOOL, 2, d, 0, 1), a[0], a[1]};
    check_op(&(op_spec){.type = "Select"}, sel, 3, 0, "Select element-wise");
    free_args(sel, 1);
    sel[0] = fed(TF_BOOL, 1, d, 0, 1);
    check_op(&(op_spec){.type = "Select"}, sel, 3, 0, "Select rows");
    free_args(sel, 1);
    sel[0] = fed(TF_BOOL, 0, NULL, 0, 1);
    check_op(&(op_spec){.type = "Select"}, sel, 3, 0, "Select scalar");
    free_args(sel, 1);
    free_args(a, 3);
  }
}

static void join_and_split_ops_match_cpu(void) {
  need_gpu();
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    static const int32_t axis_neg[] = {-2}, axis1[] = {1}, sizes[] = {2, -1, 4};
    arg c[4] = {fed(dt, 3, (int64_t[]){3, 5, 7}, -9, 9), fed(dt, 3, (int64_t[]){3, 1, 7}, -9, 9),
                fed(dt, 3, (int64_t[]){3, 9, 7}, -9, 9), {NULL, axis_neg, -1}};
    check_op(&(op_spec){.type = "ConcatV2", .list = 3}, c, 4, 0, "ConcatV2 axis -2");
    free_args(c, 3);
    arg p[3] = {fed(dt, 2, (int64_t[]){7, 13}, -9, 9), fed(dt, 2, (int64_t[]){7, 13}, -9, 9),
                fed(dt, 2, (int64_t[]){7, 13}, -9, 9)};
    check_op(&(op_spec){.type = "Pack", .list = 3, .int_attr = {"axis"}, .int_val = {-2}}, p, 3, 0, "Pack axis -2");
    check_op(&(op_spec){.type = "Pack", .list = 3, .int_attr = {"axis"}, .int_val = {2}}, p, 3, 0, "Pack axis 2");
    free_args(p, 3);
    arg u = fed(dt, 3, (int64_t[]){7, 3, 13}, -9, 9);
    check_op(&(op_spec){.type = "Unpack", .num_split = 3, .num_attr = "num", .int_attr = {"axis"}, .int_val = {-2}}, &u, 1, 0,
             "Unpack axis -2");
    free_args(&u, 1);
    arg sp[2] = {{NULL, axis1, -1}, fed(dt, 3, (int64_t[]){3, 12, 7}, -9, 9)};
    check_op(&(op_spec){.type = "Split", .num_split = 4, .num_attr = "num_split"}, sp, 2, 0, "Split");
    arg sv[3] = {sp[1], {NULL, sizes, 3}, {NULL, axis1, -1}};
    check_op(&(op_spec){.type = "SplitV", .num_split = 3, .num_attr = "num_split"}, sv, 3, 0, "SplitV");
    free_args(sp, 2);
  }
}

static void window_ops_match_cpu(void) {
  need_gpu();
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    static const int32_t perm[] = {2, 0, 3, 1}, begin[] = {1, 0, 2, 3}, size[] = {5, -1, 1, 4};
    static const int32_t sb[] = {6, 1, 0}, se[] = {0, 0, 7}, ss[] = {-2, 1, 3}, mult[] = {2, 1, 3, 2};
    arg x[4] = {fed(dt, 4, (int64_t[]){7, 3, 5, 13}, -9, 9), {NULL, perm, 4}};
    check_op(&(op_spec){.type = "Transpose"}, x, 2, 0, "Transpose");
    x[1] = (arg){NULL, begin, 4};
    x[2] = (arg){NULL, size, 4};
    check_op(&(op_spec){.type = "Slice"}, x, 3, 0, "Slice");
    x[1] = (arg){NULL, sb, 3};
    x[2] = (arg){NULL, se, 3};
    x[3] = (arg){NULL, ss, 3};
    /* begin_mask on dim 2, end_mask on dim 1, shrink dim 1: x[6:0:-2, 1, ::3]. */
    check_op(&(op_spec){.type = "StridedSlice", .int_attr = {"shrink_axis_mask", "begin_mask"}, .int_val = {2, 4}}, x, 4, 0,
             "StridedSlice");
    x[1] = (arg){NULL, mult, 4};
    check_op(&(op_spec){.type = "Tile"}, x, 2, 0, "Tile");
    free_args(x, 1);
  }
}

static void gather_and_one_hot_match_cpu(void) {
  need_gpu();
  static const int32_t axis[] = {-2}, depth[] = {11};
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    for (int it = 0; it < 2; it++) {
      TF_DataType idt = it ? TF_INT64 : TF_INT32;
      arg g[3] = {fed(dt, 3, (int64_t[]){7, 9, 13}, -9, 9), fed(idt, 2, (int64_t[]){4, 5}, 0, 9), {NULL, axis, -1}};
      check_op(&(op_spec){.type = "GatherV2"}, g, 3, 0, "GatherV2 axis -2");
      free_args(g, 2);
      g[0] = fed(dt, 2, (int64_t[]){7, 13}, -9, 9);
      g[1] = fed(idt, 1, (int64_t[]){23}, 0, 7);
      check_op(&(op_spec){.type = "Gather"}, g, 2, 0, "Gather");
      free_args(g, 2);
      /* Indices past depth and negative ones give all off_value. */
      arg oh[4] = {fed(idt, 2, (int64_t[]){3, 7}, -2, 13), {NULL, depth, -1}, fed(dt, 0, NULL, 1, 2),
                   fed(dt, 0, NULL, -2, -1)};
      check_op(&(op_spec){.type = "OneHot", .int_attr = {"axis"}, .int_val = {1}}, oh, 4, 0, "OneHot axis 1");
      free_args(oh, 4);
    }
  }
}

static void gpu_errors_carry_cpu_texts(void) {
  need_gpu();
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  static const int32_t shape[] = {5, -1};
  TF_Output x = placeholder(g, "x", TF_FLOAT), sh = ints(g, "sh", shape, 2);
  TF_Output in[2] = {x, sh};
  TF_Operation *r = add_op(g, &(op_spec){.type = "Reshape"}, "r", GPU, in, 2);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Tensor *v = make(TF_FLOAT, 1, (int64_t[]){7}, 0, 1), *out = NULL;
  TF_Output fetch = {r, 0};
  TF_SessionRun(sess, NULL, &x, &v, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s),
                      "Input to reshape is a tensor with 7 values, but the requested shape requires a multiple of 5");
  TF_DeleteTensor(v);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- tests: variables and training ---- */

typedef struct train_case {
  const char *op;
  int n_slots;
  int n_scalars; /* hyper-parameters before the gradient (after var and slots) */
  double scalars[8];
  int grad_at;   /* index of grad among the scalars (Adam: last; others: after lr...) */
  int n_after;   /* scalars after the gradient (Momentum's momentum) */
  double after;
  const char *bool_attr;
} train_case;

/* Builds var + slots on dev, initialized from the same fed values, one Apply op and an
 * AssignAdd/AssignSub on the variable; returns the Apply op and (out) the init ops. */
static TF_Operation *build_train(TF_Graph *g, const train_case *tc, const char *dev, const char *p, TF_DataType dt,
                                 TF_Output *init_vals, TF_Output grad, TF_Operation **inits, TF_Operation **vars) {
  TF_Output in[12];
  int n = 0;
  char name[32];
  for (int k = 0; k <= tc->n_slots; k++) {
    snprintf(name, sizeof name, "%s_v%d", p, k);
    TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", name);
    TF_SetDevice(d, dev);
    TF_SetAttrType(d, "dtype", dt);
    TF_SetAttrShape(d, "shape", (int64_t[]){7, 13}, 2);
    vars[k] = finish(d, __LINE__);
    snprintf(name, sizeof name, "%s_init%d", p, k);
    d = TF_NewOperation(g, "Assign", name);
    TF_SetDevice(d, dev);
    TF_AddInput(d, (TF_Output){vars[k], 0});
    TF_AddInput(d, init_vals[k]);
    inits[k] = finish(d, __LINE__);
    in[n++] = (TF_Output){vars[k], 0};
  }
  for (int i = 0; i < tc->n_scalars + tc->n_after + 1; i++) {
    if (i == tc->grad_at) {
      in[n++] = grad;
      continue;
    }
    int si = i < tc->grad_at ? i : i - 1;
    double v = si < tc->n_scalars ? tc->scalars[si] : tc->after;
    snprintf(name, sizeof name, "%s_s%d", p, i);
    TF_Tensor *t = TF_AllocateTensor(dt, NULL, 0, TF_DataTypeSize(dt));
    if (dt == TF_FLOAT) *(float *)TF_TensorData(t) = (float)v;
    else *(double *)TF_TensorData(t) = v;
    TF_Status *s = TF_NewStatus();
    TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
    TF_SetDevice(d, dev);
    TF_SetAttrType(d, "dtype", dt);
    TF_SetAttrTensor(d, "value", t, s);
    TF_DeleteTensor(t);
    TF_DeleteStatus(s);
    in[n++] = (TF_Output){finish(d, __LINE__), 0};
  }
  snprintf(name, sizeof name, "%s_apply", p);
  TF_OperationDescription *d = TF_NewOperation(g, tc->op, name);
  TF_SetDevice(d, dev);
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  if (tc->bool_attr) TF_SetAttrBool(d, tc->bool_attr, 1);
  return finish(d, __LINE__);
}

static void run_targets(TF_Session *sess, TF_Output *feeds, TF_Tensor **vals, int n_feeds, TF_Operation **targets,
                        int n_targets, TF_Status *s) {
  TF_SessionRun(sess, NULL, feeds, vals, n_feeds, NULL, NULL, 0, (const TF_Operation *const *)targets, n_targets, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", TF_Message(s));
}

static void check_training(const train_case *tc, TF_DataType dt) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t dims[2] = {7, 13};
  TF_Output feeds[5];
  TF_Tensor *vals[5];
  int nv = tc->n_slots + 1;
  for (int k = 0; k < nv; k++) {
    char name[16];
    snprintf(name, sizeof name, "init%d", k);
    feeds[k] = placeholder(g, name, dt);
    vals[k] = make(dt, 2, dims, k ? 0.1 : -1, 1); /* slots positive: Adagrad and RMSProp take roots */
  }
  feeds[nv] = placeholder(g, "grad", dt);
  vals[nv] = make(dt, 2, dims, -1, 1);
  TF_Operation *ic[4], *ig[4], *vc[4], *vg[4];
  TF_Operation *ac = build_train(g, tc, CPU, "cpu", dt, feeds, feeds[nv], ic, vc);
  TF_Operation *ag = build_train(g, tc, GPU, "gpu", dt, feeds, feeds[nv], ig, vg);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Operation *inits[8];
  for (int k = 0; k < nv; k++) inits[k] = ic[k], inits[nv + k] = ig[k];
  run_targets(sess, feeds, vals, nv, inits, 2 * nv, s);
  TF_Operation *steps[2] = {ac, ag};
  for (int step = 0; step < 5; step++) run_targets(sess, feeds + nv, vals + nv, 1, steps, 2, s);
  const char *dev = TFC_SessionOperationDevice(sess, ag, s);
  if (!dev || !strstr(dev, "GPU:0")) tfc_test_fail(__FILE__, __LINE__, "%s placed on %s", tc->op, dev ? dev : "?");
  for (int k = 0; k < nv; k++) {
    TF_Output f[2] = {{vg[k], 0}, {vc[k], 0}};
    TF_Tensor *out[2] = {0};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, f, out, 2, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", TF_Message(s));
    char what[64];
    snprintf(what, sizeof what, "%s dtype %d variable %d", tc->op, (int)dt, k);
    compare(what, out[0], out[1], dt == TF_DOUBLE ? 1e-12 : 1e-5);
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[1]);
  }
  for (int k = 0; k <= nv; k++) TF_DeleteTensor(vals[k]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void optimizers_on_gpu_match_cpu_after_several_steps(void) {
  need_gpu();
  static const train_case cases[] = {
      {"ApplyGradientDescent", 0, 1, {0.1}, 1, 0, 0, NULL},
      {"ApplyMomentum", 1, 1, {0.05}, 1, 1, 0.9, NULL},
      {"ApplyMomentum", 1, 1, {0.05}, 1, 1, 0.9, "use_nesterov"},
      {"ApplyAdam", 2, 6, {0.9, 0.999, 0.01, 0.9, 0.999, 1e-7}, 6, 0, 0, NULL},
      {"ApplyAdam", 2, 6, {0.81, 0.998, 0.01, 0.9, 0.999, 1e-7}, 6, 0, 0, "use_nesterov"},
      {"ApplyAdagrad", 1, 1, {0.1}, 1, 0, 0, NULL},
      {"ApplyRMSProp", 2, 4, {0.01, 0.9, 0.5, 1e-6}, 4, 0, 0, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    check_training(&cases[i], TF_FLOAT);
    check_training(&cases[i], TF_DOUBLE);
  }
}

static void assign_add_and_sub_on_gpu_match_cpu(void) {
  need_gpu();
  static const char *ops[2] = {"AssignAdd", "AssignSub"};
  for (int k = 0; k < 2; k++) {
    /* ApplyGradientDescent's graph with the Apply replaced: var op= value, three times. */
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    int64_t dims[1] = {1023};
    TF_Output x = placeholder(g, "x", TF_FLOAT);
    TF_Tensor *v = make(TF_FLOAT, 1, dims, -1, 1);
    TF_Operation *var[2], *init[2], *upd[2];
    for (int d = 0; d < 2; d++) {
      const char *dev = d ? GPU : CPU;
      char name[16];
      snprintf(name, sizeof name, "v%d", d);
      TF_OperationDescription *od = TF_NewOperation(g, "VariableV2", name);
      TF_SetDevice(od, dev);
      TF_SetAttrType(od, "dtype", TF_FLOAT);
      TF_SetAttrShape(od, "shape", dims, 1);
      var[d] = finish(od, __LINE__);
      snprintf(name, sizeof name, "init%d", d);
      od = TF_NewOperation(g, "Assign", name);
      TF_SetDevice(od, dev);
      TF_AddInput(od, (TF_Output){var[d], 0});
      TF_AddInput(od, x);
      init[d] = finish(od, __LINE__);
      snprintf(name, sizeof name, "upd%d", d);
      od = TF_NewOperation(g, ops[k], name);
      TF_SetDevice(od, dev);
      TF_AddInput(od, (TF_Output){var[d], 0});
      TF_AddInput(od, x);
      upd[d] = finish(od, __LINE__);
    }
    TF_SessionOptions *opts = TF_NewSessionOptions();
    TF_Session *sess = TF_NewSession(g, opts, s);
    run_targets(sess, &x, &v, 1, init, 2, s);
    for (int i = 0; i < 3; i++) run_targets(sess, &x, &v, 1, upd, 2, s);
    TF_Output f[2] = {{var[1], 0}, {var[0], 0}};
    TF_Tensor *out[2] = {0};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, f, out, 2, NULL, 0, NULL, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    compare(ops[k], out[0], out[1], 0);
    /* 1 + 3 (AssignAdd) or 1 - 3 (AssignSub) times the value. */
    double want = (k ? -2.0 : 4.0) * ((float *)TF_TensorData(v))[5];
    if (fabs(value_at(out[1], 5) - want) > 1e-5)
      tfc_test_fail(__FILE__, __LINE__, "%s: %g, want %g", ops[k], value_at(out[1], 5), want);
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[1]);
    TF_DeleteTensor(v);
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
    TF_DeleteSessionOptions(opts);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
}

static void int32_variable_on_gpu_lands_on_cpu_with_soft_placement(void) {
  need_gpu();
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", "global_step");
  TF_SetDevice(d, GPU);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Operation *var = finish(d, __LINE__);
  static const int32_t zero[] = {0};
  TF_Output z = ints(g, "zero", zero, -1);
  d = TF_NewOperation(g, "Assign", "init");
  TF_SetDevice(d, GPU);
  TF_AddInput(d, (TF_Output){var, 0});
  TF_AddInput(d, z);
  TF_Operation *init = finish(d, __LINE__);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TFC_SetAllowSoftPlacement(opts, 1);
  TF_Session *sess = TF_NewSession(g, opts, s);
  run_targets(sess, NULL, NULL, 0, &init, 1, s);
  const char *dev = TFC_SessionOperationDevice(sess, var, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_CONTAINS(dev, "/device:CPU:0");
  dev = TFC_SessionOperationDevice(sess, init, s);
  EXPECT_CONTAINS(dev, "/device:CPU:0");
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(shape_ops_match_cpu),
    TFC_TEST(fill_cast_addn_select_match_cpu),
    TFC_TEST(join_and_split_ops_match_cpu),
    TFC_TEST(window_ops_match_cpu),
    TFC_TEST(gather_and_one_hot_match_cpu),
    TFC_TEST(gpu_errors_carry_cpu_texts),
    TFC_TEST(optimizers_on_gpu_match_cpu_after_several_steps),
    TFC_TEST(assign_add_and_sub_on_gpu_match_cpu),
    TFC_TEST(int32_variable_on_gpu_lands_on_cpu_with_soft_placement),
    {0},
};

TFC_TEST_MAIN(tests)

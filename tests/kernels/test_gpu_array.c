/*
 * GPU array, state and training kernel tests: each kernel of kernels_array_gpu.c,
 * kernels_state_gpu.c and kernels_training_gpu.c against its CPU kernel on the same inputs,
 * through a session (gpu_compare.h: data fed through CPU placeholders, shape and axis
 * arguments CPU int32 constants as a graph's shape math is, the GPU copy pinned without soft
 * placement so a missing GPU kernel is an error). Copies must match bit for bit; arithmetic
 * within a tolerance per type. Sizes are odd (7, 13, 1023), axes negative where the op allows
 * it. Shape, ShapeN, Size and Rank answer in host memory; ConcatV2's axis is a host-memory
 * input.
 *
 * Variables: the same optimizer steps on a CPU and a GPU variable, compared after several
 * steps; and an int32 VariableV2 requested on the GPU lands on the CPU under soft placement.
 *
 * Without a CUDA build or a GPU every test skips with the reason. The new kernels of
 * kernels_pad_gpu.c are tested in test_gpu_array2.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_compare.c"

static const TF_DataType data_types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_BOOL};
#define N_DATA 4

/* ---- tests: array ---- */

static void shape_ops_match_cpu(void) {
  gc_need_gpu();
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    static const int32_t shape[] = {13, -1}, dim[] = {-2};
    gc_arg a[2] = {gc_fed(dt, 3, (int64_t[]){7, 1, 13}, -3, 3), gc_konst(shape, 2)};
    gc_check(&(gc_op){.type = "Reshape"}, a, 2, 0, "Reshape");
    gc_free_args(a + 1, 1);
    a[1] = gc_konst(dim, -1);
    gc_check(&(gc_op){.type = "ExpandDims"}, a, 2, 0, "ExpandDims");
    gc_free_args(a + 1, 1);
    gc_check(&(gc_op){.type = "Squeeze"}, a, 1, 0, "Squeeze");
    gc_check(&(gc_op){.type = "Shape"}, a, 1, 0, "Shape");
    gc_check(&(gc_op){.type = "Shape", .attrs = {GC_TYPE("out_type", TF_INT64)}}, a, 1, 0, "Shape int64");
    gc_check(&(gc_op){.type = "Size"}, a, 1, 0, "Size");
    gc_check(&(gc_op){.type = "Rank"}, a, 1, 0, "Rank");
    gc_check(&(gc_op){.type = "ZerosLike"}, a, 1, 0, "ZerosLike");
    gc_check(&(gc_op){.type = "OnesLike"}, a, 1, 0, "OnesLike");
    gc_free_args(a, 1);
  }
}

/* Shape, ShapeN, Size and Rank write their outputs from the host: the values must be exact
 * (a device pointer written from the host would crash or give garbage), empty inputs included. */
static void shape_size_rank_answer_exact_values_in_host_memory(void) {
  gc_need_gpu();
  gc_arg a[1] = {gc_fed(TF_FLOAT, 3, (int64_t[]){7, 0, 13}, -1, 1)};
  gc_check(&(gc_op){.type = "Shape"}, a, 1, 0, "Shape of an empty tensor");
  gc_check(&(gc_op){.type = "Size"}, a, 1, 0, "Size of an empty tensor");
  gc_check(&(gc_op){.type = "Rank"}, a, 1, 0, "Rank of an empty tensor");
  gc_free_args(a, 1);
  a[0] = gc_fed(TF_DOUBLE, 0, NULL, -1, 1);
  gc_check(&(gc_op){.type = "Shape"}, a, 1, 0, "Shape of a scalar");
  gc_check(&(gc_op){.type = "Size", .attrs = {GC_TYPE("out_type", TF_INT64)}}, a, 1, 0, "Size int64 of a scalar");
  gc_free_args(a, 1);
  gc_arg n[3] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 13}, -1, 1), gc_fed(TF_FLOAT, 0, NULL, -1, 1),
                 gc_fed(TF_FLOAT, 3, (int64_t[]){3, 0, 5}, -1, 1)};
  gc_check(&(gc_op){.type = "ShapeN", .list = 3, .n_outputs = 3}, n, 3, 0, "ShapeN");
  gc_check(&(gc_op){.type = "ShapeN", .list = 3, .n_outputs = 3, .attrs = {GC_TYPE("out_type", TF_INT64)}}, n, 3, 0,
           "ShapeN int64");
  gc_free_args(n, 3);
}

static void fill_cast_addn_select_match_cpu(void) {
  gc_need_gpu();
  static const int32_t dims[] = {7, 13};
  gc_arg f[2] = {gc_konst(dims, 2), gc_fed(TF_FLOAT, 0, NULL, -2, 2)};
  gc_check(&(gc_op){.type = "Fill"}, f, 2, 0, "Fill");
  gc_free_args(f, 2);
  static const TF_DataType cast_types[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64, TF_BOOL};
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++) {
      gc_arg x = gc_fed(cast_types[a], 1, (int64_t[]){1023}, -40, 40);
      char label[48];
      snprintf(label, sizeof label, "Cast %d to %d", (int)cast_types[a], (int)cast_types[b]);
      gc_check(&(gc_op){.type = "Cast", .attrs = {GC_TYPE("DstT", cast_types[b])}}, &x, 1, 0, label);
      gc_free_args(&x, 1);
    }
  for (int t = 0; t < 3; t++) {
    TF_DataType dt = data_types[t];
    int64_t d[2] = {7, 13};
    gc_arg a[3] = {gc_fed(dt, 2, d, -9, 9), gc_fed(dt, 2, d, -9, 9), gc_fed(dt, 2, d, -9, 9)};
    gc_check(&(gc_op){.type = "AddN", .list = 3}, a, 3, 1e-6, "AddN");
    /* Select: element-wise, one cond per row, a scalar cond (then and else borrowed from a). */
    gc_arg sel[3] = {gc_fed(TF_BOOL, 2, d, 0, 1), a[0], a[1]};
    gc_check(&(gc_op){.type = "Select"}, sel, 3, 0, "Select element-wise");
    gc_free_args(sel, 1);
    sel[0] = gc_fed(TF_BOOL, 1, d, 0, 1);
    gc_check(&(gc_op){.type = "Select"}, sel, 3, 0, "Select rows");
    gc_free_args(sel, 1);
    sel[0] = gc_fed(TF_BOOL, 0, NULL, 0, 1);
    gc_check(&(gc_op){.type = "Select"}, sel, 3, 0, "Select scalar");
    gc_free_args(sel, 1);
    gc_free_args(a, 3);
  }
}

static void join_and_split_ops_match_cpu(void) {
  gc_need_gpu();
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    static const int32_t axis_neg[] = {-2}, axis1[] = {1}, sizes[] = {2, -1, 4};
    gc_arg c[4] = {gc_fed(dt, 3, (int64_t[]){3, 5, 7}, -9, 9), gc_fed(dt, 3, (int64_t[]){3, 1, 7}, -9, 9),
                   gc_fed(dt, 3, (int64_t[]){3, 9, 7}, -9, 9), gc_konst(axis_neg, -1)};
    gc_check(&(gc_op){.type = "ConcatV2", .list = 3}, c, 4, 0, "ConcatV2 axis -2");
    gc_free_args(c, 4);
    gc_arg p[3] = {gc_fed(dt, 2, (int64_t[]){7, 13}, -9, 9), gc_fed(dt, 2, (int64_t[]){7, 13}, -9, 9),
                   gc_fed(dt, 2, (int64_t[]){7, 13}, -9, 9)};
    gc_check(&(gc_op){.type = "Pack", .list = 3, .attrs = {GC_INT("axis", -2)}}, p, 3, 0, "Pack axis -2");
    gc_check(&(gc_op){.type = "Pack", .list = 3, .attrs = {GC_INT("axis", 2)}}, p, 3, 0, "Pack axis 2");
    gc_free_args(p, 3);
    gc_arg u = gc_fed(dt, 3, (int64_t[]){7, 3, 13}, -9, 9);
    gc_check(&(gc_op){.type = "Unpack", .n_outputs = 3, .attrs = {GC_INT("num", 3), GC_INT("axis", -2)}}, &u, 1, 0,
             "Unpack axis -2");
    gc_free_args(&u, 1);
    gc_arg sp[2] = {gc_konst(axis1, -1), gc_fed(dt, 3, (int64_t[]){3, 12, 7}, -9, 9)};
    gc_check(&(gc_op){.type = "Split", .n_outputs = 4, .attrs = {GC_INT("num_split", 4)}}, sp, 2, 0, "Split");
    gc_arg sv[3] = {sp[1], gc_konst(sizes, 3), gc_konst(axis1, -1)};
    gc_check(&(gc_op){.type = "SplitV", .n_outputs = 3, .attrs = {GC_INT("num_split", 3)}}, sv, 3, 0, "SplitV");
    gc_free_args(sv + 1, 2);
    gc_free_args(sp, 2);
  }
}

/* An int32 [rows, cols] tensor of v. */
static TF_Tensor *gc_ints_shaped(const int32_t *v, int64_t rows, int64_t cols) {
  int64_t dims[2] = {rows, cols};
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, 2, (size_t)(rows * cols) * sizeof(int32_t));
  memcpy(TF_TensorData(t), v, (size_t)(rows * cols) * sizeof(int32_t));
  return t;
}

static void window_ops_match_cpu(void) {
  gc_need_gpu();
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    static const int32_t perm[] = {2, 0, 3, 1}, begin[] = {1, 0, 2, 3}, size[] = {5, -1, 1, 4};
    static const int32_t sb[] = {6, 1, 0}, se[] = {0, 0, 7}, ss[] = {-2, 1, 3}, mult[] = {2, 1, 3, 2};
    gc_arg x[4] = {gc_fed(dt, 4, (int64_t[]){7, 3, 5, 13}, -9, 9), gc_konst(perm, 4)};
    gc_check(&(gc_op){.type = "Transpose"}, x, 2, 0, "Transpose");
    gc_free_args(x + 1, 1);
    x[1] = gc_konst(begin, 4);
    x[2] = gc_konst(size, 4);
    gc_check(&(gc_op){.type = "Slice"}, x, 3, 0, "Slice");
    gc_free_args(x + 1, 2);
    x[1] = gc_konst(sb, 3);
    x[2] = gc_konst(se, 3);
    x[3] = gc_konst(ss, 3);
    /* begin_mask on dim 2, end_mask on dim 1, shrink dim 1: x[6:0:-2, 1, ::3]. */
    gc_check(&(gc_op){.type = "StridedSlice", .attrs = {GC_INT("shrink_axis_mask", 2), GC_INT("begin_mask", 4)}}, x,
             4, 0, "StridedSlice");
    gc_free_args(x + 1, 3);
    x[1] = gc_konst(mult, 4);
    gc_check(&(gc_op){.type = "Tile"}, x, 2, 0, "Tile");
    gc_free_args(x + 1, 1);
    /* ReverseV2 over no axis, the innermost, the outer two (negative), and all four. */
    static const int32_t rev_inner[] = {3}, rev_outer[] = {-4, 1}, rev_all[] = {0, 1, 2, 3};
    const int32_t *revs[] = {rev_inner, rev_inner, rev_outer, rev_all};
    const int n_revs[] = {0, 1, 2, 4};
    for (int k = 0; k < 4; k++) {
      x[1] = gc_konst(revs[k], n_revs[k]);
      gc_check(&(gc_op){.type = "ReverseV2"}, x, 2, 0, "ReverseV2");
      gc_free_args(x + 1, 1);
    }
    gc_free_args(x, 1);
    /* SpaceToBatchND over the two middle dims of [2, 5, 7, 3] with uneven padding, and
     * BatchToSpaceND of [12, 3, 4, 3] with uneven crops; a 1-D block over [2, 5, 7, 3] too. */
    static const int32_t block2[] = {2, 3}, pads2[] = {1, 0, 0, 2}, crops2[] = {1, 2, 0, 1}, block1[] = {4},
                         pads1[] = {2, 1};
    gc_arg s2b[3] = {gc_fed(dt, 4, (int64_t[]){2, 5, 7, 3}, -9, 9), gc_konst(block2, 2),
                    GC_CONST(gc_ints_shaped(pads2, 2, 2))};
    gc_check(&(gc_op){.type = "SpaceToBatchND"}, s2b, 3, 0, "SpaceToBatchND");
    gc_free_args(s2b + 1, 2);
    s2b[1] = gc_konst(block1, 1);
    s2b[2] = GC_CONST(gc_ints_shaped(pads1, 1, 2));
    gc_check(&(gc_op){.type = "SpaceToBatchND"}, s2b, 3, 0, "SpaceToBatchND 1-D block");
    gc_free_args(s2b, 3);
    gc_arg bs[3] = {gc_fed(dt, 4, (int64_t[]){12, 3, 4, 3}, -9, 9), gc_konst(block2, 2),
                    GC_CONST(gc_ints_shaped(crops2, 2, 2))};
    gc_check(&(gc_op){.type = "BatchToSpaceND"}, bs, 3, 0, "BatchToSpaceND");
    gc_free_args(bs, 3);
    /* The diagonal family: batches of wide and tall matrices, a rank-2 Diag. */
    gc_arg dg[2] = {gc_fed(dt, 2, (int64_t[]){3, 5}, -9, 9)};
    int numeric = dt == TF_FLOAT || dt == TF_DOUBLE || dt == TF_INT64; /* Diag's and DiagPart's op defs */
    if (numeric) gc_check(&(gc_op){.type = "Diag"}, dg, 1, 0, "Diag");
    gc_check(&(gc_op){.type = "MatrixDiag"}, dg, 1, 0, "MatrixDiag");
    gc_free_args(dg, 1);
    dg[0] = gc_fed(dt, 4, (int64_t[]){3, 5, 3, 5}, -9, 9);
    if (numeric) gc_check(&(gc_op){.type = "DiagPart"}, dg, 1, 0, "DiagPart");
    gc_free_args(dg, 1);
    for (int tall = 0; tall < 2; tall++) {
      dg[0] = gc_fed(dt, 3, tall ? (int64_t[]){2, 7, 4} : (int64_t[]){2, 4, 7}, -9, 9);
      dg[1] = gc_fed(dt, 2, (int64_t[]){2, 4}, -9, 9);
      gc_check(&(gc_op){.type = "MatrixDiagPart"}, dg, 1, 0, "MatrixDiagPart");
      gc_check(&(gc_op){.type = "MatrixSetDiag"}, dg, 2, 0, "MatrixSetDiag");
      gc_free_args(dg, 2);
    }
  }
}

static void gather_and_one_hot_match_cpu(void) {
  gc_need_gpu();
  static const int32_t axis[] = {-2}, depth[] = {11};
  for (int t = 0; t < N_DATA; t++) {
    TF_DataType dt = data_types[t];
    for (int it = 0; it < 2; it++) {
      TF_DataType idt = it ? TF_INT64 : TF_INT32;
      gc_arg g[3] = {gc_fed(dt, 3, (int64_t[]){7, 9, 13}, -9, 9), gc_fed(idt, 2, (int64_t[]){4, 5}, 0, 9),
                     gc_konst(axis, -1)};
      gc_check(&(gc_op){.type = "GatherV2"}, g, 3, 0, "GatherV2 axis -2");
      gc_free_args(g, 3);
      g[0] = gc_fed(dt, 2, (int64_t[]){7, 13}, -9, 9);
      g[1] = gc_fed(idt, 1, (int64_t[]){23}, 0, 7);
      gc_check(&(gc_op){.type = "Gather"}, g, 2, 0, "Gather");
      gc_free_args(g, 2);
      /* Indices past depth and negative ones give all off_value. */
      gc_arg oh[4] = {gc_fed(idt, 2, (int64_t[]){3, 7}, -2, 13), gc_konst(depth, -1), gc_fed(dt, 0, NULL, 1, 2),
                      gc_fed(dt, 0, NULL, -2, -1)};
      gc_check(&(gc_op){.type = "OneHot", .attrs = {GC_INT("axis", 1)}}, oh, 4, 0, "OneHot axis 1");
      gc_free_args(oh, 4);
      /* GatherNd: rows of 2 coordinates into [7, 9, 13] (slices of 13), of 3 (scalars), and of
       * none (the whole params per row); the indices stay in range (out-of-range rows are an
       * error on the CPU, zeros on the GPU). */
      for (int r = 0; r <= 3; r += (r ? 1 : 2)) {
        gc_arg nd[2] = {gc_fed(dt, 3, (int64_t[]){7, 9, 13}, -9, 9), gc_fed(idt, 3, (int64_t[]){2, 5, r}, 0, 7)};
        gc_check(&(gc_op){.type = "GatherNd"}, nd, 2, 0, "GatherNd");
        gc_free_args(nd, 2);
      }
    }
  }
}

static void gpu_errors_carry_cpu_texts(void) {
  gc_need_gpu();
  static const int32_t shape[] = {5, -1}, axis_bad[] = {3}, axis_vec[] = {0, 1};
  gc_arg r[2] = {gc_fed(TF_FLOAT, 1, (int64_t[]){7}, 0, 1), gc_konst(shape, 2)};
  gc_check_error(&(gc_op){.type = "Reshape"}, r, 2, TF_INVALID_ARGUMENT,
                 "Input to reshape is a tensor with 7 values, but the requested shape requires a multiple of 5",
                 "Reshape 7 values to [5, -1]");
  gc_free_args(r, 2);
  /* ConcatV2's axis is read on the host: its checks are the CPU kernel's. */
  gc_arg c[3] = {gc_fed(TF_FLOAT, 2, (int64_t[]){2, 3}, 0, 1), gc_fed(TF_FLOAT, 2, (int64_t[]){2, 3}, 0, 1),
                 gc_konst(axis_bad, -1)};
  gc_check_error(&(gc_op){.type = "ConcatV2", .list = 2}, c, 3, TF_INVALID_ARGUMENT,
                 "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 3", "ConcatV2 axis 3");
  gc_free_args(c + 2, 1);
  c[2] = GC_FED(gc_ints(axis_vec, 2)); /* fed: a constant would be refused by the shape function */
  gc_check_error(&(gc_op){.type = "ConcatV2", .list = 2}, c, 3, TF_INVALID_ARGUMENT,
                 "Concat dim tensor should be a scalar, but got shape [2]", "ConcatV2 vector axis");
  gc_free_args(c, 3);
  /* ReverseV2's axes are read on the host (fed: the shape function would refuse them). */
  static const int32_t rev_twice[] = {1, -1}, rev_out[] = {2};
  gc_arg v[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){2, 3}, 0, 1), GC_FED(gc_ints(rev_twice, 2))};
  gc_check_error(&(gc_op){.type = "ReverseV2"}, v, 2, TF_INVALID_ARGUMENT, "axis 1 specified more than once.",
                 "ReverseV2 repeated axis");
  gc_free_args(v + 1, 1);
  v[1] = GC_FED(gc_ints(rev_out, 1));
  gc_check_error(&(gc_op){.type = "ReverseV2"}, v, 2, TF_INVALID_ARGUMENT, "'axis'[0] = 2 is out of valid range",
                 "ReverseV2 axis out of range");
  gc_free_args(v, 2);
}

/* ---- tests: variables and training ---- */

static TF_Output placeholder(TF_Graph *g, const char *name, TF_DataType dt, TF_Status *s) {
  return gc_unary(g, "Placeholder", name, (TF_Output){NULL, 0}, "dtype", dt, s, name);
}

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
                                 TF_Output *init_vals, TF_Output grad, TF_Operation **inits, TF_Operation **vars,
                                 TF_Status *s) {
  TF_Output in[12];
  int n = 0;
  char name[32];
  for (int k = 0; k <= tc->n_slots; k++) {
    snprintf(name, sizeof name, "%s_v%d", p, k);
    TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", name);
    TF_SetDevice(d, dev);
    TF_SetAttrType(d, "dtype", dt);
    TF_SetAttrShape(d, "shape", (int64_t[]){7, 13}, 2);
    vars[k] = gc_finish(d, s, 0, tc->op);
    snprintf(name, sizeof name, "%s_init%d", p, k);
    d = TF_NewOperation(g, "Assign", name);
    TF_SetDevice(d, dev);
    TF_AddInput(d, (TF_Output){vars[k], 0});
    TF_AddInput(d, init_vals[k]);
    inits[k] = gc_finish(d, s, 0, tc->op);
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
    TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
    TF_SetDevice(d, dev);
    TF_SetAttrType(d, "dtype", dt);
    TF_SetAttrTensor(d, "value", t, s);
    TF_DeleteTensor(t);
    in[n++] = (TF_Output){gc_finish(d, s, 0, tc->op), 0};
  }
  snprintf(name, sizeof name, "%s_apply", p);
  TF_OperationDescription *d = TF_NewOperation(g, tc->op, name);
  TF_SetDevice(d, dev);
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  if (tc->bool_attr) TF_SetAttrBool(d, tc->bool_attr, 1);
  return gc_finish(d, s, 0, tc->op);
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
    feeds[k] = placeholder(g, name, dt, s);
    vals[k] = gc_rand(dt, 2, dims, k ? 0.1 : -1, 1); /* slots positive: Adagrad and RMSProp take roots */
  }
  feeds[nv] = placeholder(g, "grad", dt, s);
  vals[nv] = gc_rand(dt, 2, dims, -1, 1);
  TF_Operation *ic[4], *ig[4], *vc[4], *vg[4];
  TF_Operation *ac = build_train(g, tc, GC_CPU, "cpu", dt, feeds, feeds[nv], ic, vc, s);
  TF_Operation *ag = build_train(g, tc, GC_GPU, "gpu", dt, feeds, feeds[nv], ig, vg, s);
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
    gc_compare(what, out[0], out[1], dt == TF_DOUBLE ? 1e-12 : 1e-5);
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
  gc_need_gpu();
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
  gc_need_gpu();
  static const char *ops[2] = {"AssignAdd", "AssignSub"};
  for (int k = 0; k < 2; k++) {
    /* ApplyGradientDescent's graph with the Apply replaced: var op= value, three times. */
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    int64_t dims[1] = {1023};
    TF_Output x = placeholder(g, "x", TF_FLOAT, s);
    TF_Tensor *v = gc_rand(TF_FLOAT, 1, dims, -1, 1);
    TF_Operation *var[2], *init[2], *upd[2];
    for (int d = 0; d < 2; d++) {
      const char *dev = d ? GC_GPU : GC_CPU;
      char name[16];
      snprintf(name, sizeof name, "v%d", d);
      TF_OperationDescription *od = TF_NewOperation(g, "VariableV2", name);
      TF_SetDevice(od, dev);
      TF_SetAttrType(od, "dtype", TF_FLOAT);
      TF_SetAttrShape(od, "shape", dims, 1);
      var[d] = gc_finish(od, s, 0, ops[k]);
      snprintf(name, sizeof name, "init%d", d);
      od = TF_NewOperation(g, "Assign", name);
      TF_SetDevice(od, dev);
      TF_AddInput(od, (TF_Output){var[d], 0});
      TF_AddInput(od, x);
      init[d] = gc_finish(od, s, 0, ops[k]);
      snprintf(name, sizeof name, "upd%d", d);
      od = TF_NewOperation(g, ops[k], name);
      TF_SetDevice(od, dev);
      TF_AddInput(od, (TF_Output){var[d], 0});
      TF_AddInput(od, x);
      upd[d] = gc_finish(od, s, 0, ops[k]);
    }
    TF_SessionOptions *opts = TF_NewSessionOptions();
    TF_Session *sess = TF_NewSession(g, opts, s);
    run_targets(sess, &x, &v, 1, init, 2, s);
    for (int i = 0; i < 3; i++) run_targets(sess, &x, &v, 1, upd, 2, s);
    TF_Output f[2] = {{var[1], 0}, {var[0], 0}};
    TF_Tensor *out[2] = {0};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, f, out, 2, NULL, 0, NULL, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    gc_compare(ops[k], out[0], out[1], 0);
    /* 1 + 3 (AssignAdd) or 1 - 3 (AssignSub) times the value. */
    double want = (k ? -2.0 : 4.0) * ((float *)TF_TensorData(v))[5];
    double got = ((const float *)TF_TensorData(out[1]))[5];
    if (fabs(got - want) > 1e-5) tfc_test_fail(__FILE__, __LINE__, "%s: %g, want %g", ops[k], got, want);
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

/* An embedding lookup on a resource variable: ResourceGather on each device, int32 and int64
 * (rank 2) indices, repeated and in any order. */
static void resource_gather_on_gpu_matches_cpu(void) {
  gc_need_gpu();
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t dims[2] = {37, 5};
  TF_Output x = placeholder(g, "x", TF_FLOAT, s);
  TF_Tensor *v = gc_rand(TF_FLOAT, 2, dims, -1, 1);
  static const int32_t ix32[] = {36, 0, 5, 5, 17, 2};
  TF_Operation *h[2], *init[2], *gather[2][2];
  for (int d = 0; d < 2; d++) {
    const char *dev = d ? GC_GPU : GC_CPU;
    char name[32];
    snprintf(name, sizeof name, "v%d", d);
    TF_OperationDescription *od = TF_NewOperation(g, "VarHandleOp", name);
    TF_SetDevice(od, dev);
    TF_SetAttrType(od, "dtype", TF_FLOAT);
    TF_SetAttrShape(od, "shape", dims, 2);
    h[d] = gc_finish(od, s, 0, "ResourceGather");
    snprintf(name, sizeof name, "init%d", d);
    od = TF_NewOperation(g, "AssignVariableOp", name);
    TF_SetDevice(od, dev);
    TF_AddInput(od, (TF_Output){h[d], 0});
    TF_AddInput(od, x);
    TF_SetAttrType(od, "dtype", TF_FLOAT);
    init[d] = gc_finish(od, s, 0, "ResourceGather");
    for (int w = 0; w < 2; w++) {
      TF_Tensor *it = w ? TF_AllocateTensor(TF_INT64, (int64_t[]){2, 3}, 2, 6 * sizeof(int64_t))
                        : TF_AllocateTensor(TF_INT32, (int64_t[]){6}, 1, 6 * sizeof(int32_t));
      for (int i = 0; i < 6; i++) {
        if (w) ((int64_t *)TF_TensorData(it))[i] = ix32[i];
        else ((int32_t *)TF_TensorData(it))[i] = ix32[i];
      }
      snprintf(name, sizeof name, "ix%d_%d", d, w);
      od = TF_NewOperation(g, "Const", name);
      TF_SetAttrTensor(od, "value", it, s);
      TF_SetAttrType(od, "dtype", TF_TensorType(it));
      TF_Operation *konst = gc_finish(od, s, 0, "ResourceGather");
      TF_DeleteTensor(it);
      snprintf(name, sizeof name, "gather%d_%d", d, w);
      od = TF_NewOperation(g, "ResourceGather", name);
      TF_SetDevice(od, dev);
      TF_AddInput(od, (TF_Output){h[d], 0});
      TF_AddInput(od, (TF_Output){konst, 0});
      TF_SetAttrType(od, "dtype", TF_FLOAT);
      gather[d][w] = gc_finish(od, s, 0, "ResourceGather");
    }
  }
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  run_targets(sess, &x, &v, 1, init, 2, s);
  for (int w = 0; w < 2; w++) {
    TF_Output f[2] = {{gather[1][w], 0}, {gather[0][w], 0}};
    TF_Tensor *out[2] = {0};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, f, out, 2, NULL, 0, NULL, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    gc_compare("ResourceGather", out[0], out[1], 0);
    EXPECT_EQ(TF_NumDims(out[0]), w ? 3 : 2);
    /* Row 17 of the variable is output row 4. */
    EXPECT_TRUE(memcmp((const float *)TF_TensorData(out[0]) + 4 * 5, (const float *)TF_TensorData(v) + 17 * 5,
                       5 * sizeof(float)) == 0);
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[1]);
  }
  TF_DeleteTensor(v);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void int32_variable_on_gpu_lands_on_cpu_with_soft_placement(void) {
  gc_need_gpu();
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", "global_step");
  TF_SetDevice(d, GC_GPU);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Operation *var = gc_finish(d, s, 0, "global_step");
  static const int32_t zero[] = {0};
  TF_Tensor *zt = gc_ints(zero, -1);
  TF_Output z = gc_const(g, "zero", zt, s, "zero");
  TF_DeleteTensor(zt);
  d = TF_NewOperation(g, "Assign", "init");
  TF_SetDevice(d, GC_GPU);
  TF_AddInput(d, (TF_Output){var, 0});
  TF_AddInput(d, z);
  TF_Operation *init = gc_finish(d, s, 0, "init");
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
    TFC_TEST(shape_size_rank_answer_exact_values_in_host_memory),
    TFC_TEST(fill_cast_addn_select_match_cpu),
    TFC_TEST(join_and_split_ops_match_cpu),
    TFC_TEST(window_ops_match_cpu),
    TFC_TEST(gather_and_one_hot_match_cpu),
    TFC_TEST(gpu_errors_carry_cpu_texts),
    TFC_TEST(optimizers_on_gpu_match_cpu_after_several_steps),
    TFC_TEST(assign_add_and_sub_on_gpu_match_cpu),
    TFC_TEST(resource_gather_on_gpu_matches_cpu),
    TFC_TEST(int32_variable_on_gpu_lands_on_cpu_with_soft_placement),
    {0},
};

TFC_TEST_MAIN(tests)

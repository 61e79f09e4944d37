/*
 * GPU kernel tests of the scatter family against the CPU kernels: the variable scatter
 * updates (ref and resource variables living on the GPU), ScatterNd, DynamicStitch,
 * DynamicPartition, UnsortedSegmentMax/Min/Prod, SegmentSum, MatrixBandPart and
 * ReverseSequence — odd shapes, duplicate indices, empty inputs, each registered dtype class,
 * int32 and int64 indices, and bad input (out-of-range indices, mismatched shapes), which
 * must fail with the CPU kernel's code and text on both devices — except the unsorted segment
 * ids at or above num_segments, which the GPU drops as UnsortedSegmentSum's kernel and TF's do.
 *
 * Sums, products and quotients over duplicate indices run in an order the GPU picks, so
 * float results compare within a tolerance; everything else is exact. Without a GPU every
 * test skips with the reason; under TFC_GC_SELF_TEST=1 (gpu_compare.h) the "GPU" copies run
 * on the CPU, which checks the graphs and the CPU half on any machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_compare.c"

/* ---- helpers ---- */

/* A new int32 or int64 tensor of dims[0..nd) holding v (n values). */
static TF_Tensor *idx_tensor(TF_DataType dt, const int64_t *v, int nd, const int64_t *dims) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  size_t es = dt == TF_INT64 ? 8 : 4;
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * es);
  for (int64_t i = 0; i < n; i++) {
    if (dt == TF_INT64) ((int64_t *)TF_TensorData(t))[i] = v[i];
    else ((int32_t *)TF_TensorData(t))[i] = (int32_t)v[i];
  }
  return t;
}

static double tol_of(TF_DataType dt, int half) { return half ? 3e-2 : dt == TF_DOUBLE ? 1e-12 : 1e-5; }

static const char *dt_name(TF_DataType dt, int half) {
  return half ? "half" : dt == TF_FLOAT ? "float" : dt == TF_DOUBLE ? "double" : dt == TF_INT32 ? "int32"
         : dt == TF_INT64 ? "int64" : dt == TF_BOOL ? "bool" : dt == TF_COMPLEX64 ? "complex64"
         : dt == TF_COMPLEX128 ? "complex128" : "?";
}

static TF_Status *status(void) {
  static TF_Status *s;
  if (!s) s = TF_NewStatus();
  return s;
}

static TF_Session *open_session(TF_Graph *g) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, status());
  if (TF_GetCode(status()) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "session: %s", TF_Message(status()));
  TF_DeleteSessionOptions(o);
  return sess;
}

static void close_session(TF_Session *sess, TF_Graph *g) {
  TF_CloseSession(sess, status());
  TF_DeleteSession(sess, status());
  TF_DeleteGraph(g);
}

/* One run: returns its code, the message in msg. */
static TF_Code run(TF_Session *sess, const TF_Output *feeds, TF_Tensor *const *vals, int nf, const TF_Output *fetch,
                   TF_Tensor **outs, int nfe, TF_Operation *const *targets, int nt, char *msg, size_t cap) {
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < nfe; i++) outs[i] = NULL;
  TF_SessionRun(sess, NULL, feeds, vals, nf, fetch, outs, nfe, (const TF_Operation *const *)targets, nt, NULL, s);
  TF_Code code = TF_GetCode(s);
  snprintf(msg, cap, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return code;
}

static void expect_device(TF_Session *sess, TF_Operation *op, const char *label) {
  if (gc_self_test()) return;
  const char *dev = TFC_SessionOperationDevice(sess, op, status());
  if (!dev || !strstr(dev, "GPU:0")) tfc_test_fail(__FILE__, __LINE__, "%s: placed on %s", label, dev ? dev : "?");
}

static TF_Output placeholder(TF_Graph *g, const char *name, TF_DataType dt) {
  return gc_unary(g, "Placeholder", name, (TF_Output){NULL, 0}, "dtype", dt, status(), name);
}

/* ---- variable scatter updates ---- */

/* One scatter case: the variable's initial value [rows, inner], indices and updates. */
typedef struct scatter_case {
  int64_t rows, inner;
  int n_idx_dims;
  int64_t idx_dims[2];
  const int64_t *idx;
  int scalar; /* updates is a scalar */
} scatter_case;

/* Builds, on each device, a variable (ref VariableV2 or resource VarHandleOp) of dtype dt
 * initialized from a fed value, and `op` applied to it with fed indices and updates; runs
 * init, then the scatter (twice: updates accumulate), and compares the variables. With
 * bad != NULL the scatter must fail on both devices with INVALID_ARGUMENT and that text,
 * leaving both variables at their initial value. */
static void check_scatter_h(const char *op, int resource, TF_DataType dt, int half, TF_DataType it,
                            const scatter_case *k, const char *bad) {
  char label[160];
  snprintf(label, sizeof label, "%s%s %s idx %s [%lld,%lld]%s", resource ? "Resource" : "", op, dt_name(dt, half),
           dt_name(it, 0), (long long)k->rows, (long long)k->inner, k->scalar ? " scalar" : "");
  TF_Graph *g = TF_NewGraph();
  int64_t vdims[2] = {k->rows, k->inner};
  int64_t n_idx = 1;
  for (int i = 0; i < k->n_idx_dims; i++) n_idx *= k->idx_dims[i];
  int64_t udims[3] = {0}, und = 0;
  if (!k->scalar) {
    for (int i = 0; i < k->n_idx_dims; i++) udims[und++] = k->idx_dims[i];
    udims[und++] = k->inner;
  }
  int is_div = !strcmp(op, "ScatterDiv"), is_mul = !strcmp(op, "ScatterMul");
  double lo = is_div || is_mul ? 0.5 : -9, hi = is_div || is_mul ? 1.5 : 9;
  TF_Output ph[3] = {placeholder(g, "init", dt), placeholder(g, "indices", it), placeholder(g, "updates", dt)};
  TF_Tensor *vals[3] = {gc_rand(dt, 2, vdims, lo, hi), idx_tensor(it, k->idx, k->n_idx_dims, k->idx_dims),
                        gc_rand(dt, (int)und, udims, lo, hi)};
  TF_Operation *inits[2], *scat[2];
  TF_Output fetch[2], in[2][3] = {{ph[0], ph[1], ph[2]}, {ph[0], ph[1], ph[2]}};
  if (half) { /* the GPU copy holds and updates half; the CPU copy runs in float */
    in[1][0] = gc_unary(g, "Cast", "init_half", ph[0], "DstT", TF_HALF, status(), label);
    in[1][2] = gc_unary(g, "Cast", "updates_half", ph[2], "DstT", TF_HALF, status(), label);
  }
  for (int dv = 0; dv < 2; dv++) {
    const char *dev = dv ? gc_gpu_dev() : GC_CPU, *pre = dv ? "g" : "c";
    TF_DataType vdt = dv && half ? TF_HALF : dt;
    char name[32];
    snprintf(name, sizeof name, "%s_var", pre);
    TF_OperationDescription *d = TF_NewOperation(g, resource ? "VarHandleOp" : "VariableV2", name);
    TF_SetDevice(d, dev);
    TF_SetAttrType(d, "dtype", vdt);
    TF_SetAttrShape(d, "shape", vdims, 2);
    TF_Output var = {gc_finish(d, status(), 0, label), 0};
    snprintf(name, sizeof name, "%s_init", pre);
    d = TF_NewOperation(g, resource ? "AssignVariableOp" : "Assign", name);
    TF_SetDevice(d, dev);
    TF_AddInput(d, var);
    TF_AddInput(d, in[dv][0]);
    if (resource) TF_SetAttrType(d, "dtype", vdt);
    inits[dv] = gc_finish(d, status(), 0, label);
    char type[48];
    snprintf(type, sizeof type, "%s%s", resource ? "Resource" : "", op);
    snprintf(name, sizeof name, "%s_scatter", pre);
    d = TF_NewOperation(g, type, name);
    TF_SetDevice(d, dev);
    TF_AddInput(d, var);
    TF_AddInput(d, in[dv][1]);
    TF_AddInput(d, in[dv][2]);
    if (resource) TF_SetAttrType(d, "dtype", vdt);
    scat[dv] = gc_finish(d, status(), 0, label);
    if (resource) {
      snprintf(name, sizeof name, "%s_read", pre);
      d = TF_NewOperation(g, "ReadVariableOp", name);
      TF_SetDevice(d, dev);
      TF_AddInput(d, var);
      TF_SetAttrType(d, "dtype", vdt);
      fetch[dv] = (TF_Output){gc_finish(d, status(), 0, label), 0};
    } else {
      fetch[dv] = var;
    }
    if (dv && half) fetch[dv] = gc_unary(g, "Cast", "back", fetch[dv], "DstT", TF_FLOAT, status(), label);
  }
  TF_Session *sess = open_session(g);
  char msg[1024];
  if (run(sess, ph, vals, 1, NULL, NULL, 0, inits, 2, msg, sizeof msg) != TF_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s: init: %s", label, msg);
  for (int step = 0; step < 2; step++)
    for (int dv = 0; dv < 2; dv++) {
      TF_Code code = run(sess, ph + 1, vals + 1, 2, NULL, NULL, 0, scat + dv, 1, msg, sizeof msg);
      if (!bad && code != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: scatter: %s", label, msg);
      if (bad && (code != TF_INVALID_ARGUMENT || !strstr(msg, bad)))
        tfc_test_fail(__FILE__, __LINE__, "%s on %s: expected INVALID_ARGUMENT with \"%s\", got %d: %s", label,
                      dv ? "GPU" : "CPU", bad, (int)code, msg);
    }
  expect_device(sess, scat[1], label);
  TF_Tensor *o[2];
  if (run(sess, NULL, NULL, 0, fetch, o, 2, NULL, 0, msg, sizeof msg) != TF_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s: read: %s", label, msg);
  /* float: atomic sums, products and quotients in the GPU's order; half: each combine rounded */
  gc_compare(label, o[1], o[0], half ? tol_of(dt, half) : tol_of(dt, 0) * 10);
  if (bad) gc_compare(label, o[0], vals[0], 0); /* a failed scatter changes nothing */
  for (int i = 0; i < 2; i++) TF_DeleteTensor(o[i]);
  for (int i = 0; i < 3; i++) TF_DeleteTensor(vals[i]);
  close_session(sess, g);
}

static void check_scatter(const char *op, int resource, TF_DataType dt, TF_DataType it, const scatter_case *k,
                          const char *bad) {
  check_scatter_h(op, resource, dt, 0, it, k, bad);
}

static const int64_t DUPS[] = {3, 0, 3, 6, 1, 3, 0, 2};
static const int64_t FEW[] = {4, 1};

static const scatter_case CASES[] = {
    {7, 5, 1, {8}, DUPS, 0},         /* duplicate rows */
    {7, 33, 2, {2, 4}, DUPS, 0},     /* 2-d indices */
    {7, 5, 1, {8}, DUPS, 1},         /* a scalar update */
    {5, 1, 1, {2}, FEW, 0},          /* one column */
    {7, 5, 1, {0}, DUPS, 0},         /* no indices */
    {6, 0, 1, {2}, FEW, 0},          /* rows of no elements */
    {0, 5, 1, {0}, DUPS, 0},         /* a variable of no rows */
};
#define N_SCATTER_CASES ((int)(sizeof CASES / sizeof CASES[0]))

static const char *const SCATTER_OPS[] = {"ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul",
                                          "ScatterDiv", "ScatterMin", "ScatterMax"};

static void ref_scatters_match_cpu(void) {
  gc_need_gpu();
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE};
  for (int o = 0; o < 7; o++)
    for (int t = 0; t < 2; t++)
      for (int k = 0; k < N_SCATTER_CASES; k++)
        check_scatter(SCATTER_OPS[o], 0, types[t], k % 2 ? TF_INT64 : TF_INT32, &CASES[k], NULL);
}

/* TF's reference scatters also take half: the GPU copy runs in half (each combine rounded
 * to half) against the CPU copy in float. The CPU has only ScatterUpdate in half, so only it
 * runs in the self-test. */
static void ref_scatters_run_in_half(void) {
  gc_need_gpu();
  for (int o = 0; o < 7; o++) {
    if (o > 0 && gc_self_test()) break;
    for (int k = 0; k < N_SCATTER_CASES; k++)
      check_scatter_h(SCATTER_OPS[o], 0, TF_FLOAT, 1, k % 2 ? TF_INT64 : TF_INT32, &CASES[k], NULL);
  }
}

static void resource_scatters_match_cpu(void) {
  gc_need_gpu();
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE};
  for (int o = 0; o < 7; o++)
    for (int t = 0; t < 2; t++)
      for (int k = 0; k < N_SCATTER_CASES; k++)
        check_scatter(SCATTER_OPS[o], 1, types[t], k % 2 ? TF_INT32 : TF_INT64, &CASES[k], NULL);
  /* bool moves only, with int32 indices on the GPU */
  for (int k = 0; k < N_SCATTER_CASES; k++) check_scatter("ScatterUpdate", 1, TF_BOOL, TF_INT32, &CASES[k], NULL);
}

static void scatters_refuse_bad_indices_and_shapes_with_cpu_texts(void) {
  gc_need_gpu();
  static const int64_t far[] = {1, 7, 2}, neg[] = {0, -1};
  const scatter_case out_of_range = {7, 5, 1, {3}, far, 0}, negative = {7, 5, 2, {2, 1}, neg, 0};
  for (int resource = 0; resource < 2; resource++)
    for (int o = 0; o < 7; o++) {
      check_scatter(SCATTER_OPS[o], resource, TF_FLOAT, TF_INT32, &out_of_range, "indices[1] = 7 is not in [0, 7)");
      check_scatter(SCATTER_OPS[o], resource, TF_DOUBLE, TF_INT64, &negative, "indices[1,0] = -1 is not in [0, 7)");
    }
}

/* Updates whose shape is neither indices.shape + params.shape[1:] nor a scalar. */
static void scatters_refuse_mismatched_updates_with_cpu_texts(void) {
  gc_need_gpu();
  for (int resource = 0; resource < 2; resource++) {
    TF_Graph *g = TF_NewGraph();
    TF_Output ph[3] = {placeholder(g, "init", TF_FLOAT), placeholder(g, "indices", TF_INT32),
                       placeholder(g, "updates", TF_FLOAT)};
    int64_t vd[2] = {4, 3}, ud[2] = {2, 4};
    static const int64_t iv[] = {0, 1};
    TF_Tensor *vals[3] = {gc_rand(TF_FLOAT, 2, vd, -1, 1), idx_tensor(TF_INT32, iv, 1, (int64_t[]){2}),
                          gc_rand(TF_FLOAT, 2, ud, -1, 1)};
    TF_Operation *inits[2], *scat[2];
    for (int dv = 0; dv < 2; dv++) {
      const char *dev = dv ? gc_gpu_dev() : GC_CPU;
      char name[32];
      snprintf(name, sizeof name, "v%d", dv);
      TF_OperationDescription *d = TF_NewOperation(g, resource ? "VarHandleOp" : "VariableV2", name);
      TF_SetDevice(d, dev);
      TF_SetAttrType(d, "dtype", TF_FLOAT);
      TF_SetAttrShape(d, "shape", vd, 2);
      TF_Output var = {gc_finish(d, status(), 0, name), 0};
      snprintf(name, sizeof name, "i%d", dv);
      d = TF_NewOperation(g, resource ? "AssignVariableOp" : "Assign", name);
      TF_SetDevice(d, dev);
      TF_AddInput(d, var);
      TF_AddInput(d, ph[0]);
      if (resource) TF_SetAttrType(d, "dtype", TF_FLOAT);
      inits[dv] = gc_finish(d, status(), 0, name);
      snprintf(name, sizeof name, "s%d", dv);
      d = TF_NewOperation(g, resource ? "ResourceScatterAdd" : "ScatterAdd", name);
      TF_SetDevice(d, dev);
      TF_AddInput(d, var);
      TF_AddInput(d, ph[1]);
      TF_AddInput(d, ph[2]);
      if (resource) TF_SetAttrType(d, "dtype", TF_FLOAT);
      scat[dv] = gc_finish(d, status(), 0, name);
    }
    TF_Session *sess = open_session(g);
    char msg[1024];
    if (run(sess, ph, vals, 1, NULL, NULL, 0, inits, 2, msg, sizeof msg) != TF_OK)
      tfc_test_fail(__FILE__, __LINE__, "init: %s", msg);
    for (int dv = 0; dv < 2; dv++) {
      TF_Code code = run(sess, ph + 1, vals + 1, 2, NULL, NULL, 0, scat + dv, 1, msg, sizeof msg);
      const char *want = "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
                         "updates.shape [2,4], indices.shape [2], params.shape [4,3]";
      if (code != TF_INVALID_ARGUMENT || !strstr(msg, want))
        tfc_test_fail(__FILE__, __LINE__, "resource=%d on %s: got %d: %s", resource, dv ? "GPU" : "CPU", (int)code,
                      msg);
    }
    for (int i = 0; i < 3; i++) TF_DeleteTensor(vals[i]);
    close_session(sess, g);
  }
}

/* ---- ScatterNd ---- */

static void scatter_nd_matches_cpu(void) {
  gc_need_gpu();
  /* indices [6, 2] into shape [5, 3, 7] with duplicate rows; [4, 1] into [5, 3]; none */
  static const int64_t i2[] = {4, 2, 0, 0, 4, 2, 3, 1, 0, 0, 4, 2}, i1[] = {3, 0, 3, 4}, s3[] = {5, 3, 7},
                       s2[] = {5, 3};
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_FLOAT};
  for (int t = 0; t < 4; t++)
    for (int ix = 0; ix < 2; ix++) {
      TF_DataType it = ix ? TF_INT64 : TF_INT32, dt = types[t];
      int half = t == 3;
      if (half && gc_self_test()) continue; /* the CPU has no half ScatterNd to stand in */
      gc_op op = {.type = "ScatterNd", .half = half, .half_args = 2};
      char label[96];
      snprintf(label, sizeof label, "ScatterNd %s idx %s", dt_name(dt, half), dt_name(it, 0));
      gc_arg a[3] = {GC_FED(idx_tensor(it, i2, 2, (int64_t[]){6, 2})), gc_fed(dt, 2, (int64_t[]){6, 7}, -9, 9),
                     GC_CONST(idx_tensor(it, s3, 1, (int64_t[]){3}))};
      gc_check(&op, a, 3, tol_of(dt, half), label);
      gc_free_args(a, 3);
      gc_arg b[3] = {GC_FED(idx_tensor(it, i1, 2, (int64_t[]){4, 1})), gc_fed(dt, 2, (int64_t[]){4, 3}, -9, 9),
                     GC_CONST(idx_tensor(it, s2, 1, (int64_t[]){2}))};
      gc_check(&op, b, 3, tol_of(dt, half), label);
      gc_free_args(b, 3);
      gc_arg e[3] = {GC_FED(idx_tensor(it, i1, 2, (int64_t[]){0, 1})), gc_fed(dt, 2, (int64_t[]){0, 3}, -9, 9),
                     GC_CONST(idx_tensor(it, s2, 1, (int64_t[]){2}))};
      gc_check(&op, e, 3, 0, label);
      gc_free_args(e, 3);
    }
}

static void scatter_nd_refuses_bad_input_with_cpu_texts(void) {
  gc_need_gpu();
  static const int64_t bad[] = {0, 1, 2, 5}, shape[] = {3, 4};
  gc_arg a[3] = {GC_FED(idx_tensor(TF_INT32, bad, 2, (int64_t[]){2, 2})), gc_fed(TF_FLOAT, 1, (int64_t[]){2}, 0, 1),
                 GC_CONST(idx_tensor(TF_INT32, shape, 1, (int64_t[]){2}))};
  gc_check_error(&(gc_op){.type = "ScatterNd"}, a, 3, TF_INVALID_ARGUMENT,
                 "indices[1] = [2, 5] does not index into shape [3,4]", "ScatterNd out of range");
  gc_free_args(a + 1, 1);
  a[1] = gc_fed(TF_FLOAT, 1, (int64_t[]){3}, 0, 1);
  gc_check_error(&(gc_op){.type = "ScatterNd"}, a, 3, TF_INVALID_ARGUMENT,
                 "The shape of updates [3] must be indices.shape[:-1] + shape[indices.shape[-1]:] for indices [2,2] "
                 "and shape [3,4]",
                 "ScatterNd mismatched updates");
  gc_free_args(a, 3);
}

/* ---- DynamicStitch ---- */

/* DynamicStitch of n partitions (index values idx[m] of dims idims[m], data [idims[m], inner]
 * of dt) on both devices; bad: the expected INVALID_ARGUMENT text, else compared. */
static void check_stitch_op(const char *type, TF_DataType gdt, int n, const int64_t *const *idx,
                            const int64_t *const *idims, const int *ind, int64_t inner, int64_t bad_extra,
                            const char *bad) {
  char label[96];
  int half = gdt == TF_HALF;
  TF_DataType dt = half ? TF_FLOAT : gdt;
  snprintf(label, sizeof label, "%s %s n=%d inner=%lld", type, dt_name(dt, half), n, (long long)inner);
  TF_Graph *g = TF_NewGraph();
  TF_Output in[4], gin[4], ph[2];
  TF_Tensor *vals[2];
  for (int m = 0; m < n; m++) {
    char name[16];
    snprintf(name, sizeof name, "idx%d", m);
    TF_Tensor *t = idx_tensor(TF_INT32, idx[m], ind[m], idims[m]);
    in[m] = gc_const(g, name, t, status(), label);
    TF_DeleteTensor(t);
    snprintf(name, sizeof name, "data%d", m);
    ph[m] = placeholder(g, name, dt);
    int64_t dd[3];
    for (int i = 0; i < ind[m]; i++) dd[i] = idims[m][i];
    dd[ind[m]] = inner + (m == 1 ? bad_extra : 0);
    vals[m] = gc_rand(dt, ind[m] + 1, dd, -9, 9);
    gin[m] = in[m];
    in[n + m] = gin[n + m] = ph[m];
    if (half) {
      snprintf(name, sizeof name, "half%d", m);
      gin[n + m] = gc_unary(g, "Cast", name, ph[m], "DstT", TF_HALF, status(), label);
    }
  }
  TF_Operation *ops[2];
  for (int dv = 0; dv < 2; dv++) {
    TF_OperationDescription *d = TF_NewOperation(g, type, dv ? "on_gpu" : "on_cpu");
    TF_SetDevice(d, dv ? gc_gpu_dev() : GC_CPU);
    TF_AddInputList(d, dv ? gin : in, n);
    TF_AddInputList(d, (dv ? gin : in) + n, n);
    ops[dv] = gc_finish(d, status(), 0, label);
  }
  TF_Output gout = {ops[1], 0};
  if (half) gout = gc_unary(g, "Cast", "back", gout, "DstT", TF_FLOAT, status(), label);
  TF_Session *sess = open_session(g);
  char msg[1024];
  if (bad) {
    for (int dv = 0; dv < 2; dv++) {
      TF_Output f = {ops[dv], 0};
      TF_Tensor *o;
      TF_Code code = run(sess, ph, vals, n, &f, &o, 1, NULL, 0, msg, sizeof msg);
      if (o) TF_DeleteTensor(o);
      if (code != TF_INVALID_ARGUMENT || !strstr(msg, bad))
        tfc_test_fail(__FILE__, __LINE__, "%s on %s: expected \"%s\", got %d: %s", label, dv ? "GPU" : "CPU", bad,
                      (int)code, msg);
    }
  } else {
    TF_Output f[2] = {gout, {ops[0], 0}};
    TF_Tensor *o[2];
    if (run(sess, ph, vals, n, f, o, 2, NULL, 0, msg, sizeof msg) != TF_OK)
      tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, msg);
    expect_device(sess, ops[1], label);
    gc_compare(label, o[0], o[1], tol_of(dt, half));
    TF_DeleteTensor(o[0]);
    TF_DeleteTensor(o[1]);
  }
  for (int m = 0; m < n; m++) TF_DeleteTensor(vals[m]);
  close_session(sess, g);
}

static void check_stitch(TF_DataType dt, int n, const int64_t *const *idx, const int64_t *const *idims,
                         const int *ind, int64_t inner, int64_t bad_extra, const char *bad) {
  check_stitch_op("DynamicStitch", dt, n, idx, idims, ind, inner, bad_extra, bad);
}

static void dynamic_stitch_matches_cpu(void) {
  gc_need_gpu();
  /* duplicates within and across partitions (the last wins), a gap (row 5 stays zero) */
  static const int64_t a[] = {0, 6, 2, 6}, b[] = {2, 3, 4, 0, 1, 3}, da[] = {4}, db[] = {2, 3}, none[] = {0};
  const int64_t *idx[2] = {a, b}, *idims[2] = {da, db}, *eidx[2] = {a, a}, *edims[2] = {none, da};
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64, TF_COMPLEX64, TF_COMPLEX128, TF_HALF};
  for (int t = 0; t < 7; t++) {
    check_stitch(types[t], 2, idx, idims, (int[]){1, 2}, 5, 0, NULL);
    check_stitch(types[t], 2, idx, idims, (int[]){1, 2}, 1, 0, NULL);
    check_stitch(types[t], 1, idx, idims, (int[]){1}, 3, 0, NULL);
    check_stitch(types[t], 2, eidx, edims, (int[]){1, 1}, 2, 0, NULL); /* an empty partition */
    /* ParallelDynamicStitch's GPU row is the CPU kernel in host memory: the same winners */
    check_stitch_op("ParallelDynamicStitch", types[t], 2, idx, idims, (int[]){1, 2}, 5, 0, NULL);
  }
  /* more rows than one grid covers (8192 blocks of 256 threads) */
  static const int64_t big[] = {1, 0, 1}, dbig[] = {3};
  const int64_t *bidx[1] = {big}, *bdims[1] = {dbig};
  check_stitch(TF_FLOAT, 1, bidx, bdims, (int[]){1}, 1 << 21, 0, NULL);
}

static void dynamic_stitch_refuses_bad_input_with_cpu_texts(void) {
  gc_need_gpu();
  static const int64_t a[] = {0, 1}, b[] = {2, -1}, d2[] = {2};
  const int64_t *idx[2] = {a, b}, *idims[2] = {d2, d2};
  check_stitch(TF_FLOAT, 2, idx, idims, (int[]){1, 1}, 3, 0, "indices[1] is out of range");
  const int64_t *ok[2] = {a, a};
  check_stitch(TF_FLOAT, 2, ok, idims, (int[]){1, 1}, 3, 1,
               "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [2,3], data[1].shape = [2,4]");
}

/* ---- DynamicPartition ---- */

static void dynamic_partition_matches_cpu(void) {
  gc_need_gpu();
  static const int32_t p1[] = {2, 0, 2, 1, 2, 0, 2}, p2[] = {1, 1, 0, 2, 1, 1};
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_FLOAT, TF_COMPLEX64, TF_COMPLEX128};
  for (int t = 0; t < 5; t++) {
    int half = t == 2;
    gc_op op = {.type = "DynamicPartition", .attrs = {GC_INT("num_partitions", 3)}, .n_outputs = 3, .half = half};
    char label[64];
    snprintf(label, sizeof label, "DynamicPartition %s", dt_name(types[t], half));
    gc_arg a[2] = {gc_fed(types[t], 2, (int64_t[]){7, 5}, -9, 9), GC_FED(gc_ints(p1, 7))};
    gc_check(&op, a, 2, tol_of(types[t], half), label);
    gc_free_args(a, 2);
    TF_Tensor *pt = TF_AllocateTensor(TF_INT32, (int64_t[]){2, 3}, 2, sizeof p2);
    memcpy(TF_TensorData(pt), p2, sizeof p2);
    gc_arg b[2] = {gc_fed(types[t], 3, (int64_t[]){2, 3, 4}, -9, 9), GC_FED(pt)};
    gc_check(&op, b, 2, tol_of(types[t], half), label);
    gc_free_args(b, 2);
    gc_arg e[2] = {gc_fed(types[t], 2, (int64_t[]){0, 4}, -9, 9), GC_FED(gc_ints(p1, 0))};
    gc_check(&op, e, 2, 0, label);
    gc_free_args(e, 2);
  }
}

static void dynamic_partition_refuses_bad_input_with_cpu_texts(void) {
  gc_need_gpu();
  static const int32_t bad[] = {0, 1, 5, 0};
  gc_op op = {.type = "DynamicPartition", .attrs = {GC_INT("num_partitions", 2)}, .n_outputs = 2};
  gc_arg a[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){4, 3}, -9, 9), GC_FED(gc_ints(bad, 4))};
  gc_check_error(&op, a, 2, TF_INVALID_ARGUMENT, "partitions[2] = 5 is not in [0, 2)", "DynamicPartition range");
  gc_free_args(a + 1, 1);
  a[1] = GC_FED(gc_ints(bad, 3));
  gc_check_error(&op, a, 2, TF_INVALID_ARGUMENT,
                 "data.shape must start with partitions.shape, got data.shape = [4,3], partitions.shape = [3]",
                 "DynamicPartition shapes");
  gc_free_args(a, 2);
}

/* ---- segment reductions ---- */

static void unsorted_segment_reductions_match_cpu(void) {
  gc_need_gpu();
  /* duplicates, a dropped negative id, segment 3 empty (the identity) */
  static const int64_t ids[] = {1, 0, 1, 4, -1, 0, 1}, all[] = {1, 0, 2, 3, 4, 0, 1};
  static const int32_t five = 5;
  const char *ops[] = {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"};
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_FLOAT};
  for (int o = 0; o < 3; o++)
    for (int t = 0; t < 4; t++)
      for (int ix = 0; ix < 2; ix++) {
        TF_DataType dt = types[t], it = ix ? TF_INT64 : TF_INT32;
        int half = t == 3, prod = o == 2;
        if (half && gc_self_test()) continue; /* no half CPU kernel to stand in */
        gc_op op = {.type = ops[o], .half = half};
        char label[96];
        snprintf(label, sizeof label, "%s %s idx %s", ops[o], dt_name(dt, half), dt_name(it, 0));
        /* half has no -FLT_MAX: every segment gets a value there */
        double lo = prod ? (dt == TF_INT32 ? -3 : 0.5) : -9, hi = prod ? (dt == TF_INT32 ? 4 : 1.5) : 9;
        gc_arg a[3] = {gc_fed(dt, 2, (int64_t[]){7, 4}, lo, hi),
                       GC_FED(idx_tensor(it, half ? all : ids, 1, (int64_t[]){7})), gc_konst(&five, -1)};
        gc_check(&op, a, 3, tol_of(dt, half), label);
        gc_free_args(a, 3);
        gc_arg e[3] = {gc_fed(dt, 2, (int64_t[]){0, 4}, -9, 9), GC_FED(idx_tensor(it, ids, 1, (int64_t[]){0})),
                       gc_konst(&five, -1)};
        if (!half) gc_check(&op, e, 3, 0, label);
        gc_free_args(e, 3);
      }
  /* more elements than one grid covers */
  static const int64_t big[] = {2, 0, 2, 1};
  static const int32_t three = 3;
  gc_arg g[3] = {gc_fed(TF_FLOAT, 2, (int64_t[]){4, 1 << 20}, -9, 9),
                 GC_FED(idx_tensor(TF_INT32, big, 1, (int64_t[]){4})), gc_konst(&three, -1)};
  gc_check(&(gc_op){.type = "UnsortedSegmentMax"}, g, 3, 0, "UnsortedSegmentMax huge");
  gc_free_args(g, 3);
  static const int32_t six[] = {0, 1, 0, 1, 0, 1};
  gc_arg b[3] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 4}, -9, 9), GC_FED(gc_ints(six, 6)), gc_konst(&five, -1)};
  gc_check_error(&(gc_op){.type = "UnsortedSegmentMax"}, b, 3, TF_INVALID_ARGUMENT, "segment_ids",
                 "UnsortedSegmentMax mismatched ids");
  gc_free_args(b, 3);
}

/* Like UnsortedSegmentSum (and TF's GPU kernels), the GPU drops an id at or above
 * num_segments where the CPU reports it: the GPU result with such ids equals the CPU's with
 * them negative (dropped there too). GPU-only behaviour, so not part of the self-test. */
static void unsorted_segment_reductions_on_gpu_drop_out_of_range_ids(void) {
  if (gc_self_test()) tfc_test_skip("the CPU reports these ids: GPU-only behaviour");
  gc_need_gpu();
  static const int32_t bad_ids[] = {0, 5, 2, 9, -3, 2, 3}, clean_ids[] = {0, -1, 2, -1, -3, 2, 3}, four = 4;
  const char *ops[] = {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"};
  for (int o = 0; o < 3; o++) {
    TF_Graph *g = TF_NewGraph();
    TF_Tensor *vals[3] = {gc_rand(TF_FLOAT, 2, (int64_t[]){7, 5}, 0.5, 1.5), gc_ints(bad_ids, 7),
                          gc_ints(clean_ids, 7)};
    TF_Tensor *nt = gc_ints(&four, -1);
    TF_Output ph[3] = {placeholder(g, "x", TF_FLOAT), placeholder(g, "bad", TF_INT32),
                       placeholder(g, "clean", TF_INT32)};
    TF_Output num = gc_const(g, "num", nt, status(), ops[o]);
    TF_Output gin[3] = {ph[0], ph[1], num}, cin[3] = {ph[0], ph[2], num};
    TF_Operation *og = gc_add_op(g, &(gc_op){.type = ops[o]}, "on_gpu", GC_GPU, gin, 3, status(), 0, ops[o]);
    TF_Operation *oc = gc_add_op(g, &(gc_op){.type = ops[o]}, "on_cpu", GC_CPU, cin, 3, status(), 0, ops[o]);
    TF_Session *sess = open_session(g);
    TF_Output fetch[2] = {{og, 0}, {oc, 0}};
    TF_Tensor *out[2];
    char msg[1024];
    if (run(sess, ph, vals, 3, fetch, out, 2, NULL, 0, msg, sizeof msg) != TF_OK)
      tfc_test_fail(__FILE__, __LINE__, "%s: %s", ops[o], msg);
    gc_compare(ops[o], out[0], out[1], 1e-5);
    for (int i = 0; i < 2; i++) TF_DeleteTensor(out[i]);
    for (int i = 0; i < 3; i++) TF_DeleteTensor(vals[i]);
    TF_DeleteTensor(nt);
    close_session(sess, g);
  }
}

static void segment_sum_matches_cpu(void) {
  gc_need_gpu();
  static const int64_t ids[] = {0, 0, 1, 3, 3, 3, 4}; /* segment 2 empty: zeros */
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_FLOAT};
  for (int t = 0; t < 3; t++)
    for (int ix = 0; ix < 2; ix++) {
      TF_DataType dt = types[t], it = ix ? TF_INT64 : TF_INT32;
      int half = t == 2;
      if (half && gc_self_test()) continue; /* no half CPU kernel to stand in */
      char label[64];
      snprintf(label, sizeof label, "SegmentSum %s idx %s", dt_name(dt, half), dt_name(it, 0));
      gc_arg a[2] = {gc_fed(dt, 3, (int64_t[]){7, 3, 2}, -9, 9), GC_FED(idx_tensor(it, ids, 1, (int64_t[]){7}))};
      gc_check(&(gc_op){.type = "SegmentSum", .half = half}, a, 2, tol_of(dt, half), label);
      gc_free_args(a, 2);
      gc_arg e[2] = {gc_fed(dt, 2, (int64_t[]){0, 3}, -9, 9), GC_FED(idx_tensor(it, ids, 1, (int64_t[]){0}))};
      gc_check(&(gc_op){.type = "SegmentSum", .half = half}, e, 2, 0, label);
      gc_free_args(e, 2);
    }
  static const int64_t unsorted[] = {0, 2, 1};
  gc_arg b[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){3, 2}, -9, 9),
                 GC_FED(idx_tensor(TF_INT32, unsorted, 1, (int64_t[]){3}))};
  gc_check_error(&(gc_op){.type = "SegmentSum"}, b, 2, TF_INVALID_ARGUMENT, "segment ids are not increasing",
                 "SegmentSum unsorted");
  gc_free_args(b + 1, 1);
  b[1] = GC_FED(idx_tensor(TF_INT32, unsorted, 1, (int64_t[]){2}));
  gc_check_error(&(gc_op){.type = "SegmentSum"}, b, 2, TF_INVALID_ARGUMENT,
                 "segment_ids should be the same size as dimension 0 of input.", "SegmentSum sizes");
  gc_free_args(b, 2);
}

/* ---- MatrixBandPart, ReverseSequence ---- */

static void matrix_band_part_matches_cpu(void) {
  gc_need_gpu();
  static const int32_t bounds[][2] = {{1, 2}, {-1, 0}, {0, -1}, {-1, -1}, {4, 5}, {0, 0}};
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_BOOL, TF_FLOAT, TF_COMPLEX64, TF_COMPLEX128};
  for (int t = 0; t < 6; t++)
    for (int b = 0; b < 6; b++) {
      int half = t == 3;
      char label[64];
      snprintf(label, sizeof label, "MatrixBandPart %s (%d, %d)", dt_name(types[t], half), bounds[b][0], bounds[b][1]);
      gc_arg a[3] = {gc_fed(types[t], 3, (int64_t[]){3, 4, 5}, -9, 9), gc_konst(&bounds[b][0], -1),
                     gc_konst(&bounds[b][1], -1)};
      gc_check(&(gc_op){.type = "MatrixBandPart", .half = half}, a, 3, tol_of(types[t], half), label);
      gc_free_args(a, 3);
    }
  gc_arg e[3] = {gc_fed(TF_FLOAT, 3, (int64_t[]){0, 3, 3}, -9, 9), gc_konst(&bounds[0][0], -1),
                 gc_konst(&bounds[0][1], -1)};
  gc_check(&(gc_op){.type = "MatrixBandPart"}, e, 3, 0, "MatrixBandPart empty");
  gc_free_args(e, 3);
  static const int32_t seven = 7;
  gc_arg bad[3] = {gc_fed(TF_FLOAT, 2, (int64_t[]){4, 5}, -9, 9), gc_konst(&seven, -1), gc_konst(&bounds[0][1], -1)};
  gc_check_error(&(gc_op){.type = "MatrixBandPart"}, bad, 3, TF_INVALID_ARGUMENT,
                 "num_lower must be negative or less or equal to number of rows (4) got: 7", "MatrixBandPart bound");
  gc_free_args(bad, 3);
}

static void reverse_sequence_matches_cpu(void) {
  gc_need_gpu();
  static const int64_t l1[] = {0, 6, 3, 1}, l2[] = {5, 0, 2};
  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_BOOL, TF_FLOAT};
  for (int t = 0; t < 4; t++)
    for (int ix = 0; ix < 2; ix++) {
      TF_DataType dt = types[t], lt = ix ? TF_INT64 : TF_INT32;
      int half = t == 3;
      char label[64];
      snprintf(label, sizeof label, "ReverseSequence %s len %s", dt_name(dt, half), dt_name(lt, 0));
      gc_op op = {.type = "ReverseSequence", .attrs = {GC_INT("seq_dim", 1), GC_INT("batch_dim", 0)}, .half = half};
      gc_arg a[2] = {gc_fed(dt, 3, (int64_t[]){4, 6, 3}, -9, 9), GC_FED(idx_tensor(lt, l1, 1, (int64_t[]){4}))};
      gc_check(&op, a, 2, tol_of(dt, half), label);
      gc_free_args(a, 2);
      gc_op op2 = {.type = "ReverseSequence", .attrs = {GC_INT("seq_dim", 0), GC_INT("batch_dim", 2)}, .half = half};
      gc_arg b[2] = {gc_fed(dt, 4, (int64_t[]){5, 2, 3, 2}, -9, 9), GC_FED(idx_tensor(lt, l2, 1, (int64_t[]){3}))};
      gc_check(&op2, b, 2, tol_of(dt, half), label);
      gc_free_args(b, 2);
    }
  static const int64_t far[] = {1, 9};
  gc_op op = {.type = "ReverseSequence", .attrs = {GC_INT("seq_dim", 1), GC_INT("batch_dim", 0)}};
  gc_arg e[2] = {gc_fed(TF_FLOAT, 3, (int64_t[]){0, 6, 3}, -9, 9),
                 GC_FED(idx_tensor(TF_INT64, far, 1, (int64_t[]){0}))};
  gc_check(&op, e, 2, 0, "ReverseSequence empty batch");
  gc_free_args(e, 2);
  gc_arg c[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){2, 6}, -9, 9), GC_FED(idx_tensor(TF_INT64, far, 1, (int64_t[]){2}))};
  gc_check_error(&op, c, 2, TF_INVALID_ARGUMENT, "seq_lens(1) > input.dims(1)", "ReverseSequence too long");
  gc_free_args(c + 1, 1);
  c[1] = GC_FED(idx_tensor(TF_INT64, far, 1, (int64_t[]){1}));
  gc_check_error(&op, c, 2, TF_INVALID_ARGUMENT, "Length of seq_lengths != input.dims(0), (1 vs. 2)",
                 "ReverseSequence lengths");
  gc_free_args(c, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(ref_scatters_match_cpu),
    TFC_TEST(ref_scatters_run_in_half),
    TFC_TEST(resource_scatters_match_cpu),
    TFC_TEST(scatters_refuse_bad_indices_and_shapes_with_cpu_texts),
    TFC_TEST(scatters_refuse_mismatched_updates_with_cpu_texts),
    TFC_TEST(scatter_nd_matches_cpu),
    TFC_TEST(scatter_nd_refuses_bad_input_with_cpu_texts),
    TFC_TEST(dynamic_stitch_matches_cpu),
    TFC_TEST(dynamic_stitch_refuses_bad_input_with_cpu_texts),
    TFC_TEST(dynamic_partition_matches_cpu),
    TFC_TEST(dynamic_partition_refuses_bad_input_with_cpu_texts),
    TFC_TEST(unsorted_segment_reductions_match_cpu),
    TFC_TEST(unsorted_segment_reductions_on_gpu_drop_out_of_range_ids),
    TFC_TEST(segment_sum_matches_cpu),
    TFC_TEST(matrix_band_part_matches_cpu),
    TFC_TEST(reverse_sequence_matches_cpu),
    {0},
};

TFC_TEST_MAIN(tests)

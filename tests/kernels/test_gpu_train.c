/*
 * GPU training tests: variables and the optimizers' dense updates on /device:GPU:0 against
 * the same graph on /device:CPU:0.
 *
 * Each optimizer test builds one graph holding two copies of a training step, one pinned to
 * each device (no soft placement, so a missing GPU kernel is an error), with the same initial
 * values and the same fed gradients: it initializes the variable and its slots, runs several
 * steps, and compares every variable and slot across the devices (ref and resource forms,
 * use_nesterov and update_slots both ways, float, double, half, an empty and a huge variable).
 * The variable tests check round trips through a GPU variable (assign, add, subtract, read,
 * is-initialized) exactly, that reading or updating an uninitialized GPU variable fails with
 * the CPU's code and text, that a step failing on the CPU after updating a GPU variable leaves
 * the variable as it was, and that the Apply ops' shape and scalar checks (one function for
 * both devices) report the same errors on both.
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/half.h"
#include "gpu_compare.c"

#define MAX_VARS 4

/* ---- graph building ---- */

/* The status the helpers below pass to the gc_* builders. Those fail the test on any error,
 * so it never carries one back and can be shared; it lives as long as the process. */
static TF_Status *build_status(void) {
  static TF_Status *s;
  if (!s) s = TF_NewStatus();
  return s;
}

static TF_Output out0(TF_Operation *op) { return (TF_Output){op, 0}; }

/* A CPU placeholder of any shape. */
static TF_Output placeholder(TF_Graph *g, const char *name, TF_DataType dt) {
  return gc_unary(g, "Placeholder", name, (TF_Output){NULL, 0}, "dtype", dt, build_status(), name);
}

/* A CPU scalar constant of dtype dt (float, double or half). */
static TF_Output scalar(TF_Graph *g, const char *name, TF_DataType dt, double v) {
  TF_Tensor *t = TF_AllocateTensor(dt, NULL, 0, TF_DataTypeSize(dt));
  if (dt == TF_FLOAT) *(float *)TF_TensorData(t) = (float)v;
  else if (dt == TF_DOUBLE) *(double *)TF_TensorData(t) = v;
  else *(uint16_t *)TF_TensorData(t) = tfc_float_to_half((float)v);
  TF_Output c = gc_const(g, name, t, build_status(), name);
  TF_DeleteTensor(t);
  return c;
}

/* A variable: type VariableV2 (ref) or VarHandleOp (resource); nd < 0: unknown shape. */
static TF_Output variable(TF_Graph *g, const char *type, const char *name, const char *dev, TF_DataType dt,
                          const int64_t *dims, int nd) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, dev);
  TF_SetAttrType(d, "dtype", dt);
  TF_SetAttrShape(d, "shape", dims, nd);
  return out0(gc_finish(d, build_status(), 0, name));
}

/* type(inputs) on dev; `dtype` set when nonzero (the resource ops' attr). */
static TF_Operation *node(TF_Graph *g, const char *type, const char *name, const char *dev, const TF_Output *in,
                          int n, TF_DataType dtype) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, dev);
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  if (dtype) TF_SetAttrType(d, "dtype", dtype);
  return gc_finish(d, build_status(), 0, name);
}

static TF_Output read_var(TF_Graph *g, const char *name, const char *dev, TF_Output h, TF_DataType dt) {
  return out0(node(g, "ReadVariableOp", name, dev, &h, 1, dt));
}

static TF_Output cast(TF_Graph *g, const char *name, TF_Output x, TF_DataType to) {
  return gc_unary(g, "Cast", name, x, "DstT", to, build_status(), name);
}

/* ---- sessions ---- */

static TF_Session *open_session(TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "session: %s", TF_Message(s));
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return sess;
}

static void close_session(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

/* One run; returns its code and copies its message into msg (cap bytes). */
static TF_Code run(TF_Session *sess, const TF_Output *feeds, TF_Tensor *const *vals, int nf, const TF_Output *fetch,
                   TF_Tensor **outs, int nfe, TF_Operation *const *targets, int nt, char *msg, size_t cap) {
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < nfe; i++) outs[i] = NULL;
  TF_SessionRun(sess, NULL, feeds, vals, nf, fetch, outs, nfe, (const TF_Operation *const *)targets, nt, NULL, s);
  TF_Code code = TF_GetCode(s);
  if (msg) snprintf(msg, cap, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return code;
}

#define RUN_OK(sess, feeds, vals, nf, fetch, outs, nfe, targets, nt)                                                 \
  do {                                                                                                             \
    char msg_[1024];                                                                                               \
    if (run(sess, feeds, vals, nf, fetch, outs, nfe, targets, nt, msg_, sizeof msg_) != TF_OK)                     \
      tfc_test_fail(__FILE__, __LINE__, "run failed: %s", msg_);                                                   \
  } while (0)

static void expect_on_gpu(TF_Session *sess, TF_Operation *op) {
  TF_Status *s = TF_NewStatus();
  const char *dev = TFC_SessionOperationDevice(sess, op, s);
  if (!dev || !strstr(dev, "GPU:0"))
    tfc_test_fail(__FILE__, __LINE__, "%s placed on %s", TF_OperationName(op), dev ? dev : TF_Message(s));
  TF_DeleteStatus(s);
}

static void free_all(TF_Tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) TF_DeleteTensor(t[i]);
}

/* ---- optimizers: the same steps on both devices ---- */

/* One optimizer: inputs [0, n_vars) the variable and its slots (initial values uniform in
 * [lo, hi)), `grad` the gradient, the others scalars with the values in `s`. */
typedef struct opt_case {
  const char *op; /* the ref form; the resource form prefixes "Resource" */
  int n_vars, grad, n_in;
  double lo[MAX_VARS], hi[MAX_VARS];
  double s[10];
  const char *attr; /* a bool attr set to attr_val, or NULL */
  int attr_val;
} opt_case;

static const opt_case CASES[] = {
    {"ApplyGradientDescent", 1, 2, 3, {-1}, {1}, {0, 0.1}, NULL, 0},
    {"ApplyMomentum", 2, 3, 5, {-1, -0.5}, {1, 0.5}, {0, 0, 0.05, 0, 0.9}, "use_nesterov", 0},
    {"ApplyMomentum", 2, 3, 5, {-1, -0.5}, {1, 0.5}, {0, 0, 0.05, 0, 0.9}, "use_nesterov", 1},
    {"ApplyAdam", 3, 9, 10, {-1, -0.1, 0}, {1, 0.1, 0.01}, {0, 0, 0, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-7}, "use_nesterov", 0},
    {"ApplyAdam", 3, 9, 10, {-1, -0.1, 0}, {1, 0.1, 0.01}, {0, 0, 0, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-7}, "use_nesterov", 1},
    {"ApplyAdagrad", 2, 3, 4, {-1, 0.1}, {1, 1}, {0, 0, 0.1}, "update_slots", 1},
    {"ApplyAdagrad", 2, 3, 4, {-1, 0.1}, {1, 1}, {0, 0, 0.1}, "update_slots", 0},
    {"ApplyRMSProp", 3, 7, 8, {-1, 0.1, -0.1}, {1, 1, 0.1}, {0, 0, 0, 0.01, 0.9, 0.5, 1e-6}, NULL, 0},
    {"ApplyCenteredRMSProp", 4, 8, 9, {-1, -0.1, 0.5, -0.1}, {1, 0.1, 1, 0.1}, {0, 0, 0, 0, 0.01, 0.9, 0.5, 1e-6},
     NULL, 0},
    {"ApplyAdadelta", 3, 6, 7, {-1, 0.1, 0.1}, {1, 1, 1}, {0, 0, 0, 1.0, 0.95, 1e-6}, NULL, 0},
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

enum { STEPS = 5 };

/* Runs STEPS steps of case c on both devices and compares every variable. dt is the GPU
 * copy's type; TF_HALF runs the CPU copy in float (the CPU has no half updates) with the GPU
 * copy's inputs cast to half and its results cast back. */
static void check_optimizer(const opt_case *c, TF_DataType dt, int resource, const int64_t *dims, int nd, double tol) {
  char label[160];
  snprintf(label, sizeof label, "%s%s %s=%d %s", resource ? "Resource" : "", c->op, c->attr ? c->attr : "-",
           c->attr_val, dt == TF_HALF ? "half" : dt == TF_DOUBLE ? "double" : "float");
  int half = dt == TF_HALF;
  TF_DataType cdt = half ? TF_FLOAT : dt;
  TF_Graph *g = TF_NewGraph();
  TF_Output init_ph[MAX_VARS], grad_ph = placeholder(g, "grad", cdt), grad_h = grad_ph;
  if (half) grad_h = cast(g, "grad_half", grad_ph, TF_HALF);
  TF_Output scal[2][10];
  for (int i = 0; i < c->n_in; i++) {
    char name[32];
    snprintf(name, sizeof name, "s%d", i);
    scal[0][i] = scalar(g, name, cdt, c->s[i]);
    snprintf(name, sizeof name, "s%d_gpu", i);
    scal[1][i] = half ? scalar(g, name, TF_HALF, c->s[i]) : scal[0][i];
  }
  TF_Tensor *init_val[MAX_VARS];
  for (int k = 0; k < c->n_vars; k++) {
    char name[32];
    snprintf(name, sizeof name, "init%d", k);
    init_ph[k] = placeholder(g, name, cdt);
    init_val[k] = gc_rand(cdt, nd, dims, c->lo[k], c->hi[k]);
  }
  TF_Operation *inits[2 * MAX_VARS], *apply[2];
  TF_Output fetch[2 * MAX_VARS];
  int n_inits = 0;
  for (int dv = 0; dv < 2; dv++) {
    const char *dev = dv ? GC_GPU : GC_CPU, *pre = dv ? "g" : "c";
    TF_DataType vdt = dv ? dt : cdt;
    TF_Output vars[MAX_VARS];
    for (int k = 0; k < c->n_vars; k++) {
      char name[32], iname[32], rname[32];
      snprintf(name, sizeof name, "%s_v%d", pre, k);
      snprintf(iname, sizeof iname, "%s_init%d", pre, k);
      snprintf(rname, sizeof rname, "%s_read%d", pre, k);
      TF_Output value = init_ph[k];
      if (dv && half) {
        char cname[32];
        snprintf(cname, sizeof cname, "init%d_half", k);
        value = cast(g, cname, init_ph[k], TF_HALF);
      }
      if (resource) {
        vars[k] = variable(g, "VarHandleOp", name, dev, vdt, dims, nd);
        inits[n_inits++] = node(g, "AssignVariableOp", iname, dev, (TF_Output[]){vars[k], value}, 2, vdt);
        fetch[dv * MAX_VARS + k] = read_var(g, rname, dev, vars[k], vdt);
      } else {
        vars[k] = variable(g, "VariableV2", name, dev, vdt, dims, nd);
        inits[n_inits++] = node(g, "Assign", iname, dev, (TF_Output[]){vars[k], value}, 2, 0);
        fetch[dv * MAX_VARS + k] = vars[k];
      }
      if (dv && half) {
        char bname[32];
        snprintf(bname, sizeof bname, "back%d", k);
        fetch[dv * MAX_VARS + k] = cast(g, bname, fetch[dv * MAX_VARS + k], TF_FLOAT);
      }
    }
    char type[64], name[16];
    snprintf(type, sizeof type, "%s%s", resource ? "Resource" : "", c->op);
    snprintf(name, sizeof name, "%s_apply", pre);
    TF_OperationDescription *d = TF_NewOperation(g, type, name);
    TF_SetDevice(d, dev);
    for (int i = 0; i < c->n_in; i++)
      TF_AddInput(d, i < c->n_vars ? vars[i] : i == c->grad ? (dv ? grad_h : grad_ph) : scal[dv][i]);
    if (c->attr) TF_SetAttrBool(d, c->attr, (unsigned char)c->attr_val);
    apply[dv] = gc_finish(d, build_status(), 0, label);
  }
  TF_Session *sess = open_session(g);
  RUN_OK(sess, init_ph, init_val, c->n_vars, NULL, NULL, 0, inits, n_inits);
  for (int step = 0; step < STEPS; step++) {
    TF_Tensor *grad = gc_rand(cdt, nd, dims, -1, 1);
    RUN_OK(sess, &grad_ph, &grad, 1, NULL, NULL, 0, apply, 2);
    TF_DeleteTensor(grad);
  }
  expect_on_gpu(sess, apply[1]);
  for (int k = 0; k < c->n_vars; k++) {
    TF_Output f[2] = {fetch[MAX_VARS + k], fetch[k]};
    TF_Tensor *o[2];
    RUN_OK(sess, NULL, NULL, 0, f, o, 2, NULL, 0);
    char what[200];
    snprintf(what, sizeof what, "%s, variable %d after %d steps", label, k, STEPS);
    gc_compare(what, o[0], o[1], tol);
    free_all(o, 2);
  }
  free_all(init_val, c->n_vars);
  close_session(sess);
  TF_DeleteGraph(g);
}

static const int64_t DIMS[2] = {7, 33};

static void gpu_optimizers_match_cpu_ref_float(void) {
  gc_need_gpu();
  for (int i = 0; i < N_CASES; i++) check_optimizer(&CASES[i], TF_FLOAT, 0, DIMS, 2, 1e-5);
}

static void gpu_optimizers_match_cpu_resource_float(void) {
  gc_need_gpu();
  for (int i = 0; i < N_CASES; i++) check_optimizer(&CASES[i], TF_FLOAT, 1, DIMS, 2, 1e-5);
}

static void gpu_optimizers_match_cpu_double(void) {
  gc_need_gpu();
  for (int i = 0; i < N_CASES; i++) {
    check_optimizer(&CASES[i], TF_DOUBLE, 0, DIMS, 2, 1e-12);
    check_optimizer(&CASES[i], TF_DOUBLE, 1, DIMS, 2, 1e-12);
  }
}

/* Half on the GPU against float on the CPU: within half's precision after STEPS steps. Adam
 * with an epsilon half can hold (1e-7 is below its normal range). */
static void gpu_optimizers_run_in_half(void) {
  gc_need_gpu();
  for (int i = 0; i < N_CASES; i++) {
    opt_case c = CASES[i];
    if (!strcmp(c.op, "ApplyAdam")) c.s[8] = 1e-3;
    check_optimizer(&c, TF_HALF, 0, DIMS, 2, 3e-2);
    check_optimizer(&c, TF_HALF, 1, DIMS, 2, 3e-2);
  }
}

static void gpu_optimizers_accept_empty_variables(void) {
  gc_need_gpu();
  static const int64_t empty[2] = {0, 3};
  for (int i = 0; i < N_CASES; i++) {
    check_optimizer(&CASES[i], TF_FLOAT, 0, empty, 2, 0);
    check_optimizer(&CASES[i], TF_FLOAT, 1, empty, 2, 0);
  }
}

/* More elements than one grid covers (65535 blocks of 256 threads): the grid-stride loop must
 * reach the tail. */
static void gpu_optimizers_cover_huge_variables(void) {
  gc_need_gpu();
  static const int64_t huge[1] = {65535LL * 256 + 1031};
  check_optimizer(&CASES[0], TF_FLOAT, 0, huge, 1, 1e-6); /* GradientDescent */
  check_optimizer(&CASES[3], TF_FLOAT, 1, huge, 1, 1e-5); /* ResourceApplyAdam */
}

/* ---- variables ---- */

static TF_Tensor *f32s(const float *v, int n) {
  int64_t dim = n;
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &dim, 1, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(float) * (size_t)n);
  return t;
}

static void expect_floats(const TF_Tensor *t, const float *v, int n, int line) {
  if (TF_TensorType(t) != TF_FLOAT || TF_NumDims(t) != 1 || TF_Dim(t, 0) != n)
    tfc_test_fail(__FILE__, line, "expected float[%d], got dtype %d rank %d", n, (int)TF_TensorType(t), TF_NumDims(t));
  const float *p = TF_TensorData(t);
  for (int i = 0; i < n; i++)
    if (p[i] != v[i]) tfc_test_fail(__FILE__, line, "element %d is %.9g, expected %.9g", i, p[i], v[i]);
}

static int fetch_bool(TF_Session *sess, TF_Output o) {
  TF_Tensor *t;
  RUN_OK(sess, NULL, NULL, 0, &o, &t, 1, NULL, 0);
  EXPECT_EQ(TF_TensorType(t), TF_BOOL);
  EXPECT_EQ(TF_NumDims(t), 0);
  int v = *(const unsigned char *)TF_TensorData(t);
  TF_DeleteTensor(t);
  return v;
}

static void gpu_resource_variable_round_trips(void) {
  gc_need_gpu();
  TF_Graph *g = TF_NewGraph();
  static const int64_t dims[1] = {4};
  TF_Output x_ph = placeholder(g, "x", TF_FLOAT), d_ph = placeholder(g, "d", TF_FLOAT);
  TF_Output h = variable(g, "VarHandleOp", "v", GC_GPU, TF_FLOAT, dims, 1);
  TF_Output inited = out0(node(g, "VarIsInitializedOp", "inited", GC_GPU, &h, 1, 0));
  TF_Operation *assign = node(g, "AssignVariableOp", "assign", GC_GPU, (TF_Output[]){h, x_ph}, 2, TF_FLOAT);
  TF_Operation *add = node(g, "AssignAddVariableOp", "add", GC_GPU, (TF_Output[]){h, d_ph}, 2, TF_FLOAT);
  TF_Operation *sub = node(g, "AssignSubVariableOp", "sub", GC_GPU, (TF_Output[]){h, d_ph}, 2, TF_FLOAT);
  TF_Output r = read_var(g, "read", GC_GPU, h, TF_FLOAT);
  /* int64 (add) and bool (assign only) variables. */
  TF_Output i_ph = placeholder(g, "i", TF_INT64), b_ph = placeholder(g, "b", TF_BOOL);
  TF_Output hi = variable(g, "VarHandleOp", "vi", GC_GPU, TF_INT64, dims, 1);
  TF_Output hb = variable(g, "VarHandleOp", "vb", GC_GPU, TF_BOOL, dims, 1);
  TF_Operation *assign_i = node(g, "AssignVariableOp", "assign_i", GC_GPU, (TF_Output[]){hi, i_ph}, 2, TF_INT64);
  TF_Operation *add_i = node(g, "AssignAddVariableOp", "add_i", GC_GPU, (TF_Output[]){hi, i_ph}, 2, TF_INT64);
  TF_Operation *assign_b = node(g, "AssignVariableOp", "assign_b", GC_GPU, (TF_Output[]){hb, b_ph}, 2, TF_BOOL);
  TF_Output ri = read_var(g, "read_i", GC_GPU, hi, TF_INT64), rb = read_var(g, "read_b", GC_GPU, hb, TF_BOOL);
  TF_Session *sess = open_session(g);

  EXPECT_EQ(fetch_bool(sess, inited), 0);
  const float x[4] = {1.5f, -2.25f, 3e-3f, 1e6f}, dv[4] = {0.25f, 1.0f, -7e-4f, 3.0f};
  TF_Tensor *xt = f32s(x, 4), *dt = f32s(dv, 4), *o;
  RUN_OK(sess, &x_ph, &xt, 1, NULL, NULL, 0, &assign, 1);
  EXPECT_EQ(fetch_bool(sess, inited), 1);
  RUN_OK(sess, NULL, NULL, 0, &r, &o, 1, NULL, 0);
  expect_floats(o, x, 4, __LINE__);
  TF_DeleteTensor(o);
  RUN_OK(sess, &d_ph, &dt, 1, NULL, NULL, 0, &add, 1);
  float sum[4], back[4];
  for (int i = 0; i < 4; i++) {
    sum[i] = x[i] + dv[i];
    back[i] = sum[i] - dv[i];
  }
  RUN_OK(sess, NULL, NULL, 0, &r, &o, 1, NULL, 0);
  expect_floats(o, sum, 4, __LINE__);
  TF_DeleteTensor(o);
  RUN_OK(sess, &d_ph, &dt, 1, NULL, NULL, 0, &sub, 1);
  RUN_OK(sess, NULL, NULL, 0, &r, &o, 1, NULL, 0);
  expect_floats(o, back, 4, __LINE__);
  TF_DeleteTensor(o);

  const int64_t iv[4] = {1, -2, 1LL << 40, 0};
  TF_Tensor *it = gc_int64s(iv, 4);
  RUN_OK(sess, &i_ph, &it, 1, NULL, NULL, 0, &assign_i, 1);
  RUN_OK(sess, &i_ph, &it, 1, NULL, NULL, 0, &add_i, 1);
  RUN_OK(sess, NULL, NULL, 0, &ri, &o, 1, NULL, 0);
  EXPECT_EQ(TF_TensorType(o), TF_INT64);
  for (int i = 0; i < 4; i++) EXPECT_EQ(((const int64_t *)TF_TensorData(o))[i], 2 * iv[i]);
  TF_DeleteTensor(o);
  int64_t bdim = 4;
  TF_Tensor *bt = TF_AllocateTensor(TF_BOOL, &bdim, 1, 4);
  const unsigned char bv[4] = {1, 0, 0, 1};
  memcpy(TF_TensorData(bt), bv, 4);
  RUN_OK(sess, &b_ph, &bt, 1, NULL, NULL, 0, &assign_b, 1);
  RUN_OK(sess, NULL, NULL, 0, &rb, &o, 1, NULL, 0);
  EXPECT_EQ(TF_TensorType(o), TF_BOOL);
  EXPECT_EQ(memcmp(TF_TensorData(o), bv, 4), 0);
  TF_DeleteTensor(o);

  TF_Operation *on_gpu[] = {assign, add, sub, r.oper, inited.oper, h.oper, add_i, assign_b};
  for (int i = 0; i < (int)(sizeof on_gpu / sizeof on_gpu[0]); i++) expect_on_gpu(sess, on_gpu[i]);
  TF_DeleteTensor(xt);
  TF_DeleteTensor(dt);
  TF_DeleteTensor(it);
  TF_DeleteTensor(bt);
  close_session(sess);
  TF_DeleteGraph(g);
}

static void gpu_ref_variable_round_trips(void) {
  gc_need_gpu();
  TF_Graph *g = TF_NewGraph();
  static const int64_t dims[1] = {4};
  TF_Output x_ph = placeholder(g, "x", TF_FLOAT), d_ph = placeholder(g, "d", TF_FLOAT);
  TF_Output v = variable(g, "VariableV2", "v", GC_GPU, TF_FLOAT, dims, 1);
  TF_Output inited = out0(node(g, "IsVariableInitialized", "inited", GC_GPU, &v, 1, TF_FLOAT));
  TF_Operation *assign = node(g, "Assign", "assign", GC_GPU, (TF_Output[]){v, x_ph}, 2, 0);
  TF_Operation *add = node(g, "AssignAdd", "add", GC_GPU, (TF_Output[]){v, d_ph}, 2, 0);
  TF_Operation *sub = node(g, "AssignSub", "sub", GC_GPU, (TF_Output[]){v, d_ph}, 2, 0);
  TF_Output i_ph = placeholder(g, "i", TF_INT64);
  TF_Output vi = variable(g, "VariableV2", "vi", GC_GPU, TF_INT64, dims, 1);
  TF_Operation *assign_i = node(g, "Assign", "assign_i", GC_GPU, (TF_Output[]){vi, i_ph}, 2, 0);
  TF_Operation *sub_i = node(g, "AssignSub", "sub_i", GC_GPU, (TF_Output[]){vi, i_ph}, 2, 0);
  TF_Session *sess = open_session(g);

  EXPECT_EQ(fetch_bool(sess, inited), 0);
  const float x[4] = {0.5f, -1.0f, 2e-5f, -3e7f}, dv[4] = {1.25f, -0.5f, 1e-5f, 2.0f};
  TF_Tensor *xt = f32s(x, 4), *dt = f32s(dv, 4), *o;
  RUN_OK(sess, &x_ph, &xt, 1, NULL, NULL, 0, &assign, 1);
  EXPECT_EQ(fetch_bool(sess, inited), 1);
  RUN_OK(sess, NULL, NULL, 0, &v, &o, 1, NULL, 0);
  expect_floats(o, x, 4, __LINE__);
  TF_DeleteTensor(o);
  float sum[4], back[4];
  for (int i = 0; i < 4; i++) {
    sum[i] = x[i] + dv[i];
    back[i] = sum[i] - dv[i];
  }
  /* AssignAdd's output is the variable's ref: fetching it reads the new value. */
  TF_Output add_out = out0(add);
  RUN_OK(sess, &d_ph, &dt, 1, &add_out, &o, 1, NULL, 0);
  expect_floats(o, sum, 4, __LINE__);
  TF_DeleteTensor(o);
  RUN_OK(sess, &d_ph, &dt, 1, NULL, NULL, 0, &sub, 1);
  RUN_OK(sess, NULL, NULL, 0, &v, &o, 1, NULL, 0);
  expect_floats(o, back, 4, __LINE__);
  TF_DeleteTensor(o);

  const int64_t iv[4] = {5, -6, 1LL << 50, 7};
  TF_Tensor *it = gc_int64s(iv, 4);
  RUN_OK(sess, &i_ph, &it, 1, NULL, NULL, 0, &assign_i, 1);
  RUN_OK(sess, &i_ph, &it, 1, NULL, NULL, 0, &sub_i, 1);
  RUN_OK(sess, NULL, NULL, 0, &vi, &o, 1, NULL, 0);
  for (int i = 0; i < 4; i++) EXPECT_EQ(((const int64_t *)TF_TensorData(o))[i], 0);
  TF_DeleteTensor(o);

  TF_Operation *on_gpu[] = {v.oper, inited.oper, assign, add, sub, vi.oper, sub_i};
  for (int i = 0; i < (int)(sizeof on_gpu / sizeof on_gpu[0]); i++) expect_on_gpu(sess, on_gpu[i]);
  TF_DeleteTensor(xt);
  TF_DeleteTensor(dt);
  TF_DeleteTensor(it);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* ---- errors: the same code and text on both devices ---- */

/* A graph built by `build` on dev whose run (fetching *fetch or running *target) must fail
 * with code and exactly the text `text` somewhere in the message. */
typedef void (*build_fn)(TF_Graph *g, const char *dev, TF_Output *fetch, TF_Operation **target, TF_Output *feeds,
                         TF_Tensor **vals, int *n_feeds);

static void expect_error_on_both(build_fn build, TF_Code code, const char *text, const char *label) {
  static const char *const devs[2] = {GC_CPU, GC_GPU};
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Output fetch = {NULL, 0}, feeds[8];
    TF_Operation *target = NULL;
    TF_Tensor *vals[8], *out = NULL;
    int n_feeds = 0;
    build(g, devs[k], &fetch, &target, feeds, vals, &n_feeds);
    TF_Session *sess = open_session(g);
    char msg[2048];
    TF_Code got = run(sess, feeds, vals, n_feeds, &fetch, &out, fetch.oper ? 1 : 0, &target, target ? 1 : 0, msg,
                      sizeof msg);
    if (got != code || !strstr(msg, text))
      tfc_test_fail(__FILE__, __LINE__, "%s on %s: expected code %d with \"%s\", got code %d: %s", label, devs[k],
                    (int)code, text, (int)got, msg);
    if (out) TF_DeleteTensor(out);
    free_all(vals, n_feeds);
    close_session(sess);
    TF_DeleteGraph(g);
  }
}

static const int64_t V4[1] = {4};

static void build_read_uninit(TF_Graph *g, const char *dev, TF_Output *fetch, TF_Operation **target, TF_Output *feeds,
                              TF_Tensor **vals, int *n_feeds) {
  (void)target, (void)feeds, (void)vals, (void)n_feeds;
  *fetch = read_var(g, "read", dev, variable(g, "VarHandleOp", "v", dev, TF_FLOAT, V4, 1), TF_FLOAT);
}

static void build_add_resource_uninit(TF_Graph *g, const char *dev, TF_Output *fetch, TF_Operation **target,
                                      TF_Output *feeds, TF_Tensor **vals, int *n_feeds) {
  (void)fetch;
  feeds[0] = placeholder(g, "d", TF_FLOAT);
  vals[0] = gc_rand(TF_FLOAT, 1, V4, 0, 1);
  *n_feeds = 1;
  TF_Output h = variable(g, "VarHandleOp", "v", dev, TF_FLOAT, V4, 1);
  *target = node(g, "AssignAddVariableOp", "add", dev, (TF_Output[]){h, feeds[0]}, 2, TF_FLOAT);
}

static void build_add_ref_uninit(TF_Graph *g, const char *dev, TF_Output *fetch, TF_Operation **target,
                                 TF_Output *feeds, TF_Tensor **vals, int *n_feeds) {
  (void)fetch;
  feeds[0] = placeholder(g, "d", TF_FLOAT);
  vals[0] = gc_rand(TF_FLOAT, 1, V4, 0, 1);
  *n_feeds = 1;
  TF_Output v = variable(g, "VariableV2", "v", dev, TF_FLOAT, V4, 1);
  *target = node(g, "AssignAdd", "add", dev, (TF_Output[]){v, feeds[0]}, 2, 0);
}

/* ApplyGradientDescent (resource: its Resource form) on a fresh variable. */
static void build_gd_uninit(TF_Graph *g, const char *dev, TF_Operation **target, TF_Output *feeds, TF_Tensor **vals,
                            int *n_feeds, int resource) {
  feeds[0] = placeholder(g, "grad", TF_FLOAT);
  vals[0] = gc_rand(TF_FLOAT, 1, V4, 0, 1);
  *n_feeds = 1;
  TF_Output v = variable(g, resource ? "VarHandleOp" : "VariableV2", "v", dev, TF_FLOAT, V4, 1);
  *target = node(g, resource ? "ResourceApplyGradientDescent" : "ApplyGradientDescent", "apply", dev,
                 (TF_Output[]){v, scalar(g, "alpha", TF_FLOAT, 0.1), feeds[0]}, 3, 0);
}

static void build_gd_ref_uninit(TF_Graph *g, const char *dev, TF_Output *fetch, TF_Operation **target,
                                TF_Output *feeds, TF_Tensor **vals, int *n_feeds) {
  (void)fetch;
  build_gd_uninit(g, dev, target, feeds, vals, n_feeds, 0);
}

static void build_gd_resource_uninit(TF_Graph *g, const char *dev, TF_Output *fetch, TF_Operation **target,
                                     TF_Output *feeds, TF_Tensor **vals, int *n_feeds) {
  (void)fetch;
  build_gd_uninit(g, dev, target, feeds, vals, n_feeds, 1);
}

static void gpu_uninitialized_variables_fail_as_on_cpu(void) {
  gc_need_gpu();
  static const char read_text[] =
      "Error while reading resource variable v from Container: localhost. This could mean that the variable was "
      "uninitialized. Not found: Resource localhost/v/N10tensorflow3VarE does not exist.";
  expect_error_on_both(build_read_uninit, TF_FAILED_PRECONDITION, read_text, "ReadVariableOp");
  expect_error_on_both(build_add_resource_uninit, TF_FAILED_PRECONDITION, read_text, "AssignAddVariableOp");
  expect_error_on_both(build_add_ref_uninit, TF_FAILED_PRECONDITION, "Attempting to use uninitialized parameters: v",
                       "AssignAdd");
  expect_error_on_both(build_gd_ref_uninit, TF_FAILED_PRECONDITION, "Attempting to use uninitialized value v",
                       "ApplyGradientDescent");
  expect_error_on_both(build_gd_resource_uninit, TF_NOT_FOUND, "Resource localhost/v/N10tensorflow3VarE does not exist.",
                       "ResourceApplyGradientDescent");
}

/* ---- a failed step rolls back a GPU variable ---- */

static void check_rollback(int resource) {
  TF_Graph *g = TF_NewGraph();
  static const int64_t dims[1] = {3};
  TF_Output x_ph = placeholder(g, "x", TF_FLOAT), d_ph = placeholder(g, "d", TF_FLOAT);
  TF_Operation *init, *add;
  TF_Output value, updated;
  if (resource) {
    TF_Output h = variable(g, "VarHandleOp", "v", GC_GPU, TF_FLOAT, dims, 1);
    init = node(g, "AssignVariableOp", "init", GC_GPU, (TF_Output[]){h, x_ph}, 2, TF_FLOAT);
    add = node(g, "AssignAddVariableOp", "add", GC_GPU, (TF_Output[]){h, d_ph}, 2, TF_FLOAT);
    value = read_var(g, "read", GC_GPU, h, TF_FLOAT);
    /* The read after the update, in the same step. */
    TF_OperationDescription *d = TF_NewOperation(g, "ReadVariableOp", "read_after");
    TF_SetDevice(d, GC_GPU);
    TF_AddInput(d, h);
    TF_AddControlInput(d, add);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    updated = out0(gc_finish(d, build_status(), 0, "read_after"));
  } else {
    TF_Output v = variable(g, "VariableV2", "v", GC_GPU, TF_FLOAT, dims, 1);
    init = node(g, "Assign", "init", GC_GPU, (TF_Output[]){v, x_ph}, 2, 0);
    add = node(g, "AssignAdd", "add", GC_GPU, (TF_Output[]){v, d_ph}, 2, 0);
    value = v;
    updated = out0(add);
  }
  TF_OperationDescription *d = TF_NewOperation(g, "CheckNumerics", "check");
  TF_SetDevice(d, GC_CPU);
  TF_AddInput(d, updated);
  TF_SetAttrString(d, "message", "boom", 4);
  TF_Output check = out0(gc_finish(d, build_status(), 0, "check"));
  TF_Session *sess = open_session(g);

  const float x[3] = {1, 2, 3}, good[3] = {0.5f, 0.25f, -1}, bad[3] = {1, NAN, 1};
  TF_Tensor *xt = f32s(x, 3), *gt = f32s(good, 3), *bt = f32s(bad, 3), *o;
  RUN_OK(sess, &x_ph, &xt, 1, NULL, NULL, 0, &init, 1);
  /* A good step commits. */
  RUN_OK(sess, &d_ph, &gt, 1, &check, &o, 1, NULL, 0);
  const float after[3] = {1.5f, 2.25f, 2};
  expect_floats(o, after, 3, __LINE__);
  TF_DeleteTensor(o);
  /* A bad one fails on the CPU after the GPU update ran, and is undone. */
  char msg[1024];
  TF_Code code = run(sess, &d_ph, &bt, 1, &check, &o, 1, NULL, 0, msg, sizeof msg);
  EXPECT_EQ(code, TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "boom : Tensor had NaN values");
  RUN_OK(sess, NULL, NULL, 0, &value, &o, 1, NULL, 0);
  expect_floats(o, after, 3, __LINE__);
  TF_DeleteTensor(o);
  expect_on_gpu(sess, add);
  TF_DeleteTensor(xt);
  TF_DeleteTensor(gt);
  TF_DeleteTensor(bt);
  close_session(sess);
  TF_DeleteGraph(g);
}

static void gpu_failed_step_leaves_gpu_variables_unchanged(void) {
  gc_need_gpu();
  check_rollback(1);
  check_rollback(0);
}

/* ---- the Apply ops' shared checks ---- */

/* A Momentum (or, with `op`, another) step on dev over variables initialized with the given
 * shapes; unknown declared shapes, so only the kernel can object. Inputs: var, accum, lr,
 * grad, momentum for Momentum; var, m, v, 6 scalars, grad for Adam; var, mg, ms, mom,
 * 4 scalars, grad for CenteredRMSProp. */
typedef struct shape_case {
  const char *op;
  int resource;
  int n_vars, grad, n_in;
  int64_t var_dims[MAX_VARS][2]; /* [0] = -1: a vector of [1] elements */
  int var_nd[MAX_VARS];
  int64_t grad_dims[2];
  int grad_nd;
  int bad_scalar; /* an input fed as a [2] vector instead of a scalar, or -1 */
} shape_case;

static const shape_case *current_shape_case;

static void build_shape_case(TF_Graph *g, const char *dev, TF_Output *fetch, TF_Operation **target, TF_Output *feeds,
                             TF_Tensor **vals, int *n_feeds) {
  (void)fetch;
  const shape_case *c = current_shape_case;
  TF_Output in[10];
  TF_Operation *inits[MAX_VARS];
  for (int k = 0; k < c->n_vars; k++) {
    char name[16], iname[16], pname[16];
    snprintf(name, sizeof name, "v%d", k);
    snprintf(iname, sizeof iname, "init%d", k);
    snprintf(pname, sizeof pname, "x%d", k);
    feeds[*n_feeds] = placeholder(g, pname, TF_FLOAT);
    vals[*n_feeds] = gc_rand(TF_FLOAT, c->var_nd[k], c->var_dims[k], 0.1, 1);
    if (c->resource) {
      in[k] = variable(g, "VarHandleOp", name, dev, TF_FLOAT, NULL, -1);
      inits[k] = node(g, "AssignVariableOp", iname, dev, (TF_Output[]){in[k], feeds[*n_feeds]}, 2, TF_FLOAT);
    } else {
      in[k] = variable(g, "VariableV2", name, dev, TF_FLOAT, NULL, -1);
      inits[k] = node(g, "Assign", iname, dev, (TF_Output[]){in[k], feeds[*n_feeds]}, 2, 0);
    }
    (*n_feeds)++;
  }
  for (int i = c->n_vars; i < c->n_in; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    if (i == c->grad || i == c->bad_scalar) {
      static const int64_t two[1] = {2};
      feeds[*n_feeds] = in[i] = placeholder(g, name, TF_FLOAT);
      vals[*n_feeds] = i == c->grad ? gc_rand(TF_FLOAT, c->grad_nd, c->grad_dims, -1, 1)
                                    : gc_rand(TF_FLOAT, 1, two, 0, 1);
      (*n_feeds)++;
    } else {
      in[i] = scalar(g, name, TF_FLOAT, 0.5);
    }
  }
  char type[64];
  snprintf(type, sizeof type, "%s%s", c->resource ? "Resource" : "", c->op);
  TF_OperationDescription *d = TF_NewOperation(g, type, "apply");
  TF_SetDevice(d, dev);
  for (int i = 0; i < c->n_in; i++) TF_AddInput(d, in[i]);
  for (int k = 0; k < c->n_vars; k++) TF_AddControlInput(d, inits[k]);
  *target = gc_finish(d, build_status(), 0, "apply");
}

static void expect_shape_error(const shape_case *c, const char *text) {
  for (int resource = 0; resource < 2; resource++) {
    shape_case rc = *c;
    rc.resource = resource;
    current_shape_case = &rc;
    char label[96];
    snprintf(label, sizeof label, "%s%s", resource ? "Resource" : "", c->op);
    expect_error_on_both(build_shape_case, TF_INVALID_ARGUMENT, text, label);
  }
}

static void gpu_apply_checks_match_cpu(void) {
  gc_need_gpu();
  /* The slot's shape differs from the variable's. */
  shape_case mom = {"ApplyMomentum", 0, 2, 3, 5, {{2, 3}, {3}}, {2, 1}, {2, 3}, 2, -1};
  expect_shape_error(&mom, "var and accum do not have the same shape[2,3] [3]");
  /* The gradient's. */
  shape_case grad = {"ApplyMomentum", 0, 2, 3, 5, {{2, 3}, {2, 3}}, {2, 2}, {6}, 1, -1};
  expect_shape_error(&grad, "var and grad do not have the same shape[2,3] [6]");
  /* lr is not a scalar: Momentum's text, then Adam's (TF's extra space). */
  shape_case lr = {"ApplyMomentum", 0, 2, 3, 5, {{2, 3}, {2, 3}}, {2, 2}, {2, 3}, 2, 2};
  expect_shape_error(&lr, "lr is not a scalar: [2]");
  shape_case adam = {"ApplyAdam", 0, 3, 9, 10, {{4}, {4}, {4}}, {1, 1, 1}, {4}, 1, 5};
  expect_shape_error(&adam, "lr is not a scalar : [2]");
  /* Momentum's momentum is checked after the shapes. */
  shape_case late = {"ApplyMomentum", 0, 2, 3, 5, {{2, 3}, {3}}, {2, 1}, {2, 3}, 2, 4};
  expect_shape_error(&late, "var and accum do not have the same shape[2,3] [3]");
  /* CenteredRMSProp's mg message prints ms's shape, as TF 1.15's does. */
  shape_case mg = {"ApplyCenteredRMSProp", 0, 4, 8, 9, {{2, 3}, {5}, {2, 3}, {2, 3}}, {2, 1, 2, 2}, {2, 3}, 2, -1};
  expect_shape_error(&mg, "var and mg do not have the same shape[2,3] [2,3]");
}

static const tfc_test tests[] = {
    TFC_TEST(gpu_optimizers_match_cpu_ref_float),
    TFC_TEST(gpu_optimizers_match_cpu_resource_float),
    TFC_TEST(gpu_optimizers_match_cpu_double),
    TFC_TEST(gpu_optimizers_run_in_half),
    TFC_TEST(gpu_optimizers_accept_empty_variables),
    TFC_TEST(gpu_optimizers_cover_huge_variables),
    TFC_TEST(gpu_resource_variable_round_trips),
    TFC_TEST(gpu_ref_variable_round_trips),
    TFC_TEST(gpu_uninitialized_variables_fail_as_on_cpu),
    TFC_TEST(gpu_failed_step_leaves_gpu_variables_unchanged),
    TFC_TEST(gpu_apply_checks_match_cpu),
    {0},
};

TFC_TEST_MAIN(tests)

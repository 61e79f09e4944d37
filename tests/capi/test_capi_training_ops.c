/* C API contract tests: the optimizers' update ops (ApplyGradientDescent, ApplyMomentum,
 * ApplyAdam, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdadelta, ApplyFtrl,
 * ApplyFtrlV2, ApplyProximalGradientDescent, ApplyProximalAdagrad and their ResourceApply*
 * forms), run in a session on variables.
 *
 * Values: tests/fixtures/training_ops.txt holds, per op, dtype and attr variant, TensorFlow's
 * values of the variable and its slots after each of several steps (gen_training_ops.py).
 * Each case is replayed here through the reference form and the resource form, feeding the
 * same gradients and hyper-parameters, and every value is compared after every step. A large
 * variable (tiling a case's elements) takes the kernels' parallel path.
 *
 * Errors: TF's codes and texts for a non-scalar hyper-parameter, mismatched shapes and an
 * uninitialized variable or slot; a failed Apply leaves the variable and its slots as they
 * were. */
#include <stdlib.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

/* ---------------- graph and session helpers ---------------- */

static TF_Operation *finish(TF_OperationDescription *d, int line) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, line, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static size_t dt_size(TF_DataType dt) { return dt == TF_DOUBLE ? sizeof(double) : sizeof(float); }

/* A tensor of dtype dt (float or double) from double values. */
static TF_Tensor *tensor(TF_DataType dt, const int64_t *dims, int nd, const double *v) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * dt_size(dt));
  for (int64_t i = 0; i < n; i++) {
    if (dt == TF_DOUBLE)
      ((double *)TF_TensorData(t))[i] = v[i];
    else
      ((float *)TF_TensorData(t))[i] = (float)v[i];
  }
  return t;
}

static double elem(const TF_Tensor *t, int64_t i) {
  return TF_TensorType(t) == TF_DOUBLE ? ((const double *)TF_TensorData(t))[i] : ((const float *)TF_TensorData(t))[i];
}

/* v rounded to dt (the fixture prints floats with 9 digits, which round back exactly). */
static double as_dtype(TF_DataType dt, double v) { return dt == TF_DOUBLE ? v : (double)(float)v; }

static TF_Operation *constant(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int nd,
                              const double *v) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *t = tensor(dt, dims, nd, v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", dt);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return finish(d, __LINE__);
}

static TF_Operation *variable(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int nd) {
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", name);
  TF_SetAttrType(d, "dtype", dt);
  TF_SetAttrShape(d, "shape", dims, nd);
  return finish(d, __LINE__);
}

static TF_Operation *var_handle(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int nd) {
  TF_OperationDescription *d = TF_NewOperation(g, "VarHandleOp", name);
  TF_SetAttrType(d, "dtype", dt);
  TF_SetAttrShape(d, "shape", dims, nd);
  TF_SetAttrString(d, "shared_name", name, strlen(name));
  return finish(d, __LINE__);
}

static TF_Operation *binary(TF_Graph *g, const char *op, const char *name, TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  return finish(d, __LINE__);
}

static TF_Operation *read_var(TF_Graph *g, const char *name, TF_Operation *h, TF_DataType dt) {
  TF_OperationDescription *d = TF_NewOperation(g, "ReadVariableOp", name);
  TF_AddInput(d, (TF_Output){h, 0});
  TF_SetAttrType(d, "dtype", dt);
  return finish(d, __LINE__);
}

/* A placeholder of unknown shape (so the kernels, not the shape functions, see bad shapes). */
static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_DataType dt) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  return finish(d, __LINE__);
}

static TF_Output out0(TF_Operation *op) { return (TF_Output){op, 0}; }

static TF_Session *session(TF_Graph *g, int intra_op) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetDeviceCount(o, "CPU", 1, s);
  if (intra_op) TFC_SetThreads(o, intra_op, 2);
  TF_Session *sess = TF_NewSession(g, o, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "session: %s", TF_Message(s));
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return sess;
}

static void close_all(TF_Session *sess, TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* Runs with feeds, fetches (may be 0) and one target (may be NULL); returns the code and the
 * message in msg (may be NULL). */
static int run(TF_Session *sess, const TF_Output *feeds, TF_Tensor *const *feed_t, int n_feeds, const TF_Output *fetch,
               TF_Tensor **out, int n_fetch, TF_Operation *target, char *msg, size_t msg_n) {
  TF_Status *s = TF_NewStatus();
  TF_SessionRun(sess, NULL, feeds, feed_t, n_feeds, fetch, out, n_fetch,
                target ? (const TF_Operation *const *)&target : NULL, target ? 1 : 0, NULL, s);
  int code = TF_GetCode(s);
  if (msg) snprintf(msg, msg_n, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return code;
}

static void run_ok(TF_Session *sess, TF_Operation *target, int line) {
  char msg[1024];
  if (run(sess, NULL, NULL, 0, NULL, NULL, 0, target, msg, sizeof msg) != TF_OK)
    tfc_test_fail(__FILE__, line, "run failed: %s", msg);
}

/* ---------------- the ops' inputs ---------------- */

typedef struct op_info {
  const char *op;
  int n_vars;
  int n_inputs;
  const char *inputs[10]; /* TF's input names in order; the first n_vars are variables */
  const char *grad;
} op_info;

static const op_info OPS[] = {
    {"ApplyGradientDescent", 1, 3, {"var", "alpha", "delta"}, "delta"},
    {"ApplyMomentum", 2, 5, {"var", "accum", "lr", "grad", "momentum"}, "grad"},
    {"ApplyAdam", 3, 10, {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
     "grad"},
    {"ApplyAdagrad", 2, 4, {"var", "accum", "lr", "grad"}, "grad"},
    {"ApplyRMSProp", 3, 8, {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}, "grad"},
    {"ApplyCenteredRMSProp", 4, 9, {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}, "grad"},
    {"ApplyAdadelta", 3, 7, {"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"}, "grad"},
    {"ApplyFtrl", 3, 8, {"var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"}, "grad"},
    {"ApplyFtrlV2", 3, 9, {"var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"}, "grad"},
    {"ApplyProximalGradientDescent", 1, 5, {"var", "alpha", "l1", "l2", "delta"}, "delta"},
    {"ApplyProximalAdagrad", 2, 6, {"var", "accum", "lr", "l1", "l2", "grad"}, "grad"},
};

static const op_info *find_op(const char *name) {
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    if (!strcmp(OPS[i].op, name)) return &OPS[i];
  tfc_test_fail(__FILE__, __LINE__, "unknown op %s", name);
}

/* ---------------- the fixture ---------------- */

#define FX_MAX_ELEMS 16
#define FX_MAX_STEPS 16
#define FX_MAX_CASES 48

typedef struct fx_step {
  double scalars[8];
  double grad[FX_MAX_ELEMS];
  double expect[4][FX_MAX_ELEMS];
} fx_step;

typedef struct fx_case {
  char label[64], op[48], dtype[8];
  int nesterov, update_slots, n, n_vars, n_scalars, n_steps;
  double init[4][FX_MAX_ELEMS];
  fx_step steps[FX_MAX_STEPS];
} fx_case;

static void read_values(FILE *f, const char *tag, double *v, int n) {
  char word[32];
  if (fscanf(f, "%31s", word) != 1 || strcmp(word, tag))
    tfc_test_fail(__FILE__, __LINE__, "fixture: expected '%s', got '%s'", tag, word);
  for (int i = 0; i < n; i++)
    if (fscanf(f, "%lf", &v[i]) != 1) tfc_test_fail(__FILE__, __LINE__, "fixture: short '%s' line", tag);
}

/* Loads every case (the array is static: a few hundred KiB). */
static int load_fixture(fx_case **out) {
  static fx_case cases[FX_MAX_CASES];
  FILE *f = fopen(TFC_FIXTURE_DIR "/training_ops.txt", "r");
  if (!f) tfc_test_fail(__FILE__, __LINE__, "cannot open %s", TFC_FIXTURE_DIR "/training_ops.txt");
  int n = 0;
  char word[64];
  while (fscanf(f, "%63s", word) == 1) {
    if (word[0] == '#') { /* comment line */
      int ch;
      while ((ch = fgetc(f)) != EOF && ch != '\n') {}
      continue;
    }
    if (strcmp(word, "case")) tfc_test_fail(__FILE__, __LINE__, "fixture: unexpected '%s'", word);
    if (n == FX_MAX_CASES) tfc_test_fail(__FILE__, __LINE__, "fixture: too many cases");
    fx_case *c = &cases[n++];
    if (fscanf(f, "%63s %47s %7s %d %d %d %d %d %d", c->label, c->op, c->dtype, &c->nesterov, &c->update_slots, &c->n,
               &c->n_vars, &c->n_scalars, &c->n_steps) != 9 ||
        c->n > FX_MAX_ELEMS || c->n_vars > 4 || c->n_scalars > 8 || c->n_steps > FX_MAX_STEPS)
      tfc_test_fail(__FILE__, __LINE__, "fixture: bad case header");
    for (int k = 0; k < c->n_vars; k++) read_values(f, "init", c->init[k], c->n);
    for (int t = 0; t < c->n_steps; t++) {
      read_values(f, "step", NULL, 0);
      read_values(f, "scalars", c->steps[t].scalars, c->n_scalars);
      read_values(f, "grad", c->steps[t].grad, c->n);
      for (int k = 0; k < c->n_vars; k++) read_values(f, "expect", c->steps[t].expect[k], c->n);
    }
    read_values(f, "end", NULL, 0);
  }
  fclose(f);
  *out = cases;
  return n;
}

/* ---------------- replaying a case ---------------- */

/* Builds the case's graph (ref or resource form) and runs its steps, comparing every
 * variable after every step. `tile` > 1 repeats the case's elements tile times (a large
 * variable whose every element must follow its source element). */
static void replay(const fx_case *fc, int resource, int tile, int intra_op) {
  const op_info *oi = find_op(fc->op);
  TF_DataType dt = !strcmp(fc->dtype, "double") ? TF_DOUBLE : TF_FLOAT;
  int64_t n = (int64_t)fc->n * tile;
  const int64_t dims[1] = {n};
  double *buf = malloc(sizeof(double) * (size_t)n);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *vars[4], *inits[4], *reads[4];
  for (int k = 0; k < fc->n_vars; k++) {
    char cname[64], iname[64], rname[64];
    snprintf(cname, sizeof cname, "%s/initial_value", oi->inputs[k]);
    snprintf(iname, sizeof iname, "%s/Assign", oi->inputs[k]);
    snprintf(rname, sizeof rname, "%s/Read", oi->inputs[k]);
    for (int64_t i = 0; i < n; i++) buf[i] = fc->init[k][i % fc->n];
    TF_Operation *c = constant(g, cname, dt, dims, 1, buf);
    if (resource) {
      vars[k] = var_handle(g, oi->inputs[k], dt, dims, 1);
      TF_OperationDescription *d = TF_NewOperation(g, "AssignVariableOp", iname);
      TF_AddInput(d, out0(vars[k]));
      TF_AddInput(d, out0(c));
      TF_SetAttrType(d, "dtype", dt);
      inits[k] = finish(d, __LINE__);
      reads[k] = read_var(g, rname, vars[k], dt);
    } else {
      vars[k] = variable(g, oi->inputs[k], dt, dims, 1);
      inits[k] = binary(g, "Assign", iname, out0(vars[k]), out0(c));
      reads[k] = vars[k]; /* fetching a ref variable reads its value */
    }
  }
  /* Placeholders for the scalars and the gradient, in input order. */
  TF_Operation *ph[10] = {0};
  TF_Output feeds[10];
  int n_feeds = 0;
  char opname[64];
  snprintf(opname, sizeof opname, "%s%s", resource ? "Resource" : "", fc->op);
  TF_OperationDescription *d = TF_NewOperation(g, opname, "train/apply");
  for (int i = 0; i < oi->n_inputs; i++) {
    if (i < oi->n_vars) {
      TF_AddInput(d, out0(vars[i]));
      continue;
    }
    ph[i] = placeholder(g, oi->inputs[i], dt);
    feeds[n_feeds++] = out0(ph[i]);
    TF_AddInput(d, out0(ph[i]));
  }
  if (!strcmp(fc->op, "ApplyMomentum") || !strcmp(fc->op, "ApplyAdam")) TF_SetAttrBool(d, "use_nesterov", (unsigned char)fc->nesterov);
  if (!strcmp(fc->op, "ApplyAdagrad")) TF_SetAttrBool(d, "update_slots", (unsigned char)fc->update_slots);
  /* The fixture's nesterov column is multiply_linear_by_lr for the Ftrl ops. */
  if (!strncmp(fc->op, "ApplyFtrl", 9)) TF_SetAttrBool(d, "multiply_linear_by_lr", (unsigned char)fc->nesterov);
  TF_Operation *apply = finish(d, __LINE__);
  TF_Session *sess = session(g, intra_op);
  for (int k = 0; k < fc->n_vars; k++) run_ok(sess, inits[k], __LINE__);

  /* The kernels do TF's operations in TF's order, so with GCC on x86-64 they agree bit for
   * bit; the tolerance leaves room for a compiler that contracts a*b+c into an FMA or a TF
   * build whose Eigen takes rsqrt through a refined SIMD estimate (a few ulps). */
  double tol = dt == TF_DOUBLE ? 1e-12 : 1e-6;
  for (int t = 0; t < fc->n_steps; t++) {
    const fx_step *st = &fc->steps[t];
    TF_Tensor *feed_t[10];
    int f = 0, s = 0;
    for (int i = oi->n_vars; i < oi->n_inputs; i++) {
      if (!strcmp(oi->inputs[i], oi->grad)) {
        for (int64_t j = 0; j < n; j++) buf[j] = st->grad[j % fc->n];
        feed_t[f++] = tensor(dt, dims, 1, buf);
      } else {
        feed_t[f++] = tensor(dt, NULL, 0, &st->scalars[s++]);
      }
    }
    char msg[1024];
    TF_Output fetch[5];
    TF_Tensor *got[5] = {0};
    int n_fetch = 0;
    /* The ref form's output is the updated variable: fetch it on the last step. */
    int fetch_out = !resource && t == fc->n_steps - 1;
    if (fetch_out) fetch[n_fetch++] = out0(apply);
    int code = run(sess, feeds, feed_t, n_feeds, fetch, got, n_fetch, fetch_out ? NULL : apply, msg, sizeof msg);
    if (code != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s step %d: %s", fc->label, t, msg);
    for (int i = 0; i < f; i++) TF_DeleteTensor(feed_t[i]);
    if (fetch_out) {
      for (int64_t j = 0; j < n; j++) {
        double want = as_dtype(dt, st->expect[0][j % fc->n]), v = elem(got[0], j);
        if (!(fabs(v - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1)))
          tfc_test_fail(__FILE__, __LINE__, "%s output: element %lld: %.17g, want %.17g", fc->label, (long long)j, v,
                        want);
      }
      TF_DeleteTensor(got[0]);
    }
    for (int k = 0; k < fc->n_vars; k++) {
      TF_Output o = out0(reads[k]);
      TF_Tensor *v = NULL;
      if (run(sess, NULL, NULL, 0, &o, &v, 1, NULL, msg, sizeof msg) != TF_OK)
        tfc_test_fail(__FILE__, __LINE__, "%s: fetch %s: %s", fc->label, oi->inputs[k], msg);
      EXPECT_EQ(TF_TensorType(v), dt);
      EXPECT_EQ(TF_TensorElementCount(v), n);
      for (int64_t j = 0; j < n; j++) {
        double want = as_dtype(dt, st->expect[k][j % fc->n]), x = elem(v, j);
        if (!(fabs(x - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1)))
          tfc_test_fail(__FILE__, __LINE__, "%s%s step %d, %s[%lld]: %.17g, want %.17g (TF)", resource ? "Resource" : "",
                        fc->label, t, oi->inputs[k], (long long)j, x, want);
      }
      TF_DeleteTensor(v);
    }
  }
  close_all(sess, g);
  free(buf);
}

static void replay_all(const char *dtype, int resource) {
  fx_case *cases;
  int n = load_fixture(&cases), ran = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(cases[i].dtype, dtype)) {
      replay(&cases[i], resource, 1, 0);
      ran++;
    }
  EXPECT_TRUE(ran >= 16); /* every op and variant */
}

static void apply_ops_match_tensorflow_float(void) { replay_all("float", 0); }
static void apply_ops_match_tensorflow_double(void) { replay_all("double", 0); }
static void resource_apply_ops_match_tensorflow_float(void) { replay_all("float", 1); }
static void resource_apply_ops_match_tensorflow_double(void) { replay_all("double", 1); }

/* 6 elements tiled 50,000 times: big enough for the kernels to split the work over the
 * intra-op threads; every element must still follow TF's sequence for its source element. */
static void large_variables_split_over_threads_match_tensorflow(void) {
  fx_case *cases;
  int n = load_fixture(&cases);
  for (int i = 0; i < n; i++)
    if (!strcmp(cases[i].label, "ApplyAdam_float") || !strcmp(cases[i].label, "ApplyCenteredRMSProp_double")) {
      fx_case c = cases[i];
      c.n_steps = 3;
      replay(&c, 0, 50000, 4);
      replay(&c, 1, 50000, 4);
    }
}

/* ---------------- errors ---------------- */

typedef struct momentum_graph {
  TF_Graph *g;
  TF_Session *sess;
  TF_Operation *var, *accum, *init_var, *init_accum, *lr, *grad, *momentum, *apply;
  TF_Operation *read_var, *read_accum; /* the values (the variables themselves in the ref form) */
} momentum_graph;

static const int64_t d22[2] = {2, 2};
static const double var22[4] = {1, 2, 3, 4}, acc22[4] = {0.5, 0.5, 0.5, 0.5};

/* var [2,2], accum of accum_dims, ApplyMomentum (or its resource form) with lr, grad and
 * momentum fed by placeholders of unknown shape. */
static void momentum_graph_new(momentum_graph *m, int resource, const int64_t *accum_dims, int accum_nd) {
  m->g = TF_NewGraph();
  double acc[8] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
  TF_Operation *cv = constant(m->g, "var/initial_value", TF_FLOAT, d22, 2, var22);
  TF_Operation *ca = constant(m->g, "accum/initial_value", TF_FLOAT, accum_dims, accum_nd, acc);
  if (resource) {
    m->var = var_handle(m->g, "var", TF_FLOAT, d22, 2);
    m->accum = var_handle(m->g, "accum", TF_FLOAT, accum_dims, accum_nd);
    TF_OperationDescription *d = TF_NewOperation(m->g, "AssignVariableOp", "var/Assign");
    TF_AddInput(d, out0(m->var));
    TF_AddInput(d, out0(cv));
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    m->init_var = finish(d, __LINE__);
    d = TF_NewOperation(m->g, "AssignVariableOp", "accum/Assign");
    TF_AddInput(d, out0(m->accum));
    TF_AddInput(d, out0(ca));
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    m->init_accum = finish(d, __LINE__);
    m->read_var = read_var(m->g, "var/Read", m->var, TF_FLOAT);
    m->read_accum = read_var(m->g, "accum/Read", m->accum, TF_FLOAT);
  } else {
    m->var = variable(m->g, "var", TF_FLOAT, d22, 2);
    /* declared of unknown shape, so a mismatch reaches the kernel (the shape function
     * rejects known ones when the node is added) */
    m->accum = variable(m->g, "accum", TF_FLOAT, accum_dims, -1);
    m->init_var = binary(m->g, "Assign", "var/Assign", out0(m->var), out0(cv));
    m->init_accum = binary(m->g, "Assign", "accum/Assign", out0(m->accum), out0(ca));
    m->read_var = m->var;
    m->read_accum = m->accum;
  }
  m->lr = placeholder(m->g, "lr", TF_FLOAT);
  m->grad = placeholder(m->g, "grad", TF_FLOAT);
  m->momentum = placeholder(m->g, "momentum", TF_FLOAT);
  TF_OperationDescription *d = TF_NewOperation(m->g, resource ? "ResourceApplyMomentum" : "ApplyMomentum", "apply");
  TF_AddInput(d, out0(m->var));
  TF_AddInput(d, out0(m->accum));
  TF_AddInput(d, out0(m->lr));
  TF_AddInput(d, out0(m->grad));
  TF_AddInput(d, out0(m->momentum));
  m->apply = finish(d, __LINE__);
  m->sess = session(m->g, 0);
}

/* Runs the apply with lr, grad and momentum of the given shapes (values 0.1, 1, 0.9). */
static int momentum_run(momentum_graph *m, const int64_t *lr_dims, int lr_nd, const int64_t *g_dims, int g_nd,
                        const int64_t *mu_dims, int mu_nd, char *msg, size_t msg_n) {
  const double lr[4] = {0.1, 0.1, 0.1, 0.1}, g[8] = {1, 1, 1, 1, 1, 1, 1, 1}, mu[4] = {0.9, 0.9, 0.9, 0.9};
  TF_Output feeds[3] = {out0(m->lr), out0(m->grad), out0(m->momentum)};
  TF_Tensor *t[3] = {tensor(TF_FLOAT, lr_dims, lr_nd, lr), tensor(TF_FLOAT, g_dims, g_nd, g),
                     tensor(TF_FLOAT, mu_dims, mu_nd, mu)};
  int code = run(m->sess, feeds, t, 3, NULL, NULL, 0, m->apply, msg, msg_n);
  for (int i = 0; i < 3; i++) TF_DeleteTensor(t[i]);
  return code;
}

static void expect_var(momentum_graph *m, TF_Operation *read, const double *want, int n) {
  TF_Output o = out0(read);
  TF_Tensor *t = NULL;
  char msg[1024];
  if (run(m->sess, NULL, NULL, 0, &o, &t, 1, NULL, msg, sizeof msg) != TF_OK)
    tfc_test_fail(__FILE__, __LINE__, "fetch: %s", msg);
  EXPECT_EQ(TF_TensorElementCount(t), n);
  for (int i = 0; i < n; i++)
    if (elem(t, i) != (float)want[i]) tfc_test_fail(__FILE__, __LINE__, "element %d: %g, want %g", i, elem(t, i), want[i]);
  TF_DeleteTensor(t);
}

static void momentum_graph_free(momentum_graph *m) { close_all(m->sess, m->g); }

static const int64_t d2[1] = {2}, d3[1] = {3}, d1[1] = {1};

static void non_scalar_lr_is_invalid_argument_and_changes_nothing(void) {
  for (int resource = 0; resource < 2; resource++) {
    momentum_graph m;
    momentum_graph_new(&m, resource, d22, 2);
    run_ok(m.sess, m.init_var, __LINE__);
    run_ok(m.sess, m.init_accum, __LINE__);
    char msg[1024];
    EXPECT_EQ(momentum_run(&m, d2, 1, d22, 2, NULL, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
    EXPECT_CONTAINS(msg, "lr is not a scalar: [2]");
    EXPECT_CONTAINS(msg, "[[{{node apply}}]]");
    /* TF checks momentum after the shapes; a [1] momentum is not a scalar either. */
    EXPECT_EQ(momentum_run(&m, NULL, 0, d22, 2, d1, 1, msg, sizeof msg), TF_INVALID_ARGUMENT);
    EXPECT_CONTAINS(msg, "momentum is not a scalar: [1]");
    expect_var(&m, m.read_var, var22, 4);
    expect_var(&m, m.read_accum, acc22, 4);
    /* the same op with good inputs updates both */
    EXPECT_EQ(momentum_run(&m, NULL, 0, d22, 2, NULL, 0, msg, sizeof msg), TF_OK);
    /* accum = accum * momentum + grad; var -= accum * lr, in float */
    float acc = 0.5f * 0.9f + 1.0f;
    double acc_new[4], var_new[4];
    for (int i = 0; i < 4; i++) {
      acc_new[i] = acc;
      var_new[i] = (float)var22[i] - acc * 0.1f;
    }
    expect_var(&m, m.read_accum, acc_new, 4);
    expect_var(&m, m.read_var, var_new, 4);
    momentum_graph_free(&m);
  }
}

static void grad_shape_mismatch_is_invalid_argument_and_changes_nothing(void) {
  for (int resource = 0; resource < 2; resource++) {
    momentum_graph m;
    momentum_graph_new(&m, resource, d22, 2);
    run_ok(m.sess, m.init_var, __LINE__);
    run_ok(m.sess, m.init_accum, __LINE__);
    char msg[1024];
    EXPECT_EQ(momentum_run(&m, NULL, 0, d3, 1, NULL, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
    EXPECT_CONTAINS(msg, "var and grad do not have the same shape[2,2] [3]");
    expect_var(&m, m.read_var, var22, 4);
    expect_var(&m, m.read_accum, acc22, 4);
    momentum_graph_free(&m);
  }
}

static void slot_shape_mismatch_is_invalid_argument(void) {
  for (int resource = 0; resource < 2; resource++) {
    momentum_graph m;
    momentum_graph_new(&m, resource, d3, 1);
    run_ok(m.sess, m.init_var, __LINE__);
    run_ok(m.sess, m.init_accum, __LINE__);
    char msg[1024];
    EXPECT_EQ(momentum_run(&m, NULL, 0, d22, 2, NULL, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
    EXPECT_CONTAINS(msg, "var and accum do not have the same shape[2,2] [3]");
    expect_var(&m, m.read_var, var22, 4);
    momentum_graph_free(&m);
  }
}

static void uninitialized_slot_is_failed_precondition_and_var_unchanged(void) {
  momentum_graph m;
  momentum_graph_new(&m, 0, d22, 2);
  run_ok(m.sess, m.init_var, __LINE__);
  char msg[1024];
  EXPECT_EQ(momentum_run(&m, NULL, 0, d22, 2, NULL, 0, msg, sizeof msg), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(msg, "Attempting to use uninitialized value accum");
  EXPECT_CONTAINS(msg, "[[{{node apply}}]]");
  expect_var(&m, m.read_var, var22, 4);
  momentum_graph_free(&m);
}

/* TF 1.15 fails the resource lookup of a never-assigned resource variable with NOT_FOUND. */
static void uninitialized_resource_slot_is_not_found(void) {
  momentum_graph m;
  momentum_graph_new(&m, 1, d22, 2);
  run_ok(m.sess, m.init_var, __LINE__);
  char msg[1024];
  EXPECT_EQ(momentum_run(&m, NULL, 0, d22, 2, NULL, 0, msg, sizeof msg), TF_NOT_FOUND);
  EXPECT_CONTAINS(msg, "Resource localhost/accum/N10tensorflow3VarE does not exist.");
  expect_var(&m, m.read_var, var22, 4);
  momentum_graph_free(&m);
}

/* Adam's lr text has TF's extra space ("lr is not a scalar : "), and a slot of another shape
 * names that slot. */
static void adam_errors_use_tensorflow_texts(void) {
  TF_Graph *g = TF_NewGraph();
  const char *names[3] = {"w", "w/Adam", "w/Adam_1"};
  TF_Operation *vars[3], *inits[3];
  for (int k = 0; k < 3; k++) {
    char cname[64], aname[64];
    snprintf(cname, sizeof cname, "%s/init", names[k]);
    snprintf(aname, sizeof aname, "%s/Assign", names[k]);
    const int64_t *dims = k == 2 ? d3 : d22;
    int nd = k == 2 ? 1 : 2;
    vars[k] = variable(g, names[k], TF_FLOAT, dims, k == 2 ? -1 : nd); /* see momentum_graph_new */
    inits[k] = binary(g, "Assign", aname, out0(vars[k]), out0(constant(g, cname, TF_FLOAT, dims, nd, var22)));
  }
  TF_Operation *ph[7];
  const char *phn[7] = {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"};
  TF_OperationDescription *d = TF_NewOperation(g, "ApplyAdam", "Adam/update_w/ApplyAdam");
  for (int k = 0; k < 3; k++) TF_AddInput(d, out0(vars[k]));
  for (int i = 0; i < 7; i++) {
    ph[i] = placeholder(g, phn[i], TF_FLOAT);
    TF_AddInput(d, out0(ph[i]));
  }
  TF_Operation *apply = finish(d, __LINE__);
  TF_Session *sess = session(g, 0);
  for (int k = 0; k < 3; k++) run_ok(sess, inits[k], __LINE__);
  TF_Output feeds[7];
  TF_Tensor *t[7];
  const double one[4] = {0.5, 0.5, 0.5, 0.5};
  for (int i = 0; i < 7; i++) {
    feeds[i] = out0(ph[i]);
    t[i] = i == 6 ? tensor(TF_FLOAT, d22, 2, one) : i == 2 ? tensor(TF_FLOAT, d2, 1, one) : tensor(TF_FLOAT, NULL, 0, one);
  }
  char msg[1024];
  EXPECT_EQ(run(sess, feeds, t, 7, NULL, NULL, 0, apply, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "lr is not a scalar : [2]");
  TF_DeleteTensor(t[2]);
  t[2] = tensor(TF_FLOAT, NULL, 0, one);
  EXPECT_EQ(run(sess, feeds, t, 7, NULL, NULL, 0, apply, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "var and v do not have the same shape[2,2] [3]");
  for (int i = 0; i < 7; i++) TF_DeleteTensor(t[i]);
  close_all(sess, g);
}

/* Known shapes are checked when the node is added, as TF's shape functions do. */
static void shape_function_rejects_known_bad_shapes(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *v = variable(g, "v", TF_FLOAT, d22, 2);
  TF_Operation *lr = constant(g, "lr", TF_FLOAT, d2, 1, var22);
  TF_Operation *delta = constant(g, "delta", TF_FLOAT, d22, 2, var22);
  TF_Operation *delta3 = constant(g, "delta3", TF_FLOAT, d3, 1, var22);
  TF_Operation *alpha = constant(g, "alpha", TF_FLOAT, NULL, 0, var22);
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "ApplyGradientDescent", "bad_alpha");
  TF_AddInput(d, out0(v));
  TF_AddInput(d, out0(lr));
  TF_AddInput(d, out0(delta));
  TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Shape must be rank 0 but is rank 1");
  d = TF_NewOperation(g, "ApplyGradientDescent", "bad_delta");
  TF_AddInput(d, out0(v));
  TF_AddInput(d, out0(alpha));
  TF_AddInput(d, out0(delta3));
  TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Shapes must be equal rank, but are 2 and 1");
  d = TF_NewOperation(g, "ApplyGradientDescent", "good");
  TF_AddInput(d, out0(v));
  TF_AddInput(d, out0(alpha));
  TF_AddInput(d, out0(delta));
  TF_Operation *good = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  int64_t dims[4];
  TF_GraphGetTensorShape(g, out0(good), dims, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 2);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* A step whose second Apply fails leaves the first Apply's variable as it was too. */
static void failed_step_rolls_back_earlier_applies(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = variable(g, "a", TF_FLOAT, d22, 2), *b = variable(g, "b", TF_FLOAT, d22, 2);
  TF_Operation *c = constant(g, "c", TF_FLOAT, d22, 2, var22);
  TF_Operation *ia = binary(g, "Assign", "a/Assign", out0(a), out0(c));
  TF_Operation *ib = binary(g, "Assign", "b/Assign", out0(b), out0(c));
  TF_Operation *alpha = constant(g, "alpha", TF_FLOAT, NULL, 0, (double[]){0.5});
  TF_Operation *p = placeholder(g, "p", TF_FLOAT);
  TF_OperationDescription *d = TF_NewOperation(g, "ApplyGradientDescent", "up_a");
  TF_AddInput(d, out0(a));
  TF_AddInput(d, out0(alpha));
  TF_AddInput(d, out0(c));
  TF_Operation *up_a = finish(d, __LINE__);
  d = TF_NewOperation(g, "ApplyGradientDescent", "up_b");
  TF_AddInput(d, out0(b));
  TF_AddInput(d, out0(alpha));
  TF_AddInput(d, out0(p));
  TF_AddControlInput(d, up_a);
  TF_Operation *up_b = finish(d, __LINE__);
  TF_Session *sess = session(g, 0);
  run_ok(sess, ia, __LINE__);
  run_ok(sess, ib, __LINE__);
  TF_Output feed = out0(p);
  TF_Tensor *bad = tensor(TF_FLOAT, d3, 1, var22);
  char msg[1024];
  EXPECT_EQ(run(sess, &feed, &bad, 1, NULL, NULL, 0, up_b, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "var and delta do not have the same shape[2,2] [3]");
  TF_Output fa = out0(a);
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(sess, NULL, NULL, 0, &fa, &t, 1, NULL, NULL, 0), TF_OK);
  for (int i = 0; i < 4; i++) EXPECT_EQ(elem(t, i), var22[i]);
  TF_DeleteTensor(t);
  TF_DeleteTensor(bad);
  close_all(sess, g);
}

static const tfc_test tests[] = {
    TFC_TEST(apply_ops_match_tensorflow_float),
    TFC_TEST(apply_ops_match_tensorflow_double),
    TFC_TEST(resource_apply_ops_match_tensorflow_float),
    TFC_TEST(resource_apply_ops_match_tensorflow_double),
    TFC_TEST(large_variables_split_over_threads_match_tensorflow),
    TFC_TEST(non_scalar_lr_is_invalid_argument_and_changes_nothing),
    TFC_TEST(grad_shape_mismatch_is_invalid_argument_and_changes_nothing),
    TFC_TEST(slot_shape_mismatch_is_invalid_argument),
    TFC_TEST(uninitialized_slot_is_failed_precondition_and_var_unchanged),
    TFC_TEST(uninitialized_resource_slot_is_not_found),
    TFC_TEST(adam_errors_use_tensorflow_texts),
    TFC_TEST(shape_function_rejects_known_bad_shapes),
    TFC_TEST(failed_step_rolls_back_earlier_applies),
    {0},
};

TFC_TEST_MAIN(tests)

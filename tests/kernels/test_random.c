/*
 * Kernel tests: the random ops (RandomUniform, RandomUniformInt, RandomStandardNormal,
 * TruncatedNormal, Multinomial) against TensorFlow's own outputs, bit for bit.
 *
 * tests/fixtures/random_ops.txt (written by tests/fixtures/gen_random.py from real TF; format
 * in that script's header) records, per case, three consecutive runs of one node. Here each
 * case builds the node once, runs the kernel's init once and its compute three times on the
 * same state, as the executor does, and compares every element: in full through the FNV-1a
 * hash of the output bytes, and element by element for the recorded head and tail.
 *
 * Also: values do not depend on the intra-op thread count, seed = seed2 = 0 draws fresh
 * seeds, and bad inputs give TF's error codes and texts (kernel and shape function).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"
#include "random_fixture.h"

/* ---- a node with its kernel state, run several times ---- */

typedef struct rnode {
  tfc_graph *g;
  tfc_node *n;
  const tfc_kernel_def *k;
  void *state;
} rnode;

/* Builds `op` with Placeholder inputs shaped like `inputs` (or, with const_shape, a Const
 * holding inputs[0] as the shape input, so the shape function sees its value). Returns the
 * status code; on success r holds the node and its kernel's initialized state. */
static int rnode_open(rnode *r, const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor *const *inputs,
                      int n_inputs, int const_shape, tfc_status *s) {
  memset(r, 0, sizeof *r);
  r->g = tfc_graph_new();
  tfc_endpoint eps[3];
  for (int i = 0; i < n_inputs; i++) {
    char name[32];
    snprintf(name, sizeof name, "in%d", i);
    tfc_node_desc *d;
    tfc_attr_value v = tfc_attr_type(inputs[i]->dtype);
    if (i == 0 && const_shape) {
      d = tfc_node_desc_new(r->g, "Const", name);
      tfc_attr_value tv = tfc_attr_tensor(tfc_tensor_ref(inputs[i]));
      tfc_node_desc_set_attr(d, "value", &tv);
    } else {
      d = tfc_node_desc_new(r->g, "Placeholder", name);
      tfc_shape sh = tfc_tensor_shape(inputs[i]);
      tfc_attr_value sv;
      tfc_attr_shape(&sh, &sv, s);
      tfc_node_desc_set_attr(d, "shape", &sv);
    }
    tfc_node_desc_set_attr(d, "dtype", &v);
    tfc_node *n = tfc_node_desc_finish(d, s);
    if (!n) tfc_test_fail(__FILE__, __LINE__, "input %d: %s", i, tfc_status_msg(s));
    eps[i] = (tfc_endpoint){n, 0};
  }
  tfc_node_desc *d = tfc_node_desc_new(r->g, op, "op");
  for (int i = 0; i < n_inputs; i++) tfc_node_desc_add_input(d, eps[i]);
  for (int i = 0; i < n_attrs; i++) {
    tfc_attr_value v;
    tfc_attr_value_copy(&attrs[i].value, &v, s);
    tfc_node_desc_set_attr(d, attrs[i].name, &v);
  }
  r->n = tfc_node_desc_finish(d, s);
  if (!r->n) return s->code;
  const tfc_kernel_table *kt = tfc_cpu_kernel_table(s);
  r->k = kt ? tfc_kernel_find(kt, r->n, s) : NULL;
  if (!r->k) return s->code;
  if (r->k->init && r->k->init(r->n, &r->state, s)) return s->code;
  return TFC_OK;
}

/* One compute on the node's state; *out is a new reference (NULL on error). */
static int rnode_run(rnode *r, tfc_tensor *const *inputs, int n_inputs, tfc_threadpool *pool, int max_parallel,
                     tfc_tensor **out, tfc_status *s) {
  tfc_tensor *o[1] = {NULL};
  tfc_kernel_ctx c = {.node = r->n, .state = r->state, .n_inputs = n_inputs, .inputs = (tfc_tensor **)inputs,
                      .n_outputs = 1, .outputs = o, .pool = pool, .max_parallel = max_parallel, .status = s};
  r->k->compute(&c);
  if (!tfc_status_ok(s)) {
    tfc_tensor_unref(o[0]);
    *out = NULL;
    return s->code;
  }
  if (!o[0]) tfc_test_fail(__FILE__, __LINE__, "no output");
  tfc_shape got = tfc_tensor_shape(o[0]);
  if (!tfc_shape_compatible(&r->n->output_shapes[0], &got))
    tfc_test_fail(__FILE__, __LINE__, "inferred and computed shapes differ");
  *out = o[0];
  return TFC_OK;
}

static void rnode_close(rnode *r) {
  if (r->k && r->k->free_state && r->state) r->k->free_state(r->state);
  tfc_graph_free(r->g);
}

/* ---- fixture ---- */

typedef struct fcase {
  char op[32], dtype[16], tdtype[16], dims_text[64];
  long long seed, seed2, lo, hi;
  int ndims;
  int64_t dims[8];
} fcase;

static void parse_case(const char *line, fcase *c) {
  memset(c, 0, sizeof *c);
  int got = sscanf(line, "case %31s %15s %15s %lld %lld %63s %lld %lld", c->op, c->dtype, c->tdtype, &c->seed,
                   &c->seed2, c->dims_text, &c->lo, &c->hi);
  if (got < 6) tfc_test_fail(__FILE__, __LINE__, "bad fixture line: %s", line);
  if (strcmp(c->dims_text, "-") != 0) {
    for (char *p = c->dims_text; *p;) {
      c->dims[c->ndims++] = strtoll(p, &p, 10);
      if (*p == ',') p++;
    }
  }
}

/* The inputs of a case: the shape vector (int32 or int64), plus minval/maxval scalars. */
static int case_inputs(const fcase *fc, tfc_tensor **in) {
  int tdt = tfc_dtype_from_name(fc->tdtype, strlen(fc->tdtype));
  int64_t n = fc->ndims;
  in[0] = ku_typed(tdt, &n, 1, NULL);
  for (int i = 0; i < fc->ndims; i++) ku_set(in[0], i, (double)fc->dims[i]);
  if (strcmp(fc->op, "RandomUniformInt") != 0) return 1;
  if (strcmp(fc->dtype, "int32") == 0) {
    int32_t lo = (int32_t)fc->lo, hi = (int32_t)fc->hi;
    in[1] = ku_i32(NULL, 0, &lo);
    in[2] = ku_i32(NULL, 0, &hi);
  } else {
    int64_t lo = fc->lo, hi = fc->hi;
    in[1] = ku_i64(NULL, 0, &lo);
    in[2] = ku_i64(NULL, 0, &hi);
  }
  return 3;
}

static void open_case(rnode *r, const fcase *fc, tfc_tensor *const *in, int n_in, tfc_status *s) {
  int tdt = tfc_dtype_from_name(fc->tdtype, strlen(fc->tdtype));
  int dt = tfc_dtype_from_name(fc->dtype, strlen(fc->dtype));
  int is_int = strcmp(fc->op, "RandomUniformInt") == 0;
  ku_attr attrs[4] = {{"seed", tfc_attr_int(fc->seed)},
                      {"seed2", tfc_attr_int(fc->seed2)},
                      {is_int ? "Tout" : "dtype", tfc_attr_type(dt)},
                      {"T", tfc_attr_type(tdt)}};
  if (rnode_open(r, fc->op, attrs, 4, in, n_in, 0, s))
    tfc_test_fail(__FILE__, __LINE__, "%s %s: %s", fc->op, fc->dtype, tfc_status_msg(s));
}

/* Compares one run with its "run", "head" and optional "tail" lines. */
static void check_run(const fcase *fc, int k, const tfc_tensor *out, char **p) {
  char *line = next_line(p);
  int run = 0;
  long long n = 0;
  unsigned long long hash = 0;
  if (!line || sscanf(line, "run %d %lld %llx", &run, &n, &hash) != 3 || run != k)
    tfc_test_fail(__FILE__, __LINE__, "fixture: expected run %d, got %s", k, line ? line : "EOF");
  if (out->n_elems != n)
    tfc_test_fail(__FILE__, __LINE__, "%s %s seed=%lld,%lld dims=%s run %d: %lld elements, TF %lld", fc->op,
                  fc->dtype, fc->seed, fc->seed2, fc->dims_text, k, (long long)out->n_elems, n);
  for (int part = 0; part < (n > 64 ? 2 : 1); part++) {
    line = next_line(p);
    const char *tag = part ? "tail " : "head";
    if (!line || strncmp(line, tag, strlen(tag)) != 0)
      tfc_test_fail(__FILE__, __LINE__, "fixture: expected %s line", tag);
    char *q = line + 4;
    int64_t i = part ? n - 32 : 0;
    for (;;) {
      while (*q == ' ') q++;
      if (!*q) break;
      uint64_t want = strtoull(q, &q, 16), got = elem_bits(out, i);
      if (got != want)
        tfc_test_fail(__FILE__, __LINE__,
                      "%s %s seed=%lld,%lld dims=%s run %d element %lld: 0x%llx, TF 0x%llx", fc->op,
                      fc->dtype, fc->seed, fc->seed2, fc->dims_text, k, (long long)i,
                      (unsigned long long)got, (unsigned long long)want);
      i++;
    }
  }
  uint64_t h = fnv1a64(out->data, out->n_bytes);
  if (h != hash)
    tfc_test_fail(__FILE__, __LINE__, "%s %s seed=%lld,%lld dims=%s run %d: output hash %016llx, TF %016llx",
                  fc->op, fc->dtype, fc->seed, fc->seed2, fc->dims_text, k, (unsigned long long)h, hash);
}

/* Runs every fixture case whose op is `op` (NULL: all); returns how many ran. */
static int run_fixture(const char *op) {
  char *buf = read_fixture("random_ops.txt"), *p = buf, *line;
  tfc_status s;
  tfc_status_init(&s);
  tfc_threadpool *pool = tfc_threadpool_new(3, "random-test");
  int n_cases = 0;
  while ((line = next_line(&p))) {
    if (line[0] == '#' || !line[0]) continue;
    fcase fc;
    parse_case(line, &fc);
    if (op && strcmp(fc.op, op) != 0) {
      for (int k = 1; k <= 3; k++) { /* skip the case's records */
        char *r = next_line(&p);
        long long n = 0;
        sscanf(r, "run %*d %lld", &n);
        next_line(&p);
        if (n > 64) next_line(&p);
      }
      continue;
    }
    tfc_tensor *in[3] = {NULL};
    int n_in = case_inputs(&fc, in);
    rnode r;
    open_case(&r, &fc, in, n_in, &s);
    for (int k = 1; k <= 3; k++) {
      tfc_tensor *out = NULL;
      if (rnode_run(&r, in, n_in, pool, 0, &out, &s))
        tfc_test_fail(__FILE__, __LINE__, "%s run %d: %s", fc.op, k, tfc_status_msg(&s));
      check_run(&fc, k, out, &p);
      tfc_tensor_unref(out);
    }
    rnode_close(&r);
    for (int i = 0; i < n_in; i++) tfc_tensor_unref(in[i]);
    n_cases++;
  }
  tfc_threadpool_free(pool);
  free(buf);
  return n_cases;
}

static void random_uniform_matches_tf_bit_for_bit(void) { EXPECT_EQ(run_fixture("RandomUniform"), 124); }
static void random_standard_normal_matches_tf_bit_for_bit(void) {
  EXPECT_EQ(run_fixture("RandomStandardNormal"), 124);
}
static void truncated_normal_matches_tf_bit_for_bit(void) { EXPECT_EQ(run_fixture("TruncatedNormal"), 124); }
static void random_uniform_int_matches_tf_bit_for_bit(void) { EXPECT_EQ(run_fixture("RandomUniformInt"), 62); }

/* ---- determinism across thread counts ---- */

/* Runs op twice on fresh nodes with the same seeds: one single-threaded, one on a pool. */
static void same_values_for_every_thread_count(void) {
  const char *ops[] = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"};
  const int dts[] = {TFC_DT_FLOAT, TFC_DT_DOUBLE, TFC_DT_HALF};
  tfc_status s;
  tfc_status_init(&s);
  tfc_threadpool *pool = tfc_threadpool_new(4, "random-test");
  int64_t two = 2, dims[2] = {517, 1031}; /* 533027 elements: many shards, partial last group */
  tfc_tensor *shape = ku_i64(&two, 1, dims);
  for (int o = 0; o < 3; o++) {
    for (int d = 0; d < 3; d++) {
      ku_attr attrs[3] = {{"seed", tfc_attr_int(99)}, {"seed2", tfc_attr_int(7)}, {"dtype", tfc_attr_type(dts[d])}};
      tfc_tensor *ref = NULL;
      const int widths[] = {1, 2, 5};
      for (int w = 0; w < 3; w++) {
        rnode r;
        if (rnode_open(&r, ops[o], attrs, 3, &shape, 1, 0, &s)) tfc_test_fail(__FILE__, __LINE__, "%s", s.msg);
        tfc_tensor *out = NULL;
        EXPECT_EQ(rnode_run(&r, &shape, 1, w == 0 ? NULL : pool, widths[w], &out, &s), TFC_OK);
        if (!ref) ref = out;
        else {
          EXPECT_EQ(out->n_bytes, ref->n_bytes);
          EXPECT_TRUE(memcmp(out->data, ref->data, ref->n_bytes) == 0);
          tfc_tensor_unref(out);
        }
        rnode_close(&r);
      }
      tfc_tensor_unref(ref);
    }
  }
  tfc_tensor_unref(shape);
  tfc_threadpool_free(pool);
}

/* ---- seeds ---- */

static tfc_tensor *run_once(const char *op, int64_t seed, int64_t seed2, int64_t n) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t one = 1;
  tfc_tensor *shape = ku_i64(&one, 1, &n);
  ku_attr attrs[3] = {{"seed", tfc_attr_int(seed)}, {"seed2", tfc_attr_int(seed2)},
                      {"dtype", tfc_attr_type(TFC_DT_FLOAT)}};
  tfc_tensor *out = NULL;
  if (ku_run(op, attrs, 3, &shape, 1, NULL, &out, 1, &s)) tfc_test_fail(__FILE__, __LINE__, "%s", s.msg);
  tfc_tensor_unref(shape);
  return out;
}

static void zero_seeds_draw_random_seeds(void) {
  tfc_tensor *a = run_once("RandomUniform", 0, 0, 64), *b = run_once("RandomUniform", 0, 0, 64);
  /* Two fresh nodes agree on all 64 floats only if they drew the same 128 seed bits. */
  EXPECT_TRUE(memcmp(a->data, b->data, a->n_bytes) != 0);
  for (int i = 0; i < 64; i++) {
    float v = ((float *)a->data)[i];
    EXPECT_TRUE(v >= 0.0f && v < 1.0f);
  }
  tfc_tensor_unref(a);
  tfc_tensor_unref(b);
  /* A single nonzero seed is deterministic. */
  a = run_once("RandomUniform", 0, 5, 16);
  b = run_once("RandomUniform", 0, 5, 16);
  EXPECT_TRUE(memcmp(a->data, b->data, a->n_bytes) == 0);
  tfc_tensor_unref(a);
  tfc_tensor_unref(b);
}

static void defaults_fill_missing_seed_attrs(void) {
  const tfc_opdef *op = tfc_op_lookup("TruncatedNormal");
  EXPECT_TRUE(op != NULL);
  EXPECT_TRUE(op->flags & TFC_OPF_STATEFUL);
  const tfc_attr_def *seed = tfc_opdef_attr(op, "seed2");
  EXPECT_TRUE(seed && seed->has_default && seed->default_value.u.i == 0);
  const tfc_attr_def *dt = tfc_opdef_attr(op, "dtype");
  EXPECT_TRUE(dt && !dt->has_default);
  EXPECT_EQ(dt->n_allowed, 4);
  EXPECT_TRUE(tfc_op_lookup("RandomUniformInt")->flags & TFC_OPF_STATEFUL);
}

/* ---- errors ---- */

static int run_int(int64_t nd, const int64_t *dims, tfc_tensor *lo, tfc_tensor *hi, tfc_tensor **out,
                   tfc_status *s) {
  tfc_tensor *shape = ku_i64(&nd, 1, dims);
  tfc_tensor *in[3] = {shape, lo, hi};
  ku_attr attrs[2] = {{"seed", tfc_attr_int(1)}, {"seed2", tfc_attr_int(2)}};
  int code = ku_run("RandomUniformInt", attrs, 2, in, 3, NULL, out, 1, s);
  tfc_tensor_unref(shape);
  return code;
}

static void uniform_int_needs_minval_below_maxval(void) {
  tfc_status s;
  tfc_status_init(&s);
  int32_t five = 5, four = 4;
  tfc_tensor *lo = ku_i32(NULL, 0, &five), *hi = ku_i32(NULL, 0, &five), *hi4 = ku_i32(NULL, 0, &four);
  tfc_tensor *out = NULL;
  int64_t d3 = 3, d0 = 0;
  EXPECT_EQ(run_int(1, &d3, lo, hi, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Need minval < maxval: 5 >= 5");
  tfc_status_clear(&s);
  EXPECT_EQ(run_int(1, &d3, lo, hi4, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Need minval < maxval: 5 >= 4");
  tfc_status_clear(&s);
  /* An empty output skips the check, as in TF. */
  EXPECT_EQ(run_int(1, &d0, lo, hi, &out, &s), TFC_OK);
  EXPECT_EQ(out->n_elems, 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(lo);
  tfc_tensor_unref(hi);
  tfc_tensor_unref(hi4);
}

static void uniform_int_bounds_must_be_scalars(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t one = 1, d3 = 3;
  int64_t v1 = 1, v9 = 9;
  tfc_tensor *lo_vec = ku_i64(&one, 1, &v1), *lo = ku_i64(NULL, 0, &v1), *hi = ku_i64(NULL, 0, &v9);
  tfc_tensor *hi_vec = ku_i64(&one, 1, &v9), *out = NULL;
  /* The shape function rejects known non-scalar bounds first (TF 1.15's WithRank). */
  EXPECT_EQ(run_int(1, &d3, lo_vec, hi, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be rank 0 but is rank 1");
  tfc_status_clear(&s);
  EXPECT_EQ(run_int(1, &d3, lo, hi_vec, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be rank 0 but is rank 1");
  tfc_status_clear(&s);
  /* At run time (the graph did not know the ranks) the kernel says so itself. */
  rnode r;
  tfc_tensor *shape = ku_i64(&one, 1, &d3);
  tfc_tensor *in[3] = {shape, lo, hi};
  ku_attr attrs[3] = {{"seed", tfc_attr_int(1)}, {"seed2", tfc_attr_int(2)}, {"Tout", tfc_attr_type(TFC_DT_INT64)}};
  EXPECT_EQ(rnode_open(&r, "RandomUniformInt", attrs, 3, in, 3, 0, &s), TFC_OK);
  tfc_tensor *bad[3] = {shape, lo_vec, hi};
  EXPECT_EQ(rnode_run(&r, bad, 3, NULL, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "minval must be 0-D, got shape [1]");
  tfc_status_clear(&s);
  tfc_tensor *bad2[3] = {shape, lo, hi_vec};
  EXPECT_EQ(rnode_run(&r, bad2, 3, NULL, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "maxval must be 0-D, got shape [1]");
  rnode_close(&r);
  tfc_tensor_unref(shape);
  tfc_tensor_unref(lo_vec);
  tfc_tensor_unref(lo);
  tfc_tensor_unref(hi);
  tfc_tensor_unref(hi_vec);
}

static void negative_dims_are_rejected(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t two = 2, dims[2] = {2, -1}, dims2[2] = {2, -2};
  tfc_tensor *shape = ku_i64(&two, 1, dims), *shape2 = ku_i64(&two, 1, dims2), *out = NULL;
  ku_attr attrs[3] = {{"seed", tfc_attr_int(1)}, {"seed2", tfc_attr_int(2)}, {"dtype", tfc_attr_type(TFC_DT_FLOAT)}};
  /* Unknown at graph time: the kernel rejects it. */
  EXPECT_EQ(ku_run("RandomUniform", attrs, 3, &shape, 1, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Dimension -1 must be >= 0");
  tfc_status_clear(&s);
  /* A constant shape: -1 is an unknown dim to the shape function, -2 an error. */
  rnode r;
  EXPECT_EQ(rnode_open(&r, "RandomStandardNormal", attrs, 3, &shape, 1, 1, &s), TFC_OK);
  EXPECT_EQ(r.n->output_shapes[0].rank, 2);
  EXPECT_EQ(r.n->output_shapes[0].dims[0], 2);
  EXPECT_EQ(r.n->output_shapes[0].dims[1], -1);
  EXPECT_EQ(rnode_run(&r, &shape, 1, NULL, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Dimension -1 must be >= 0");
  rnode_close(&r);
  tfc_status_clear(&s);
  EXPECT_EQ(rnode_open(&r, "TruncatedNormal", attrs, 3, &shape2, 1, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Invalid value in tensor used for shape: -2");
  rnode_close(&r);
  tfc_tensor_unref(shape);
  tfc_tensor_unref(shape2);
}

static void shape_input_must_be_a_vector(void) {
  tfc_status s;
  tfc_status_init(&s);
  int32_t five = 5;
  int64_t d11[2] = {1, 1};
  tfc_tensor *scalar = ku_i32(NULL, 0, &five), *matrix = ku_i32(d11, 2, &five), *out = NULL;
  ku_attr attrs[1] = {{"dtype", tfc_attr_type(TFC_DT_DOUBLE)}};
  /* Graph time, known rank. */
  EXPECT_EQ(ku_run("RandomUniform", attrs, 1, &scalar, 1, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be rank 1 but is rank 0");
  tfc_status_clear(&s);
  /* Run time: a graph with a length-1 vector placeholder, then fed other ranks. */
  int64_t one = 1;
  tfc_tensor *vec = ku_i32(&one, 1, &five);
  rnode r;
  EXPECT_EQ(rnode_open(&r, "RandomUniform", attrs, 1, &vec, 1, 0, &s), TFC_OK);
  EXPECT_EQ(rnode_run(&r, &scalar, 1, NULL, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "shape must be a vector of {int32,int64}, got shape []");
  tfc_status_clear(&s);
  EXPECT_EQ(rnode_run(&r, &matrix, 1, NULL, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "shape must be a vector of {int32,int64}, got shape [1,1]");
  tfc_status_clear(&s);
  rnode_close(&r);
  tfc_tensor_unref(scalar);
  tfc_tensor_unref(matrix);
  tfc_tensor_unref(vec);
}

/* A failed run leaves the stream where it was (TF validates before reserving). */
static void failed_run_does_not_advance_the_stream(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t one = 1, four = 4, neg = -4;
  tfc_tensor *good = ku_i64(&one, 1, &four), *bad = ku_i64(&one, 1, &neg);
  ku_attr attrs[3] = {{"seed", tfc_attr_int(1)}, {"seed2", tfc_attr_int(2)}, {"dtype", tfc_attr_type(TFC_DT_FLOAT)}};
  rnode r;
  EXPECT_EQ(rnode_open(&r, "RandomUniform", attrs, 3, &good, 1, 0, &s), TFC_OK);
  tfc_tensor *out = NULL;
  EXPECT_EQ(rnode_run(&r, &bad, 1, NULL, 0, &out, &s), TFC_INVALID_ARGUMENT);
  tfc_status_clear(&s);
  EXPECT_EQ(rnode_run(&r, &good, 1, NULL, 0, &out, &s), TFC_OK);
  /* TF's first run of RandomUniform(seed=1, seed2=2) (see the fixture's [7] case). */
  const uint32_t want[4] = {0x3ed0133cu, 0x3f5b8ba6u, 0x3d62e6c0u, 0x3dafddd0u};
  for (int i = 0; i < 4; i++) EXPECT_EQ(elem_bits(out, i), want[i]);
  tfc_tensor_unref(out);
  rnode_close(&r);
  tfc_tensor_unref(good);
  tfc_tensor_unref(bad);
}

/* Multinomial: TF's first run for logits [[0, 1, 2], [3, -inf, 0.5]], 5 samples, seeds
 * (87654321, 3) (tf.multinomial(..., seed=3)); -inf logits are never drawn. */
static void multinomial_matches_tf_first_run(void) {
  tfc_status s;
  tfc_status_init(&s);
  float lv[6] = {0.0f, 1.0f, 2.0f, 3.0f, -INFINITY, 0.5f};
  tfc_tensor *in[2] = {ku_f32((int64_t[]){2, 3}, 2, lv), ku_i32(NULL, 0, (int32_t[]){5})}, *out = NULL;
  ku_attr attrs[2] = {{"seed", tfc_attr_int(87654321)}, {"seed2", tfc_attr_int(3)}};
  EXPECT_EQ(ku_run("Multinomial", attrs, 2, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->dtype, TFC_DT_INT64);
  const int64_t want[10] = {1, 2, 0, 2, 2, 0, 0, 0, 0, 0};
  for (int i = 0; i < 10; i++) EXPECT_EQ(((const int64_t *)out->data)[i], want[i]);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(NULL, 0, (int32_t[]){-1});
  EXPECT_EQ(ku_run_unknown("Multinomial", NULL, 0, in, 2, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "num_samples should be nonnegative, got -1");
  tfc_status_clear(&s);
  tfc_tensor_unref(in[0]);
  in[0] = ku_f32((int64_t[]){3}, 1, lv);
  EXPECT_EQ(ku_run_unknown("Multinomial", NULL, 0, in, 2, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "logits should be a matrix, got shape [3]");
  for (int i = 0; i < 2; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(multinomial_matches_tf_first_run),
    TFC_TEST(random_uniform_matches_tf_bit_for_bit),
    TFC_TEST(random_standard_normal_matches_tf_bit_for_bit),
    TFC_TEST(truncated_normal_matches_tf_bit_for_bit),
    TFC_TEST(random_uniform_int_matches_tf_bit_for_bit),
    TFC_TEST(same_values_for_every_thread_count),
    TFC_TEST(zero_seeds_draw_random_seeds),
    TFC_TEST(defaults_fill_missing_seed_attrs),
    TFC_TEST(uniform_int_needs_minval_below_maxval),
    TFC_TEST(uniform_int_bounds_must_be_scalars),
    TFC_TEST(negative_dims_are_rejected),
    TFC_TEST(shape_input_must_be_a_vector),
    TFC_TEST(failed_run_does_not_advance_the_stream),
    {0},
};
TFC_TEST_MAIN(tests)

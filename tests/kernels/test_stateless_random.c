/*
 * Kernel tests: the stateless random ops (StatelessRandomUniform & co, their V2 forms and
 * StatelessRandomGetKeyCounter / GetKeyCounterAlg / GetAlg) against TensorFlow's own outputs,
 * bit for bit, and TF's error codes and texts.
 *
 * tests/fixtures/stateless_random_ops.txt (written by tests/fixtures/gen_stateless_random.py
 * from real TF; format in that script's header) records per case the op, its attrs and input
 * tensors, and each output's element count, FNV-1a hash of all its bytes and first elements.
 * Each case runs twice: once with the inputs' shapes known to the graph (shape functions run)
 * on a thread pool, once with unknown shapes on the calling thread; both runs must equal TF's
 * (so a stateless op gives the same values every run, whatever the threads). Error records
 * run the kernel (inputs of unknown graph shape) or build the node (shape functions) and
 * compare the status code and message.
 *
 * Also: V2 on GetKeyCounter's key/counter gives V1's values, output shapes from a constant
 * shape input, op flags and defaults, and the kernel rows TF does not have.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"
#include "random_fixture.h"

/* ---- fixture ---- */

#define MAX_IN 6

/* One node: op, type attrs and input tensors, parsed from "<op> <attrs> <input> ...". */
typedef struct fnode {
  char op[64], text[512];
  ku_attr attrs[4];
  int n_attrs;
  tfc_tensor *in[MAX_IN];
  int n_in;
} fnode;

static int dtype_named(const char *name, size_t n) {
  int dt = tfc_dtype_from_name(name, n);
  if (dt <= 0) tfc_test_fail(__FILE__, __LINE__, "fixture: unknown dtype %.*s", (int)n, name);
  return dt;
}

/* "<dtype>:<dims>:<values>" -> a new tensor. */
static tfc_tensor *parse_tensor(char *tok) {
  char *c1 = strchr(tok, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c2) tfc_test_fail(__FILE__, __LINE__, "fixture: bad input %s", tok);
  int dt = dtype_named(tok, (size_t)(c1 - tok));
  int64_t dims[8];
  int nd = 0;
  if (c2 != c1 + 2 || c1[1] != '-') { /* "-": a scalar */
    for (char *q = c1 + 1; q < c2;) {
      dims[nd++] = strtoll(q, &q, 10);
      if (*q == ',') q++;
    }
  }
  tfc_tensor *t = ku_typed(dt, dims, nd, NULL);
  if (strcmp(c2 + 1, "-") != 0) { /* "-": no values */
    int64_t i = 0;
    for (char *q = c2 + 1; *q; i++) {
      if (i >= t->n_elems) tfc_test_fail(__FILE__, __LINE__, "fixture: too many values in %s", tok);
      uint64_t u = (dt == TFC_DT_UINT32 || dt == TFC_DT_UINT64) ? strtoull(q, &q, 10) : (uint64_t)strtoll(q, &q, 10);
      memcpy((char *)t->data + (size_t)i * tfc_dtype_size(dt), &u, tfc_dtype_size(dt));
      if (*q == ',') q++;
    }
  }
  return t;
}

/* Parses from `s` (modified) up to its end. */
static void parse_node(char *s, fnode *f) {
  memset(f, 0, sizeof *f);
  snprintf(f->text, sizeof f->text, "%s", s);
  char *save = NULL, *tok = strtok_r(s, " ", &save);
  if (!tok) tfc_test_fail(__FILE__, __LINE__, "fixture: empty node");
  snprintf(f->op, sizeof f->op, "%s", tok);
  char *attrs = strtok_r(NULL, " ", &save);
  if (!attrs) tfc_test_fail(__FILE__, __LINE__, "fixture: no attrs for %s", f->op);
  if (strcmp(attrs, "-") != 0) {
    char *asave = NULL;
    for (char *a = strtok_r(attrs, ",", &asave); a; a = strtok_r(NULL, ",", &asave)) {
      char *eq = strchr(a, '=');
      if (!eq || f->n_attrs == 4) tfc_test_fail(__FILE__, __LINE__, "fixture: bad attr %s", a);
      *eq = '\0';
      /* The names live in the line buffer, which outlives the node. */
      f->attrs[f->n_attrs++] = (ku_attr){a, tfc_attr_type(dtype_named(eq + 1, strlen(eq + 1)))};
    }
  }
  while ((tok = strtok_r(NULL, " ", &save))) {
    if (f->n_in == MAX_IN) tfc_test_fail(__FILE__, __LINE__, "fixture: too many inputs");
    f->in[f->n_in++] = parse_tensor(tok);
  }
}

static void free_node(fnode *f) {
  for (int i = 0; i < f->n_in; i++) tfc_tensor_unref(f->in[i]);
}

/* Compares output t with an "out <i> <n> <fnv> <hex>..." record. */
static void check_out(const fnode *f, const char *how, int i, const tfc_tensor *t, char *rec) {
  int idx = -1;
  long long n = -1;
  unsigned long long hash = 0;
  int used = 0;
  if (sscanf(rec, "out %d %lld %llx%n", &idx, &n, &hash, &used) != 3 || idx != i)
    tfc_test_fail(__FILE__, __LINE__, "fixture: expected out %d, got %s", i, rec);
  if (t->n_elems != n)
    tfc_test_fail(__FILE__, __LINE__, "%s (%s) output %d: %lld elements, TF %lld", f->text, how, i,
                  (long long)t->n_elems, n);
  char *q = rec + used;
  for (int64_t k = 0;; k++) {
    while (*q == ' ') q++;
    if (!*q) break;
    uint64_t want = strtoull(q, &q, 16), got = elem_bits(t, k);
    if (got != want)
      tfc_test_fail(__FILE__, __LINE__, "%s (%s) output %d element %lld: 0x%llx, TF 0x%llx", f->text, how, i,
                    (long long)k, (unsigned long long)got, (unsigned long long)want);
  }
  uint64_t h = fnv1a64(t->data, t->n_bytes);
  if (h != hash)
    tfc_test_fail(__FILE__, __LINE__, "%s (%s) output %d: hash %016llx, TF %016llx", f->text, how, i,
                  (unsigned long long)h, hash);
}

enum { N_OUT_MAX = 3 };

/* Runs one "case" record and its "out" records (counted first). */
static void run_case(char *spec, char **p) {
  fnode f;
  parse_node(spec, &f);
  char *recs[N_OUT_MAX];
  int n_out = 0;
  while (**p == 'o' && strncmp(*p, "out ", 4) == 0) {
    if (n_out == N_OUT_MAX) tfc_test_fail(__FILE__, __LINE__, "fixture: too many outputs");
    recs[n_out++] = next_line(p);
  }
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *a[N_OUT_MAX] = {NULL}, *b[N_OUT_MAX] = {NULL};
  /* Known shapes (shape functions run; the graph's shapes must agree), on two threads. */
  if (ku_run(f.op, f.attrs, f.n_attrs, f.in, f.n_in, NULL, a, n_out, &s))
    tfc_test_fail(__FILE__, __LINE__, "%s: %s", f.text, tfc_status_msg(&s));
  /* Again, unknown shapes, on the calling thread: the same values. */
  if (ku_run_unknown(f.op, f.attrs, f.n_attrs, f.in, f.n_in, b, n_out, &s))
    tfc_test_fail(__FILE__, __LINE__, "%s (second run): %s", f.text, tfc_status_msg(&s));
  for (int i = 0; i < n_out; i++) {
    char copy[512];
    snprintf(copy, sizeof copy, "%s", recs[i]);
    check_out(&f, "first run", i, a[i], copy);
    check_out(&f, "second run", i, b[i], recs[i]);
    tfc_tensor_unref(a[i]);
    tfc_tensor_unref(b[i]);
  }
  free_node(&f);
  tfc_status_fini(&s);
}

/* Runs one "error <kernel|shape> <code> <node> | <message>" record. */
static void run_error(char *line) {
  char stage[16];
  int code = 0, used = 0;
  if (sscanf(line, "error %15s %d %n", stage, &code, &used) != 2)
    tfc_test_fail(__FILE__, __LINE__, "fixture: bad error line %s", line);
  char *bar = strstr(line, " | ");
  if (!bar) tfc_test_fail(__FILE__, __LINE__, "fixture: no message in %s", line);
  *bar = '\0';
  const char *want = bar + 3;
  fnode f;
  parse_node(line + used, &f);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *outs[N_OUT_MAX] = {NULL};
  const tfc_opdef *od = tfc_op_lookup(f.op);
  if (!od) tfc_test_fail(__FILE__, __LINE__, "unknown op %s", f.op);
  int got;
  if (strcmp(stage, "kernel") == 0) {
    got = ku_run_unknown(f.op, f.attrs, f.n_attrs, f.in, f.n_in, outs, od->n_outputs, &s);
    if (got != code || strcmp(tfc_status_msg(&s), want) != 0)
      tfc_test_fail(__FILE__, __LINE__, "%s: code %d \"%s\", TF %d \"%s\"", f.text, got, tfc_status_msg(&s), code,
                    want);
  } else {
    got = ku_run(f.op, f.attrs, f.n_attrs, f.in, f.n_in, NULL, outs, od->n_outputs, &s);
    /* tfc's shape errors add the node and its input shapes after TF's text, as TF does. */
    if (got != code || !strstr(tfc_status_msg(&s), want))
      tfc_test_fail(__FILE__, __LINE__, "%s: code %d \"%s\", TF %d \"%s\"", f.text, got, tfc_status_msg(&s), code,
                    want);
  }
  for (int i = 0; i < N_OUT_MAX; i++) tfc_tensor_unref(outs[i]);
  free_node(&f);
  tfc_status_fini(&s);
}

/* Runs every record whose op starts with `prefix` and is of `kind` ("case" or "error");
 * returns how many ran. */
static int run_fixture(const char *kind, const char *prefix) {
  char *buf = read_fixture("stateless_random_ops.txt"), *p = buf, *line;
  int n = 0;
  while ((line = next_line(&p))) {
    if (line[0] == '#' || !line[0]) continue;
    if (strncmp(line, "case ", 5) == 0) {
      if (strcmp(kind, "case") != 0 || strncmp(line + 5, prefix, strlen(prefix)) != 0) {
        while (strncmp(p, "out ", 4) == 0) next_line(&p);
        continue;
      }
      run_case(line + 5, &p);
      n++;
    } else if (strncmp(line, "error ", 6) == 0) {
      if (strcmp(kind, "error") != 0) continue;
      char *op = strchr(line + 6, ' ');
      op = op ? strchr(op + 1, ' ') : NULL;
      if (!op || strncmp(op + 1, prefix, strlen(prefix)) != 0) continue;
      run_error(line);
      n++;
    } else if (strncmp(line, "out ", 4) != 0) {
      tfc_test_fail(__FILE__, __LINE__, "fixture: unexpected line %s", line);
    }
  }
  free(buf);
  return n;
}

static void get_key_counter_matches_tf(void) {
  EXPECT_EQ(run_fixture("case", "StatelessRandomGet"), 8);
}
static void uniform_matches_tf_bit_for_bit(void) {
  EXPECT_EQ(run_fixture("case", "StatelessRandomUniform "), 10);
  EXPECT_EQ(run_fixture("case", "StatelessRandomUniformV2 "), 11);
}
static void normal_matches_tf_bit_for_bit(void) {
  EXPECT_EQ(run_fixture("case", "StatelessRandomNormal"), 20);
}
static void truncated_normal_matches_tf_bit_for_bit(void) {
  EXPECT_EQ(run_fixture("case", "StatelessTruncatedNormal"), 20);
}
static void uniform_int_matches_tf_bit_for_bit(void) {
  EXPECT_EQ(run_fixture("case", "StatelessRandomUniformInt"), 18);
}
static void uniform_full_int_matches_tf_bit_for_bit(void) {
  EXPECT_EQ(run_fixture("case", "StatelessRandomUniformFullInt"), 9);
}
static void errors_match_tf(void) { EXPECT_EQ(run_fixture("error", "Stateless"), 51); }

/* ---- properties ---- */

/* TF's own identity: the V2 op on GetKeyCounter(seed) with alg Philox is the V1 op on seed. */
static void v2_on_get_key_counter_is_v1(void) {
  tfc_status s;
  tfc_status_init(&s);
  const char *pairs[3][2] = {{"StatelessRandomUniform", "StatelessRandomUniformV2"},
                             {"StatelessRandomNormal", "StatelessRandomNormalV2"},
                             {"StatelessTruncatedNormal", "StatelessTruncatedNormalV2"}};
  const int64_t seeds[3][2] = {{1, 2}, {-7, (int64_t)1 << 40}, {INT64_MIN, INT64_MAX}};
  int64_t one = 1, two = 2, n = 999;
  tfc_tensor *shape = ku_i64(&one, 1, &n);
  for (int k = 0; k < 3; k++) {
    tfc_tensor *seed = ku_i64(&two, 1, seeds[k]), *kc[2] = {NULL};
    EXPECT_EQ(ku_run("StatelessRandomGetKeyCounter", NULL, 0, &seed, 1, NULL, kc, 2, &s), TFC_OK);
    int32_t alg_v = 1;
    tfc_tensor *alg = ku_i32(NULL, 0, &alg_v);
    for (int o = 0; o < 3; o++) {
      ku_attr a1[1] = {{"dtype", tfc_attr_type(TFC_DT_DOUBLE)}}, a2[1] = {{"dtype", tfc_attr_type(TFC_DT_DOUBLE)}};
      tfc_tensor *in1[2] = {shape, seed}, *in2[4] = {shape, kc[0], kc[1], alg}, *v1 = NULL, *v2 = NULL;
      EXPECT_EQ(ku_run(pairs[o][0], a1, 1, in1, 2, NULL, &v1, 1, &s), TFC_OK);
      EXPECT_EQ(ku_run(pairs[o][1], a2, 1, in2, 4, NULL, &v2, 1, &s), TFC_OK);
      EXPECT_EQ(v1->n_bytes, v2->n_bytes);
      EXPECT_TRUE(memcmp(v1->data, v2->data, v1->n_bytes) == 0);
      tfc_tensor_unref(v1);
      tfc_tensor_unref(v2);
    }
    tfc_tensor_unref(alg);
    tfc_tensor_unref(kc[0]);
    tfc_tensor_unref(kc[1]);
    tfc_tensor_unref(seed);
  }
  tfc_tensor_unref(shape);
  tfc_status_fini(&s);
}

/* TF reads past a one-word Philox counter (its length check takes the algorithm id as the
 * minimum); tfc takes the missing high word as 0. */
static void one_word_counter_has_zero_high_word(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t one = 1, two = 2, n = 9;
  uint64_t key_v = 5, c1_v = 77, c2_v[2] = {77, 0};
  int32_t alg_v = 3;
  tfc_tensor *shape = ku_i64(&one, 1, &n), *key = ku_typed(TFC_DT_UINT64, &one, 1, &key_v),
             *c1 = ku_typed(TFC_DT_UINT64, &one, 1, &c1_v), *c2 = ku_typed(TFC_DT_UINT64, &two, 1, c2_v),
             *alg = ku_i32(NULL, 0, &alg_v), *a = NULL, *b = NULL;
  tfc_tensor *in1[4] = {shape, key, c1, alg}, *in2[4] = {shape, key, c2, alg};
  EXPECT_EQ(ku_run("StatelessRandomUniformV2", NULL, 0, in1, 4, NULL, &a, 1, &s), TFC_OK);
  EXPECT_EQ(ku_run("StatelessRandomUniformV2", NULL, 0, in2, 4, NULL, &b, 1, &s), TFC_OK);
  EXPECT_TRUE(memcmp(a->data, b->data, a->n_bytes) == 0);
  tfc_tensor *in[] = {shape, key, c1, alg, a, b};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) tfc_tensor_unref(in[i]);
  tfc_tensor_unref(c2);
  tfc_status_fini(&s);
}

/* A Const shape input gives the output's static shape (TF's MakeShapeFromShapeTensor). */
static void static_shape_from_constant_shape(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_graph *g = tfc_graph_new();
  int64_t two = 2, dims[2] = {3, 5};
  tfc_tensor *shape = ku_i64(&two, 1, dims);
  tfc_node_desc *d = tfc_node_desc_new(g, "Const", "shape");
  tfc_attr_value tv = tfc_attr_tensor(shape), dt = tfc_attr_type(TFC_DT_INT64);
  tfc_node_desc_set_attr(d, "value", &tv);
  tfc_node_desc_set_attr(d, "dtype", &dt);
  tfc_node *cn = tfc_node_desc_finish(d, &s);
  EXPECT_TRUE(cn != NULL);
  d = tfc_node_desc_new(g, "Placeholder", "seed");
  dt = tfc_attr_type(TFC_DT_INT64);
  tfc_node_desc_set_attr(d, "dtype", &dt);
  tfc_node *seed = tfc_node_desc_finish(d, &s);
  EXPECT_TRUE(seed != NULL);
  d = tfc_node_desc_new(g, "StatelessTruncatedNormal", "op");
  tfc_node_desc_add_input(d, (tfc_endpoint){cn, 0});
  tfc_node_desc_add_input(d, (tfc_endpoint){seed, 0});
  tfc_node *n = tfc_node_desc_finish(d, &s);
  EXPECT_TRUE(n != NULL);
  EXPECT_EQ(n->output_types[0], TFC_DT_FLOAT); /* dtype's default */
  EXPECT_EQ(n->output_shapes[0].rank, 2);
  EXPECT_EQ(n->output_shapes[0].dims[0], 3);
  EXPECT_EQ(n->output_shapes[0].dims[1], 5);
  d = tfc_node_desc_new(g, "StatelessRandomGetKeyCounterAlg", "kc");
  tfc_node_desc_add_input(d, (tfc_endpoint){seed, 0});
  n = tfc_node_desc_finish(d, &s);
  EXPECT_TRUE(n != NULL);
  EXPECT_EQ(n->output_shapes[0].rank, 1);
  EXPECT_EQ(n->output_shapes[0].dims[0], 1);
  EXPECT_EQ(n->output_shapes[1].dims[0], 2);
  EXPECT_EQ(n->output_shapes[2].rank, 0);
  tfc_graph_free(g);
  tfc_status_fini(&s);
}

static void op_flags_and_defaults(void) {
  const char *stateless[] = {"StatelessRandomUniform",      "StatelessRandomNormal",
                             "StatelessTruncatedNormal",    "StatelessRandomUniformInt",
                             "StatelessRandomUniformFullInt", "StatelessRandomUniformV2",
                             "StatelessRandomNormalV2",     "StatelessTruncatedNormalV2",
                             "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2",
                             "StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"};
  for (size_t i = 0; i < sizeof stateless / sizeof stateless[0]; i++) {
    const tfc_opdef *op = tfc_op_lookup(stateless[i]);
    EXPECT_TRUE(op != NULL);
    EXPECT_TRUE(!(op->flags & TFC_OPF_STATEFUL));
  }
  EXPECT_TRUE(tfc_op_lookup("StatelessRandomGetAlg")->flags & TFC_OPF_STATEFUL);
  const tfc_attr_def *a = tfc_opdef_attr(tfc_op_lookup("StatelessRandomUniformFullInt"), "dtype");
  EXPECT_TRUE(a && a->has_default && a->default_value.u.type == TFC_DT_UINT64);
  a = tfc_opdef_attr(tfc_op_lookup("StatelessRandomNormal"), "Tseed");
  EXPECT_TRUE(a && a->has_default && a->default_value.u.type == TFC_DT_INT64);
  a = tfc_opdef_attr(tfc_op_lookup("StatelessRandomUniformInt"), "dtype");
  EXPECT_TRUE(a && !a->has_default);
}

/* An empty output skips the bound checks, as in TF (whose eager run of these succeeds; its
 * graph shape function, like tfc's, rejects a known non-scalar bound first). */
static void empty_output_skips_bound_checks(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t one = 1, two = 2, zero = 0, seed_v[2] = {1, 2};
  int32_t lo_v = 7, hi_v = 3, alg_v = 1;
  uint64_t key_v = 5, c_v[2] = {1, 2};
  tfc_tensor *shape = ku_i64(&one, 1, &zero), *seed = ku_i64(&two, 1, seed_v), *lo_vec = ku_i32(&one, 1, &lo_v),
             *hi = ku_i32(NULL, 0, &hi_v), *key = ku_typed(TFC_DT_UINT64, &one, 1, &key_v),
             *counter = ku_typed(TFC_DT_UINT64, &two, 1, c_v), *alg = ku_i32(NULL, 0, &alg_v), *out = NULL;
  tfc_tensor *in1[4] = {shape, seed, lo_vec, hi}, *in2[6] = {shape, key, counter, alg, lo_vec, hi};
  EXPECT_EQ(ku_run_unknown("StatelessRandomUniformInt", NULL, 0, in1, 4, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->n_elems, 0);
  tfc_tensor_unref(out);
  EXPECT_EQ(ku_run_unknown("StatelessRandomUniformIntV2", NULL, 0, in2, 6, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->n_elems, 0);
  tfc_tensor_unref(out);
  /* Non-empty: the kernel's text. */
  tfc_tensor *shape2 = ku_i64(&one, 1, &two);
  in2[0] = shape2;
  EXPECT_EQ(ku_run_unknown("StatelessRandomUniformIntV2", NULL, 0, in2, 6, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "minval must be 0-D, got shape [1]");
  tfc_tensor *all[] = {shape, shape2, seed, lo_vec, hi, key, counter, alg};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfc_tensor_unref(all[i]);
  tfc_status_fini(&s);
}

/* TF has no CPU kernel for unsigned StatelessRandomUniformIntV2 (its op def allows them). */
static void unsigned_uniform_int_v2_has_no_cpu_kernel(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t one = 1, two = 2, n = 3;
  uint64_t key_v = 5, c_v[2] = {1, 2};
  int32_t alg_v = 1;
  uint32_t lo_v = 1, hi_v = 9;
  tfc_tensor *in[6] = {ku_i64(&one, 1, &n), ku_typed(TFC_DT_UINT64, &one, 1, &key_v),
                       ku_typed(TFC_DT_UINT64, &two, 1, c_v), ku_i32(NULL, 0, &alg_v),
                       ku_typed(TFC_DT_UINT32, NULL, 0, &lo_v), ku_typed(TFC_DT_UINT32, NULL, 0, &hi_v)};
  tfc_tensor *out = NULL;
  EXPECT_TRUE(ku_run("StatelessRandomUniformIntV2", NULL, 0, in, 6, NULL, &out, 1, &s) != TFC_OK);
  EXPECT_CONTAINS(tfc_status_msg(&s), "StatelessRandomUniformIntV2");
  for (int i = 0; i < 6; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(get_key_counter_matches_tf),
    TFC_TEST(uniform_matches_tf_bit_for_bit),
    TFC_TEST(normal_matches_tf_bit_for_bit),
    TFC_TEST(truncated_normal_matches_tf_bit_for_bit),
    TFC_TEST(uniform_int_matches_tf_bit_for_bit),
    TFC_TEST(uniform_full_int_matches_tf_bit_for_bit),
    TFC_TEST(errors_match_tf),
    TFC_TEST(v2_on_get_key_counter_is_v1),
    TFC_TEST(one_word_counter_has_zero_high_word),
    TFC_TEST(static_shape_from_constant_shape),
    TFC_TEST(op_flags_and_defaults),
    TFC_TEST(unsigned_uniform_int_v2_has_no_cpu_kernel),
    TFC_TEST(empty_output_skips_bound_checks),
    {0},
};
TFC_TEST_MAIN(tests)

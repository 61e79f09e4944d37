/*
 * Unit tests of the executor's control-flow path (exec/frame.c) with transfers: _Send/_Recv
 * pairs inside loops and conds, on one executor and between two executors that exchange a
 * tensor every iteration, with graphs built through the internal API.
 *
 * The transfer kernels here are the test's own (registered ahead of the CPU's): they key the
 * rendezvous by "<tensor_name>;<frame_id>:<iter_id>" from the kernel context, send a dead token
 * when is_input_dead, set is_output_dead on receiving one, and record what they saw, so the
 * executor's side (frame and iteration ids, transfers that run when dead, callbacks that
 * complete a waiting _Recv) is tested on its own.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "exec/frame.h"
#include "exec_fixture.h"
#include "harness.h"
#include "rendezvous/rendezvous.h"

/* ---------------- test transfer kernels ---------------- */

typedef struct seen {
  char name[32];
  uint64_t frame_id;
  int64_t iter_id;
  int dead;
} seen;

static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static seen sends[4096];
static int n_sends;

static int tt_init(const tfc_node *n, void **state, tfc_status *s) {
  const char *name;
  TFC_TRY(tfc_kernel_attr_string(n, "tensor_name", &name, s));
  *state = (void *)name; /* borrowed from the node */
  return TFC_OK;
}

static void tt_key(const tfc_kernel_ctx *c, char *key, size_t cap) {
  snprintf(key, cap, "%s;%llu:%lld", (const char *)c->state, (unsigned long long)c->frame_id,
           (long long)c->iter_id);
}

static int tt_send(tfc_kernel_ctx *c) {
  pthread_mutex_lock(&seen_mu);
  if (n_sends < (int)(sizeof sends / sizeof sends[0])) {
    seen *w = &sends[n_sends++];
    snprintf(w->name, sizeof w->name, "%s", (const char *)c->state);
    w->frame_id = c->frame_id;
    w->iter_id = c->iter_id;
    w->dead = c->is_input_dead;
  }
  pthread_mutex_unlock(&seen_mu);
  char key[128];
  tt_key(c, key, sizeof key);
  return tfc_rendezvous_send(c->rendezvous, key, c->is_input_dead ? NULL : c->inputs[0], c->is_input_dead,
                             c->status);
}

static void tt_recv_done(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  tfc_kernel_ctx *c = arg;
  if (!tfc_status_ok(s)) {
    tfc_status_set(c->status, s->code, "%s", tfc_status_msg(s));
  } else if (is_dead) {
    c->is_output_dead = 1;
    tfc_tensor_unref(t);
  } else {
    tfc_kernel_set_output(c, 0, t);
  }
  c->done(c);
}

static void tt_recv(tfc_kernel_ctx *c) {
  char key[128];
  tt_key(c, key, sizeof key);
  tfc_rendezvous_recv_async(c->rendezvous, key, tt_recv_done, c);
}

/* MatMul: the CPU's kernel, noting whether it ran on the thread that started the step. */
static const tfc_kernel_def *cpu_matmul;
static pthread_t step_thread;
static int matmuls, matmuls_elsewhere;

static int mm_init(const tfc_node *n, void **state, tfc_status *s) {
  return cpu_matmul->init ? cpu_matmul->init(n, state, s) : TFC_OK;
}

static int mm_compute(tfc_kernel_ctx *c) {
  pthread_mutex_lock(&seen_mu);
  matmuls++;
  matmuls_elsewhere += !pthread_equal(pthread_self(), step_thread);
  pthread_mutex_unlock(&seen_mu);
  return cpu_matmul->compute(c);
}

static void mm_free(void *state) {
  if (cpu_matmul->free_state) cpu_matmul->free_state(state);
}

static const tfc_kernel_def test_defs[] = {
    {.op = TFC_OP__Send, .init = tt_init, .compute = tt_send},
    {.op = TFC_OP__Recv, .flags = TFC_KF_ASYNC, .init = tt_init, .compute_async = tt_recv},
    {.op = TFC_OP_MatMul, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE, .init = mm_init,
     .compute = mm_compute, .free_state = mm_free},
};

static tfc_kernel_table table; /* the test's rows, then the CPU's */

/* ---------------- graphs ---------------- */

/* The fixture's CPU device with the test's transfer kernels ahead of the CPU's. */
static void fixture_init(fixture *f, int device_id) {
  fixture_init_dev(f, device_id);
  if (!table.defs) {
    for (int k = 0; k < f->dev->kernels->n_defs; k++)
      if (f->dev->kernels->defs[k].op == TFC_OP_MatMul) cpu_matmul = &f->dev->kernels->defs[k];
    tfc_kernel_table_init(&table, f->dev->kernels->device_type);
    if (!cpu_matmul || tfc_kernel_table_add(&table, test_defs, 3, &f->s) ||
        tfc_kernel_table_add(&table, f->dev->kernels->defs, f->dev->kernels->n_defs, &f->s))
      tfc_test_fail(__FILE__, __LINE__, "kernels: %s", tfc_status_msg(&f->s));
  }
  f->dev->kernels = &table;
}

static void set_string(tfc_node_desc *d, const char *attr, const char *v) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value a;
  tfc_attr_string(v, strlen(v), &a, &s);
  tfc_node_desc_set_attr(d, attr, &a);
  tfc_status_fini(&s);
}

static tfc_node *const_i32(fixture *f, const char *name, int32_t v, tfc_node *ctrl) {
  tfc_tensor *t = tfc_tensor_new(TFC_DT_INT32, NULL, 0, &f->s);
  *(int32_t *)t->data = v;
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Const", name);
  tfc_attr_value a = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(d, "value", &a);
  a = tfc_attr_type(TFC_DT_INT32);
  tfc_node_desc_set_attr(d, "dtype", &a);
  if (ctrl) tfc_node_desc_add_control(d, ctrl);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *op1(fixture *f, const char *op, const char *name, tfc_endpoint a) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, op, name);
  tfc_node_desc_add_input(d, a);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *op2(fixture *f, const char *op, const char *name, tfc_endpoint a, tfc_endpoint b) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, op, name);
  tfc_node_desc_add_input(d, a);
  tfc_node_desc_add_input(d, b);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_endpoint out(tfc_node *n, int i) { return (tfc_endpoint){n, i}; }

static tfc_node *enter(fixture *f, const char *name, tfc_node *in, const char *frame, int is_constant, int par) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Enter", name);
  tfc_node_desc_add_input(d, out(in, 0));
  set_string(d, "frame_name", frame);
  tfc_attr_value a = tfc_attr_bool(is_constant);
  tfc_node_desc_set_attr(d, "is_constant", &a);
  a = tfc_attr_int(par);
  tfc_node_desc_set_attr(d, "parallel_iterations", &a);
  return finish_or_fail(d, &f->s, __LINE__);
}

/* Merge(first, first): input 1 becomes the back edge once its NextIteration exists. */
static tfc_node *merge2(fixture *f, const char *name, tfc_endpoint a, tfc_endpoint b) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Merge", name);
  tfc_endpoint ins[2] = {a, b};
  tfc_node_desc_add_input_list(d, ins, 2);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *send(fixture *f, const char *name, tfc_endpoint in, const char *tensor) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "_Send", name);
  tfc_node_desc_add_input(d, in);
  set_string(d, "tensor_name", tensor);
  set_string(d, "send_device", f->dev->name);
  set_string(d, "recv_device", f->dev->name);
  tfc_attr_value a = tfc_attr_int(1);
  tfc_node_desc_set_attr(d, "send_device_incarnation", &a);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *recv(fixture *f, const char *name, const char *tensor, tfc_node *ctrl) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "_Recv", name);
  set_string(d, "tensor_name", tensor);
  set_string(d, "send_device", f->dev->name);
  set_string(d, "recv_device", f->dev->name);
  tfc_attr_value a = tfc_attr_int(1);
  tfc_node_desc_set_attr(d, "send_device_incarnation", &a);
  a = tfc_attr_type(TFC_DT_INT32);
  tfc_node_desc_set_attr(d, "tensor_type", &a);
  if (ctrl) tfc_node_desc_add_control(d, ctrl);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *retval(fixture *f, const char *name, tfc_endpoint in, int index) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "_Retval", name);
  tfc_node_desc_add_input(d, in);
  tfc_attr_value a = tfc_attr_int(index);
  tfc_node_desc_set_attr(d, "index", &a);
  return finish_or_fail(d, &f->s, __LINE__);
}

/* A loop variable of frame L: Merge(Enter(init), NextIteration) -> Switch on the loop
 * condition -> Identity (the body's value) and Exit (returned by a _Retval). */
typedef struct loop_var {
  tfc_node *merge, *sw, *body; /* body: Identity(sw:1) */
} loop_var;

/* Enter(init) and Merge(enter, enter): loop_var_next makes Merge's input 1 the back edge. */
static loop_var loop_var_new(fixture *f, const char *name, tfc_node *init, int par) {
  char b[64];
  snprintf(b, sizeof b, "%s/enter", name);
  tfc_node *e = enter(f, b, init, "L", 0, par);
  snprintf(b, sizeof b, "%s/merge", name);
  loop_var v = {.merge = merge2(f, b, out(e, 0), out(e, 0))};
  return v;
}

/* Switches v on lc; gives it its body Identity and its Exit, returned as retval `ret`. */
static void loop_var_switch(fixture *f, loop_var *v, const char *name, tfc_node *lc, int ret) {
  char b[64];
  snprintf(b, sizeof b, "%s/switch", name);
  v->sw = op2(f, "Switch", b, out(v->merge, 0), out(lc, 0));
  snprintf(b, sizeof b, "%s/body", name);
  v->body = op1(f, "Identity", b, out(v->sw, 1));
  snprintf(b, sizeof b, "%s/exit", name);
  tfc_node *x = op1(f, "Exit", b, out(v->sw, 0));
  snprintf(b, sizeof b, "%s/ret", name);
  retval(f, b, out(x, 0), ret);
}

static void loop_var_next(fixture *f, loop_var *v, const char *name, tfc_endpoint value) {
  char b[64];
  snprintf(b, sizeof b, "%s/next", name);
  tfc_node *nx = op1(f, "NextIteration", b, value);
  v->merge->inputs[1] = out(nx, 0);
}

/* The loop condition i < n on loop var i, n entered as a constant. */
static tfc_node *loop_cond(fixture *f, loop_var *i, int32_t n, int par) {
  tfc_node *nc = const_i32(f, "n", n, NULL);
  tfc_node *ne = enter(f, "n/enter", nc, "L", 1, par);
  tfc_node *lt = op2(f, "Less", "less", out(i->merge, 0), out(ne, 0));
  return op1(f, "LoopCond", "loop_cond", out(lt, 0));
}

static tfc_executor *executor(fixture *f) {
  tfc_executor *e = tfc_executor_new(f->g, f->dev, NULL, &f->s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f->s));
  return e;
}

static int32_t i32(const tfc_tensor *t) { return *(const int32_t *)t->data; }

/* ---------------- tests ---------------- */

/* i = 0; while i < 7: _Send(i) as "s"; i = _Recv("s") + 1. One executor, a pair that fires in
 * every iteration under its own frame:iteration key. */
static void build_self_loop(fixture *f, int par) {
  tfc_node *zero = const_i32(f, "zero", 0, NULL);
  loop_var i = loop_var_new(f, "i", zero, par);
  tfc_node *lc = loop_cond(f, &i, 7, par);
  loop_var_switch(f, &i, "i", lc, 0);
  send(f, "s/send", out(i.body, 0), "s");
  tfc_node *r = recv(f, "s/recv", "s", i.body);
  tfc_node *one = const_i32(f, "one", 1, i.body);
  tfc_node *add = op2(f, "AddV2", "add", out(r, 0), out(one, 0));
  loop_var_next(f, &i, "i", out(add, 0));
}

static void loop_send_recv_pair_fires_every_iteration(void) {
  for (int par = 1; par <= 10; par += 9) {
    for (int with_pool = 0; with_pool < 2; with_pool++) {
      fixture f;
      fixture_init(&f, 0);
      build_self_loop(&f, par);
      tfc_executor *e = executor(&f);
      n_sends = 0;
      tfc_tensor *ret = NULL;
      tfc_call_frame frame = {0, NULL, 1, &ret};
      tfc_rendezvous *rv = tfc_rendezvous_new();
      tfc_exec_args args = {&frame, with_pool ? f.pool : NULL, 1, rv, NULL, NULL, 0};
      if (tfc_executor_run(e, &args, &f.s)) tfc_test_fail(__FILE__, __LINE__, "run: %s", tfc_status_msg(&f.s));
      EXPECT_TRUE(ret != NULL);
      if (ret) EXPECT_EQ(i32(ret), 7);
      /* iterations 0..6 send a value; iteration 7 (i < 7 false) runs the _Send on its dead
       * input, which sends a dead token the dead _Recv takes, as TF does */
      EXPECT_EQ(n_sends, 8);
      for (int k = 0; k < n_sends; k++) {
        EXPECT_EQ(sends[k].iter_id, k);
        EXPECT_EQ(sends[k].dead, k == 7);
        EXPECT_TRUE(sends[k].frame_id != 0);
        EXPECT_TRUE(sends[k].frame_id == sends[0].frame_id);
      }
      tfc_tensor_unref(ret);
      tfc_rendezvous_unref(rv);
      tfc_executor_free(e);
      fixture_fini(&f);
    }
  }
}

/* Two executors, each with its own copy of loop L (as the partitions of a loop over two
 * devices have):
 *   A: i = 0; while i < n: _Send(i) as "x"; i = _Recv("y")
 *   B: j = 0, acc = 0; while j < n: y = _Recv("x") + 1; _Send(y) as "y"; acc += _Recv("x"); j += 1
 * A returns n, B returns acc = 0 + 1 + ... + (n - 1) and n. */
typedef struct pair {
  fixture a, b;
  tfc_executor *ea, *eb;
} pair;

static void pair_init(pair *p, int n, int par) {
  fixture_init(&p->a, 0);
  fixture_init(&p->b, 1);
  fixture *a = &p->a, *b = &p->b;
  tfc_node *zero = const_i32(a, "zero", 0, NULL);
  loop_var i = loop_var_new(a, "i", zero, par);
  tfc_node *lc = loop_cond(a, &i, n, par);
  loop_var_switch(a, &i, "i", lc, 0);
  send(a, "x/send", out(i.body, 0), "x");
  tfc_node *y = recv(a, "y/recv", "y", i.body);
  loop_var_next(a, &i, "i", out(y, 0));

  zero = const_i32(b, "zero", 0, NULL);
  loop_var j = loop_var_new(b, "j", zero, par);
  loop_var acc = loop_var_new(b, "acc", zero, par);
  lc = loop_cond(b, &j, n, par);
  loop_var_switch(b, &j, "j", lc, 0);
  loop_var_switch(b, &acc, "acc", lc, 1);
  tfc_node *x = recv(b, "x/recv", "x", j.body);
  tfc_node *one = const_i32(b, "one", 1, j.body);
  tfc_node *y1 = op2(b, "AddV2", "y", out(x, 0), out(one, 0));
  send(b, "y/send", out(y1, 0), "y");
  tfc_node *acc1 = op2(b, "AddV2", "acc/add", out(acc.body, 0), out(x, 0));
  loop_var_next(b, &acc, "acc", out(acc1, 0));
  tfc_node *j1 = op2(b, "AddV2", "j/add", out(j.body, 0), out(one, 0));
  loop_var_next(b, &j, "j", out(j1, 0));
  p->ea = executor(a);
  p->eb = executor(b);
}

static void pair_fini(pair *p) {
  tfc_executor_free(p->ea);
  tfc_executor_free(p->eb);
  fixture_fini(&p->a);
  fixture_fini(&p->b);
}

static void run_pair(pair *p, int n, int b_first, int with_pool) {
  n_sends = 0;
  tfc_tensor *ra = NULL, *rb[2] = {NULL, NULL};
  tfc_call_frame fa = {0, NULL, 1, &ra}, fb = {0, NULL, 2, rb};
  tfc_rendezvous *rv = tfc_rendezvous_new();
  tfc_exec_args aa = {&fa, with_pool ? p->a.pool : NULL, 1, rv, NULL, NULL, 0};
  tfc_exec_args ab = {&fb, with_pool ? p->b.pool : NULL, 1, rv, NULL, NULL, 0};
  step_end ea, eb;
  step_end_init(&ea);
  step_end_init(&eb);
  /* Both start on this thread: the first returns while its _Recv waits for the second. */
  if (b_first) tfc_executor_run_async(p->eb, &ab, on_step_end, &eb);
  tfc_executor_run_async(p->ea, &aa, on_step_end, &ea);
  if (!b_first) tfc_executor_run_async(p->eb, &ab, on_step_end, &eb);
  step_end_wait(&ea);
  step_end_wait(&eb);
  if (ea.code || eb.code) tfc_test_fail(__FILE__, __LINE__, "A: %s; B: %s", ea.msg, eb.msg);
  EXPECT_EQ(ea.done, 1);
  EXPECT_EQ(eb.done, 1);
  EXPECT_TRUE(ra && rb[0] && rb[1]);
  if (ra && rb[0] && rb[1]) {
    EXPECT_EQ(i32(ra), n);
    EXPECT_EQ(i32(rb[0]), n);
    EXPECT_EQ(i32(rb[1]), n * (n - 1) / 2);
  }
  /* both executors keyed iteration k of their copies of L alike; in iteration n both sends
   * are dead tokens */
  EXPECT_EQ(n_sends, 2 * (n + 1));
  int per_iter[64] = {0}, dead_at_n = 0;
  for (int k = 0; k < n_sends; k++) {
    EXPECT_TRUE(sends[k].frame_id == sends[0].frame_id && sends[k].frame_id != 0);
    if (sends[k].iter_id >= 0 && sends[k].iter_id < 64) per_iter[sends[k].iter_id]++;
    EXPECT_EQ(sends[k].dead, sends[k].iter_id == n);
    dead_at_n += sends[k].dead;
  }
  for (int k = 0; k <= n && k < 64; k++) EXPECT_EQ(per_iter[k], 2);
  EXPECT_EQ(dead_at_n, 2);
  tfc_tensor_unref(ra);
  tfc_tensor_unref(rb[0]);
  tfc_tensor_unref(rb[1]);
  tfc_rendezvous_unref(rv);
}

static void two_executors_exchange_a_tensor_every_iteration(void) {
  for (int par = 1; par <= 10; par += 9) {
    pair p;
    pair_init(&p, 20, par);
    for (int b_first = 0; b_first < 2; b_first++)
      for (int with_pool = 0; with_pool < 2; with_pool++) run_pair(&p, 20, b_first, with_pool);
    pair_fini(&p);
  }
}

/* A loop whose _Recv never gets its tensor gives up its thread; aborting the step's rendezvous
 * (as a deadline does) ends it with that status. */
static void abort_ends_a_loop_waiting_for_a_tensor(void) {
  pair p;
  pair_init(&p, 5, 10);
  tfc_tensor *ra = NULL;
  tfc_call_frame fa = {0, NULL, 1, &ra};
  tfc_rendezvous *rv = tfc_rendezvous_new();
  tfc_exec_args aa = {&fa, NULL, 1, rv, NULL, NULL, 0};
  step_end ea;
  step_end_init(&ea);
  tfc_executor_run_async(p.ea, &aa, on_step_end, &ea); /* returns: "y" is never sent */
  pthread_mutex_lock(&ea.mu);
  EXPECT_EQ(ea.done, 0);
  pthread_mutex_unlock(&ea.mu);
  tfc_status to;
  tfc_status_init(&to);
  tfc_status_set(&to, TFC_DEADLINE_EXCEEDED, "Timed out after 5 ms waiting for step 1 to finish");
  tfc_rendezvous_abort(rv, &to);
  tfc_status_fini(&to);
  step_end_wait(&ea);
  EXPECT_EQ(ea.done, 1);
  EXPECT_EQ(ea.code, TFC_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(ea.msg, "Timed out after 5 ms");
  EXPECT_TRUE(ra == NULL);
  tfc_rendezvous_unref(rv);
  pair_fini(&p);
}

/* x = 3; s = Switch(x, p); _Send(Identity(s:1)) as "d"; r = _Recv("d") (no inputs);
 * m = Merge(r, Neg(s:0)); out0 = m, out1 = value_index, out2 = Identity(r).
 * p false: the _Send runs on a dead input and sends a dead token; the _Recv's output is dead. */
static void dead_send_in_untaken_branch_makes_the_recv_dead(void) {
  fixture f;
  fixture_init(&f, 0);
  tfc_node_desc *d = tfc_node_desc_new(f.g, "_Arg", "p");
  tfc_attr_value a = tfc_attr_type(TFC_DT_BOOL);
  tfc_node_desc_set_attr(d, "T", &a);
  a = tfc_attr_int(0);
  tfc_node_desc_set_attr(d, "index", &a);
  tfc_node *p = finish_or_fail(d, &f.s, __LINE__);
  tfc_node *x = const_i32(&f, "x", 3, NULL);
  tfc_node *sw = op2(&f, "Switch", "s", out(x, 0), out(p, 0));
  tfc_node *t = op1(&f, "Identity", "t", out(sw, 1));
  send(&f, "d/send", out(t, 0), "d");
  tfc_node *r = recv(&f, "d/recv", "d", NULL);
  tfc_node *neg = op1(&f, "Neg", "neg", out(sw, 0));
  tfc_node *m = merge2(&f, "m", out(r, 0), out(neg, 0));
  retval(&f, "out0", out(m, 0), 0);
  retval(&f, "out1", out(m, 1), 1);
  tfc_node *ri = op1(&f, "Identity", "ri", out(r, 0));
  retval(&f, "out2", out(ri, 0), 2);
  tfc_executor *e = executor(&f);
  for (int pv = 0; pv < 2; pv++) {
    n_sends = 0;
    tfc_tensor *pt = tfc_tensor_new(TFC_DT_BOOL, NULL, 0, &f.s);
    *(unsigned char *)pt->data = (unsigned char)pv;
    tfc_tensor *rets[3] = {NULL, NULL, NULL};
    tfc_call_frame frame = {1, &pt, 3, rets};
    tfc_rendezvous *rv = tfc_rendezvous_new();
    tfc_exec_args args = {&frame, NULL, 1, rv, NULL, NULL, 0};
    if (tfc_executor_run(e, &args, &f.s)) tfc_test_fail(__FILE__, __LINE__, "run: %s", tfc_status_msg(&f.s));
    EXPECT_EQ(n_sends, 1);
    EXPECT_EQ(sends[0].dead, !pv);
    EXPECT_TRUE(sends[0].frame_id == 0 && sends[0].iter_id == 0);
    EXPECT_TRUE(rets[0] && rets[1]);
    if (rets[0] && rets[1]) {
      EXPECT_EQ(i32(rets[0]), pv ? 3 : -3);
      EXPECT_EQ(i32(rets[1]), pv ? 0 : 1);
    }
    EXPECT_TRUE(pv ? rets[2] != NULL : rets[2] == NULL); /* a dead fetch is not produced */
    for (int k = 0; k < 3; k++) tfc_tensor_unref(rets[k]);
    tfc_tensor_unref(pt);
    tfc_rendezvous_unref(rv);
  }
  tfc_executor_free(e);
  fixture_fini(&f);
}

static tfc_node *const_fill(fixture *f, const char *name, int dtype, const int64_t *dims, int ndims, float v,
                           tfc_node *ctrl) {
  tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, &f->s);
  for (int64_t k = 0; k < t->n_elems; k++) ((float *)t->data)[k] = v;
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Const", name);
  tfc_attr_value a = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(d, "value", &a);
  a = tfc_attr_type(dtype);
  tfc_node_desc_set_attr(d, "dtype", &a);
  if (ctrl) tfc_node_desc_add_control(d, ctrl);
  return finish_or_fail(d, &f->s, __LINE__);
}

/* v = 0, acc = zeros(128, 128); while v < 20: acc += MatMul(A * v, B); v += 1, with A and B
 * all ones: every element of acc ends as 128 * (0 + 1 + ... + 19) = 24320, exactly. With
 * parallel_iterations 10 and an inter-op pool, iterations' MatMuls (EXPENSIVE, large) run on
 * the pool while the run loop goes on with the next iterations. */
static void build_matmul_loop(fixture *f, int par) {
  int64_t dm[2] = {128, 128};
  tfc_node *a = const_fill(f, "a", TFC_DT_FLOAT, dm, 2, 1, NULL);
  tfc_node *b = const_fill(f, "b", TFC_DT_FLOAT, dm, 2, 1, NULL);
  tfc_node *zero = const_fill(f, "zero", TFC_DT_FLOAT, NULL, 0, 0, NULL);
  tfc_node *zeros = const_fill(f, "zeros", TFC_DT_FLOAT, dm, 2, 0, NULL);
  tfc_node *n = const_fill(f, "n", TFC_DT_FLOAT, NULL, 0, 20, NULL);
  tfc_node *ae = enter(f, "a/enter", a, "L", 1, par);
  tfc_node *be = enter(f, "b/enter", b, "L", 1, par);
  tfc_node *ne = enter(f, "n/enter", n, "L", 1, par);
  loop_var v = loop_var_new(f, "v", zero, par);
  loop_var acc = loop_var_new(f, "acc", zeros, par);
  tfc_node *lt = op2(f, "Less", "less", out(v.merge, 0), out(ne, 0));
  tfc_node *lc = op1(f, "LoopCond", "loop_cond", out(lt, 0));
  loop_var_switch(f, &v, "v", lc, 0);
  loop_var_switch(f, &acc, "acc", lc, 1);
  tfc_node *scaled = op2(f, "Mul", "scaled", out(ae, 0), out(v.body, 0));
  tfc_node *m = op2(f, "MatMul", "m", out(scaled, 0), out(be, 0));
  tfc_node *acc1 = op2(f, "AddV2", "acc/add", out(acc.body, 0), out(m, 0));
  loop_var_next(f, &acc, "acc", out(acc1, 0));
  tfc_node *one = const_fill(f, "one", TFC_DT_FLOAT, NULL, 0, 1, v.body);
  tfc_node *v1 = op2(f, "AddV2", "v/add", out(v.body, 0), out(one, 0));
  loop_var_next(f, &v, "v", out(v1, 0));
}

static void parallel_iterations_run_matmuls_on_the_pool(void) {
  for (int par = 1; par <= 10; par += 9) {
    fixture f;
    fixture_init(&f, 0);
    build_matmul_loop(&f, par);
    tfc_executor *e = executor(&f);
    step_thread = pthread_self();
    matmuls = matmuls_elsewhere = 0;
    for (int step = 0; step < 4; step++) {
      tfc_tensor *rets[2] = {NULL, NULL};
      tfc_call_frame frame = {0, NULL, 2, rets};
      tfc_exec_args args = {&frame, f.pool, step + 1, NULL, NULL, NULL, 0};
      if (tfc_executor_run(e, &args, &f.s)) tfc_test_fail(__FILE__, __LINE__, "run: %s", tfc_status_msg(&f.s));
      EXPECT_TRUE(rets[0] && rets[1]);
      if (rets[0] && rets[1]) {
        EXPECT_NEAR(*(float *)rets[0]->data, 20, 0);
        EXPECT_EQ(rets[1]->n_elems, 128 * 128);
        int wrong = 0;
        for (int64_t k = 0; k < rets[1]->n_elems; k++) wrong += ((float *)rets[1]->data)[k] != 24320.0f;
        EXPECT_EQ(wrong, 0);
      }
      tfc_tensor_unref(rets[0]);
      tfc_tensor_unref(rets[1]);
    }
    EXPECT_EQ(matmuls, 4 * 20);
    if (par == 10) EXPECT_TRUE(matmuls_elsewhere > 0);
    tfc_executor_free(e);
    fixture_fini(&f);
  }
}

/* i = 0; while i < n: i += 1, with n fed (_Arg 0). */
static void build_counter(fixture *f, int par) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "_Arg", "n");
  tfc_attr_value a = tfc_attr_type(TFC_DT_INT32);
  tfc_node_desc_set_attr(d, "T", &a);
  a = tfc_attr_int(0);
  tfc_node_desc_set_attr(d, "index", &a);
  tfc_node *n = finish_or_fail(d, &f->s, __LINE__);
  tfc_node *zero = const_i32(f, "zero", 0, NULL);
  loop_var i = loop_var_new(f, "i", zero, par);
  tfc_node *ne = enter(f, "n/enter", n, "L", 1, par);
  tfc_node *lt = op2(f, "Less", "less", out(i.merge, 0), out(ne, 0));
  tfc_node *lc = op1(f, "LoopCond", "loop_cond", out(lt, 0));
  loop_var_switch(f, &i, "i", lc, 0);
  tfc_node *one = const_i32(f, "one", 1, i.body);
  tfc_node *add = op2(f, "AddV2", "add", out(i.body, 0), out(one, 0));
  loop_var_next(f, &i, "i", out(add, 0));
}

/* Runs the counter to n; returns the iteration states the step made. */
static int64_t run_counter(fixture *f, tfc_executor *e, int32_t n) {
  tfc_tensor *nt = tfc_tensor_new(TFC_DT_INT32, NULL, 0, &f->s);
  *(int32_t *)nt->data = n;
  tfc_tensor *ret = NULL;
  tfc_call_frame frame = {1, &nt, 1, &ret};
  tfc_exec_args args = {&frame, f->pool, 1, NULL, NULL, NULL, 0};
  int64_t made = tfc_cf_iter_states_made();
  if (tfc_executor_run(e, &args, &f->s)) tfc_test_fail(__FILE__, __LINE__, "run: %s", tfc_status_msg(&f->s));
  made = tfc_cf_iter_states_made() - made;
  EXPECT_TRUE(ret != NULL);
  if (ret) EXPECT_EQ(i32(ret), n);
  tfc_tensor_unref(ret);
  tfc_tensor_unref(nt);
  return made;
}

static long peak_rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* A loop's memory is bounded by parallel_iterations, not by its length: 1,000,000 iterations
 * make as many iteration states as 10,000 (finished ones are reused), a finished step leaves
 * none alive, and the peak RSS does not grow with the length. */
static void million_iterations_run_in_constant_memory(void) {
  fixture f;
  fixture_init(&f, 0);
  build_counter(&f, 10);
  tfc_executor *e = executor(&f);
  int64_t live = tfc_cf_iter_states_live();
  int64_t made_short = run_counter(&f, e, 10000);
  EXPECT_EQ(tfc_cf_iter_states_live(), live);
  long rss_short = peak_rss_kb();
  int64_t made_long = run_counter(&f, e, 1000000);
  EXPECT_EQ(tfc_cf_iter_states_live(), live);
  long rss_long = peak_rss_kb();
  EXPECT_EQ(made_long, made_short);
  /* the root frame's state and at most parallel_iterations + 1 of the loop's */
  EXPECT_TRUE(made_long >= 2 && made_long <= 12);
  /* A leaked scalar per iteration would be ~200 MB. (ASan's quarantine of freed blocks grows
   * the RSS by itself; there its leak checker answers instead.) */
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_TRUE(rss_long - rss_short < 8 * 1024);
#else
  (void)rss_short;
  (void)rss_long;
#endif
  tfc_executor_free(e);
  fixture_fini(&f);
}

static const tfc_test tests[] = {
    TFC_TEST(million_iterations_run_in_constant_memory),
    TFC_TEST(parallel_iterations_run_matmuls_on_the_pool),
    TFC_TEST(loop_send_recv_pair_fires_every_iteration),
    TFC_TEST(two_executors_exchange_a_tensor_every_iteration),
    TFC_TEST(abort_ends_a_loop_waiting_for_a_tensor),
    TFC_TEST(dead_send_in_untaken_branch_makes_the_recv_dead),
    {0},
};
TFC_TEST_MAIN(tests)

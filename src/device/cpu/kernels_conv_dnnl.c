/*
 * kernels_conv_dnnl — the thin oneDNN layer under the convolution and pooling kernels: one
 * CPU engine per process, primitives with their argument layouts and reorders, a per-node
 * primitive cache, single-threaded execution per calling thread, and batch sharding over the
 * intra-op pool. See kernels_conv_int.h for why oneDNN's own OpenMP threads are not used.
 *
 * Every oneDNN failure becomes a tfc_status (out of memory -> RESOURCE_EXHAUSTED,
 * unimplemented -> UNIMPLEMENTED, bad arguments -> INVALID_ARGUMENT, else INTERNAL).
 */
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "device/cpu/kernels_conv_int.h"

/* ---- engine and threads ---- */

static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static dnnl_engine_t engine;
static dnnl_status_t engine_status;
/* OpenMP's omp_set_num_threads from the runtime oneDNN was linked with (libgomp on Debian),
 * looked up at run time so tfc needs no OpenMP at compile time; NULL for a build of oneDNN
 * with another runtime (sequential needs nothing). */
static void (*omp_set_threads)(int);

/* Each calling thread's stream: a stream costs a few microseconds to make, as much as a small
 * layer's primitive at batch 1, so each thread keeps one, destroyed when the thread exits. */
static pthread_key_t stream_key;

static void stream_destroy(void *stream) { dnnl_stream_destroy(stream); }

static void engine_create(void) {
  engine_status = dnnl_engine_create(&engine, dnnl_cpu, 0);
  if (engine_status == dnnl_success && pthread_key_create(&stream_key, stream_destroy) != 0)
    engine_status = dnnl_out_of_memory;
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  *(void **)&omp_set_threads = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
#endif
}

dnnl_engine_t tfc_dnn_engine(tfc_status *s) {
  pthread_once(&engine_once, engine_create);
  if (tfc_dnn_check(engine_status, "engine creation", s)) return NULL;
  return engine;
}

void tfc_dnn_single_thread(void) {
  /* The OpenMP nthreads ICV is per thread (each native thread has its own initial task), so
   * this limits only oneDNN calls made from this thread. */
  static __thread int done;
  if (!done) pthread_once(&engine_once, engine_create); /* looks omp_set_num_threads up */
  if (!done && omp_set_threads) {
    omp_set_threads(1);
    done = 1;
  }
}

/* The calling thread's stream (see stream_key); NULL with status on failure. Needs the engine. */
static dnnl_stream_t thread_stream(tfc_status *s) {
  dnnl_stream_t stream = pthread_getspecific(stream_key);
  if (stream) return stream;
  if (tfc_dnn_check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags), "stream creation", s)) return NULL;
  if (pthread_setspecific(stream_key, stream) != 0) {
    dnnl_stream_destroy(stream);
    tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "oneDNN stream: no room for thread-specific data");
    return NULL;
  }
  return stream;
}

int tfc_dnn_check(dnnl_status_t st, const char *what, tfc_status *s) {
  if (st == dnnl_success) return TFC_OK;
  int code = st == dnnl_out_of_memory         ? TFC_RESOURCE_EXHAUSTED
             : st == dnnl_unimplemented       ? TFC_UNIMPLEMENTED
             : st == dnnl_invalid_arguments ? TFC_INVALID_ARGUMENT
                                              : TFC_INTERNAL;
  return tfc_status_set(s, code, "oneDNN %s failed: %s", what, dnnl_status2str(st));
}

/* ---- primitives ---- */

void tfc_dnn_md_nd(dnnl_memory_desc_t *md, int ndims, const int64_t *d, dnnl_format_tag_t tag) {
  dnnl_dims_t dims;
  for (int i = 0; i < ndims; i++) dims[i] = d[i];
  /* Cannot fail for positive dims and a tag of their rank; a failure leaves a zero md that the
   * primitive descriptor creation then rejects with a status. */
  if (dnnl_memory_desc_init_by_tag(md, ndims, dims, dnnl_f32, tag) != dnnl_success) memset(md, 0, sizeof *md);
}

void tfc_dnn_md(dnnl_memory_desc_t *md, int64_t d0, int64_t d1, int64_t d2, int64_t d3, dnnl_format_tag_t tag) {
  int64_t dims[4] = {d0, d1, d2, d3};
  tfc_dnn_md_nd(md, 4, dims, tag);
}

int tfc_dnn_pd_create(const_dnnl_op_desc_t op_desc, const_dnnl_primitive_desc_t hint, dnnl_primitive_desc_t *out,
                      tfc_status *s) {
  return tfc_dnn_pd_create_fused(op_desc, hint, NULL, out, s);
}

int tfc_dnn_pd_create_fused(const_dnnl_op_desc_t op_desc, const_dnnl_primitive_desc_t hint, const tfc_conv_fusion *f,
                            dnnl_primitive_desc_t *out, tfc_status *s) {
  dnnl_engine_t eng = tfc_dnn_engine(s);
  if (!eng) return s->code;
  tfc_dnn_single_thread(); /* implementations are chosen for the thread count they run with */
  dnnl_primitive_attr_t attr;
  dnnl_post_ops_t ops = NULL;
  if (tfc_dnn_check(dnnl_primitive_attr_create(&attr), "attr creation", s)) return s->code;
  dnnl_status_t st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  if (st == dnnl_success && f && (f->act != TFC_ACT_NONE || f->add)) {
    /* relu with a slope is LeakyRelu; Relu6 is relu bounded above by 6 */
    dnnl_alg_kind_t alg = f->act == TFC_ACT_RELU6 ? dnnl_eltwise_bounded_relu
                          : f->act == TFC_ACT_ELU ? dnnl_eltwise_elu
                                                  : dnnl_eltwise_relu;
    float alpha = f->act == TFC_ACT_RELU6 ? 6.0f : f->act == TFC_ACT_ELU ? 1.0f : f->act == TFC_ACT_LEAKY_RELU ? f->alpha : 0.0f;
    st = dnnl_post_ops_create(&ops);
    /* the addend is in dst when the primitive runs: dst = conv + bias + dst, then act */
    if (st == dnnl_success && f->add) st = dnnl_post_ops_append_sum(ops, 1.0f);
    if (st == dnnl_success && f->act != TFC_ACT_NONE) st = dnnl_post_ops_append_eltwise(ops, 1.0f, alg, alpha, 0.0f);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_post_ops(attr, ops);
  }
  if (st == dnnl_success) st = dnnl_primitive_desc_create(out, op_desc, attr, eng, hint);
  if (ops) dnnl_post_ops_destroy(ops);
  dnnl_primitive_attr_destroy(attr);
  return tfc_dnn_check(st, "primitive descriptor creation", s);
}

/* A reorder whose scratchpad the caller passes (exec_reorder): with oneDNN's own, a reorder
 * that needs one (into a Winograd weights layout) keeps it in the primitive, and two threads
 * running the reorder at once (two steps of one node with a non-Const filter) would share it. */
static int reorder_create(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to, dnnl_primitive_t *out,
                          size_t *scratch, tfc_status *s) {
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t st = dnnl_primitive_attr_create(&attr);
  if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  if (st == dnnl_success) st = dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, attr);
  if (st == dnnl_success) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    *scratch = md ? dnnl_memory_desc_get_size(md) : 0;
    st = dnnl_primitive_create(out, pd);
    dnnl_primitive_desc_destroy(pd);
  }
  if (attr) dnnl_primitive_attr_destroy(attr);
  return tfc_dnn_check(st, "reorder creation", s);
}

int tfc_dnn_prim_init(tfc_dnn_prim *p, dnnl_primitive_desc_t pd, const int *arg_ids, const int *is_output,
                      const dnnl_memory_desc_t *user, int n, tfc_status *s) {
  memset(p, 0, sizeof *p);
  const char *impl = NULL;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl)
    snprintf(p->impl, sizeof p->impl, "%s", impl);
  const dnnl_memory_desc_t *scratch = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  p->scratch_bytes = scratch ? dnnl_memory_desc_get_size(scratch) : 0;
  p->n_args = n;
  for (int i = 0; i < n; i++) {
    tfc_dnn_arg *a = &p->args[i];
    a->arg = arg_ids[i];
    a->is_output = is_output[i];
    a->user = user[i];
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg_ids[i]);
    a->prim = md ? *md : user[i];
    if (!dnnl_memory_desc_equal(&a->user, &a->prim) &&
        reorder_create(a->is_output ? &a->prim : &a->user, a->is_output ? &a->user : &a->prim, &a->reorder,
                       &a->reorder_scratch, s)) {
      dnnl_primitive_desc_destroy(pd);
      tfc_dnn_prim_fini(p);
      return s->code;
    }
  }
  dnnl_status_t st = dnnl_primitive_create(&p->prim, pd);
  dnnl_primitive_desc_destroy(pd);
  if (tfc_dnn_check(st, "primitive creation", s)) {
    tfc_dnn_prim_fini(p);
    return s->code;
  }
  return TFC_OK;
}

void tfc_dnn_prim_fini(tfc_dnn_prim *p) {
  for (int i = 0; i < p->n_args; i++)
    if (p->args[i].reorder) dnnl_primitive_destroy(p->args[i].reorder);
  if (p->prim) dnnl_primitive_destroy(p->prim);
  memset(p, 0, sizeof *p);
}

size_t tfc_dnn_arg_bytes(const tfc_dnn_prim *p, int i) { return dnnl_memory_desc_get_size(&p->args[i].prim); }

/* ---- execution ---- */

#define ALIGN 64 /* a cache line, and what oneDNN's blocked kernels like */
static size_t round_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

/* Memory objects are made per call: they carry the data pointer, and a primitive's cached
 * ones could not be shared by concurrent steps. */
typedef struct run_mems {
  int n;
  dnnl_memory_t m[2 * TFC_DNN_MAX_ARGS + 1];
} run_mems;

static int mem(run_mems *r, const dnnl_memory_desc_t *md, void *ptr, dnnl_memory_t *out, tfc_status *s) {
  if (tfc_dnn_check(dnnl_memory_create(out, md, engine, ptr), "memory creation", s)) return s->code;
  r->m[r->n++] = *out;
  return TFC_OK;
}

/* A memory object over `bytes` bytes of scratchpad at ptr (the u8 vector oneDNN's user
 * scratchpad mode takes). */
static dnnl_status_t scratch_memory(void *ptr, size_t bytes, dnnl_memory_t *out) {
  dnnl_memory_desc_t md;
  dnnl_dims_t d = {(dnnl_dim_t)bytes};
  dnnl_status_t st = dnnl_memory_desc_init_by_tag(&md, 1, d, dnnl_u8, dnnl_a);
  return st == dnnl_success ? dnnl_memory_create(out, &md, engine, ptr) : st;
}

/* Runs arg a's reorder from -> to, with a scratchpad of its own when it needs one. */
static int exec_reorder(const tfc_dnn_arg *a, dnnl_stream_t stream, dnnl_memory_t from, dnnl_memory_t to,
                        tfc_status *s) {
  dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}, {DNNL_ARG_SCRATCHPAD, NULL}};
  if (!a->reorder_scratch) return tfc_dnn_check(dnnl_primitive_execute(a->reorder, stream, 2, args), "reorder", s);
  void *tmp = tfc_block_alloc(a->reorder_scratch);
  if (!tmp) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "OOM allocating %zu bytes of oneDNN scratch", a->reorder_scratch);
  dnnl_status_t st = scratch_memory(tmp, a->reorder_scratch, &args[2].memory);
  if (st == dnnl_success) st = dnnl_primitive_execute(a->reorder, stream, 3, args);
  if (st == dnnl_success) st = dnnl_stream_wait(stream);
  if (args[2].memory) dnnl_memory_destroy(args[2].memory);
  tfc_block_free(tmp, a->reorder_scratch);
  return tfc_dnn_check(st, "reorder", s);
}

int tfc_dnn_run(const tfc_dnn_prim *p, void *const *ptr, unsigned prearranged, tfc_status *s) {
  tfc_dnn_single_thread();
  /* One temporary block: each reordered arg in the primitive's layout, then the scratchpad. */
  size_t off[TFC_DNN_MAX_ARGS], total = 0;
  for (int i = 0; i < p->n_args; i++) {
    off[i] = total;
    if (p->args[i].reorder && !(prearranged & (1u << i))) total += round_up(tfc_dnn_arg_bytes(p, i));
  }
  size_t scratch_off = total;
  total += round_up(p->scratch_bytes);
  char *tmp = total ? tfc_block_alloc(total) : NULL;
  if (total && !tmp) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "OOM allocating %zu bytes of oneDNN scratch", total);
  run_mems r = {0};
  dnnl_stream_t stream = NULL;
  dnnl_exec_arg_t args[TFC_DNN_MAX_ARGS + 1];
  dnnl_memory_t user_m[TFC_DNN_MAX_ARGS] = {0};
  int n_args = 0;
  if (!(stream = thread_stream(s))) goto out;
  for (int i = 0; i < p->n_args; i++) {
    const tfc_dnn_arg *a = &p->args[i];
    dnnl_memory_t pm;
    if (!a->reorder || (prearranged & (1u << i))) {
      if (mem(&r, &a->prim, ptr[i], &pm, s)) goto out;
    } else {
      if (mem(&r, &a->prim, tmp + off[i], &pm, s) || mem(&r, &a->user, ptr[i], &user_m[i], s)) goto out;
      if (!a->is_output && exec_reorder(a, stream, user_m[i], pm, s)) goto out;
    }
    args[n_args++] = (dnnl_exec_arg_t){a->arg, pm};
  }
  if (p->scratch_bytes) {
    dnnl_memory_t sm;
    if (tfc_dnn_check(scratch_memory(tmp + scratch_off, p->scratch_bytes, &sm), "scratchpad memory", s)) goto out;
    r.m[r.n++] = sm;
    args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, sm};
  }
  if (tfc_dnn_check(dnnl_primitive_execute(p->prim, stream, n_args, args), p->impl, s)) goto out;
  for (int i = 0; i < p->n_args; i++)
    if (user_m[i] && p->args[i].is_output && exec_reorder(&p->args[i], stream, args[i].memory, user_m[i], s))
      goto out;
  tfc_dnn_check(dnnl_stream_wait(stream), "stream wait", s);
out:
  for (int i = 0; i < r.n; i++) dnnl_memory_destroy(r.m[i]);
  if (tmp) tfc_block_free(tmp, total);
  return s->code;
}

int tfc_dnn_reorder_arg(const tfc_dnn_prim *p, int i, void *user, void *prim, int to_prim, tfc_status *s) {
  tfc_dnn_single_thread();
  const tfc_dnn_arg *a = &p->args[i];
  dnnl_memory_t um = NULL, pm = NULL;
  dnnl_stream_t stream = NULL;
  /* The cached reorder goes one way; the other way (a weight gradient's partial sums are
   * prim-layout outputs reordered once at the end) needs none here, so only the cached
   * direction is supported. */
  if (to_prim == a->is_output)
    return tfc_status_set(s, TFC_INTERNAL, "oneDNN reorder of arg %d in an unsupported direction", i);
  if (tfc_dnn_check(dnnl_memory_create(&um, &a->user, engine, user), "memory creation", s) ||
      tfc_dnn_check(dnnl_memory_create(&pm, &a->prim, engine, prim), "memory creation", s) ||
      !(stream = thread_stream(s)) ||
      exec_reorder(a, stream, to_prim ? um : pm, to_prim ? pm : um, s))
    goto out;
  tfc_dnn_check(dnnl_stream_wait(stream), "stream wait", s);
out:
  if (um) dnnl_memory_destroy(um);
  if (pm) dnnl_memory_destroy(pm);
  return s->code;
}

int tfc_dnn_pool_prim(tfc_dnn_prim *p, const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                      const dnnl_dim_t *strides, const dnnl_dim_t *kernel, const dnnl_dim_t *pl, const dnnl_dim_t *pr,
                      int max, int avg_grad, tfc_status *s) {
  dnnl_alg_kind_t alg = max ? dnnl_pooling_max : dnnl_pooling_avg_exclude_padding;
  dnnl_pooling_desc_t fwd, bwd;
  dnnl_primitive_desc_t hint = NULL, pd = NULL;
  TFC_TRY(tfc_dnn_check(dnnl_pooling_forward_desc_init(&fwd, avg_grad ? dnnl_forward_training : dnnl_forward_inference,
                                                       alg, src, dst, strides, kernel, pl, pr),
                        "pooling descriptor", s));
  TFC_TRY(tfc_dnn_pd_create(&fwd, NULL, &hint, s));
  if (!avg_grad) {
    int ids[2] = {DNNL_ARG_SRC, DNNL_ARG_DST}, out[2] = {0, 1};
    dnnl_memory_desc_t u[2] = {*src, *dst};
    return tfc_dnn_prim_init(p, hint, ids, out, u, 2, s);
  }
  int ids[2] = {DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC}, out[2] = {0, 1};
  dnnl_memory_desc_t u[2] = {*dst, *src};
  int rc = tfc_dnn_check(dnnl_pooling_backward_desc_init(&bwd, alg, src, dst, strides, kernel, pl, pr),
                         "pooling backward descriptor", s);
  if (!rc) rc = tfc_dnn_pd_create(&bwd, hint, &pd, s);
  if (!rc) rc = tfc_dnn_prim_init(p, pd, ids, out, u, 2, s);
  dnnl_primitive_desc_destroy(hint);
  return rc;
}

/* ---- the per-node cache ---- */

struct tfc_dnn_cache_entry {
  tfc_dnn_cache_entry *next;
  tfc_dnn_prim prim;
  size_t key_len;
  char key[];
};

void tfc_dnn_cache_init(tfc_dnn_cache *c) {
  pthread_mutex_init(&c->mu, NULL);
  c->head = NULL;
}

void tfc_dnn_cache_fini(tfc_dnn_cache *c) {
  for (tfc_dnn_cache_entry *e = c->head, *next; e; e = next) {
    next = e->next;
    tfc_dnn_prim_fini(&e->prim);
    free(e);
  }
  c->head = NULL;
  pthread_mutex_destroy(&c->mu);
}

/* Primitive creation is serialized process-wide. oneDNN documents creation as thread-safe, but
 * its lazily built global state (the primitive cache) is synchronized in ways ThreadSanitizer
 * cannot see in the uninstrumented library, and two towers build their first convolutions at
 * the same moment. Creation happens once per node and shape, so the lock never shows in a
 * step; execution stays concurrent. */
static pthread_mutex_t build_mu = PTHREAD_MUTEX_INITIALIZER;

/* Entries are never evicted: one per distinct (input shape, shard size) a node has seen,
 * which real graphs keep to a handful. A lookup is a short list walk under the mutex; the
 * entry itself is then read without it. */
const tfc_dnn_prim *tfc_dnn_cache_get(tfc_dnn_cache *c, const void *key, size_t key_len,
                                      int (*build)(const void *key, tfc_dnn_prim *p, tfc_status *s), tfc_status *s) {
  pthread_mutex_lock(&c->mu);
  tfc_dnn_cache_entry *e = c->head;
  while (e && !(e->key_len == key_len && memcmp(e->key, key, key_len) == 0)) e = e->next;
  if (!e) {
    e = malloc(sizeof *e + key_len);
    if (!e) {
      TFC_OOM(s);
    } else {
      pthread_mutex_lock(&build_mu);
      int rc = build(key, &e->prim, s);
      pthread_mutex_unlock(&build_mu);
      if (rc) {
        free(e);
        e = NULL;
      }
    }
    if (e) {
      e->key_len = key_len;
      memcpy(e->key, key, key_len);
      e->next = c->head;
      c->head = e;
    }
  }
  pthread_mutex_unlock(&c->mu);
  return e ? &e->prim : NULL;
}

/* ---- batch sharding ---- */

/* Below ~2 MFLOP per extra shard (about 20 us of one core), a hop to another thread costs more
 * than it saves: MobileNetV2 at batch 1, whose convolutions are mostly 2 to 20 MFLOP, went
 * from 6.9 to 5.8 ms on two threads when this went from 8 to 2 MFLOP (1 MFLOP: no better). */
#define MIN_FLOPS_PER_SHARD 2e6

int tfc_conv_n_shards(const tfc_kernel_ctx *c, int64_t n, double flops) {
  if (!c || !c->pool || n <= 1) return 1;
  int p = c->max_parallel > 0 ? c->max_parallel : tfc_threadpool_size(c->pool) + 1;
  if (p > n) p = (int)n;
  int by_work = (int)(flops / MIN_FLOPS_PER_SHARD);
  if (p > by_work) p = by_work;
  return p < 1 ? 1 : p;
}

/* Output rows [o0, o0 + rows) of one image of g as a geometry of its own: the input rows those
 * windows read, with the padding that falls inside them. 0 when the rows read no input row
 * (all padding), which oneDNN cannot describe. */
static int rows_geom(const tfc_window_geom *g, int64_t o0, int64_t rows, tfc_window_geom *sub, int64_t *in_row) {
  int64_t first = o0 * g->sh - g->pt, end = (o0 + rows - 1) * g->sh - g->pt + (g->kh - 1) * g->dh + 1;
  int64_t from = first < 0 ? 0 : first, to = end > g->ih ? g->ih : end;
  if (to <= from) return 0;
  *sub = *g;
  sub->n = 1;
  sub->oh = rows;
  sub->ih = to - from;
  sub->pt = from - first;
  sub->pb = end - to;
  *in_row = from;
  return 1;
}

void tfc_conv_pieces(const tfc_kernel_ctx *c, const tfc_window_geom *g, double flops, int bands, int64_t in_img,
                     int64_t out_img, tfc_conv_piece *pc, int max, int *n) {
  /* A 1x1 window at stride 1 without padding reads pixel i for output pixel i: in NHWC an
   * image is then one column of H*W pixels as well, and its bands split at any pixel, not at
   * rows (7x7 outputs: 25 + 24 pixels instead of 4 + 3 rows, 10% sooner on two threads). */
  tfc_window_geom flat;
  if (bands && g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && !(g->pt | g->pb | g->pl | g->pr) &&
      g->iw > 1 && g->ih == g->oh && g->iw == g->ow) {
    flat = *g;
    flat.ih = flat.oh = g->ih * g->iw;
    flat.iw = flat.ow = 1;
    g = &flat;
  }
  int batch = tfc_conv_n_shards(c, g->n, flops), want = tfc_conv_n_shards(c, INT64_MAX, flops);
  if (batch > max) batch = max;
  int64_t nb = bands && want > g->n ? want / g->n : 1;
  if (nb > g->oh) nb = g->oh;
  if (g->n * nb > max) nb = 1;
  for (int64_t b = 0; nb > 1 && b < nb; b++) { /* every band must read some input */
    int64_t o0 = 0, rows = 0, row = 0;
    tfc_window_geom sub;
    tfc_conv_shard(g->oh, (int)nb, (int)b, &o0, &rows);
    if (!rows_geom(g, o0, rows, &sub, &row)) nb = 1;
  }
  *n = nb > 1 ? (int)(g->n * nb) : batch;
  for (int k = 0; k < *n; k++) {
    tfc_conv_piece *q = &pc[k];
    if (nb > 1) {
      int64_t img = k / nb, o0 = 0, rows = 0, row = 0;
      tfc_conv_shard(g->oh, (int)nb, (int)(k % nb), &o0, &rows);
      rows_geom(g, o0, rows, &q->g, &row);
      int64_t in_row_bytes = g->iw * g->ic * 4, out_row_bytes = g->ow * g->oc * 4;
      q->in_off = img * in_img + row * in_row_bytes;
      q->out_off = img * out_img + o0 * out_row_bytes;
      q->out_bytes = rows * out_row_bytes;
    } else {
      int64_t begin = 0, size = 0;
      tfc_conv_shard(g->n, *n, k, &begin, &size);
      q->g = *g;
      q->g.n = size;
      q->in_off = begin * in_img;
      q->out_off = begin * out_img;
      q->out_bytes = size * out_img;
    }
  }
}

typedef struct shard_job {
  void (*fn)(int k, void *arg);
  void *arg;
} shard_job;

static void shard_range(int64_t begin, int64_t end, void *arg) {
  const shard_job *j = arg;
  for (int64_t k = begin; k < end; k++) j->fn((int)k, j->arg);
}

void tfc_conv_for_shards(tfc_kernel_ctx *c, int n_shards, void (*fn)(int k, void *arg), void *arg) {
  shard_job j = {fn, arg};
  if (n_shards <= 1 || !c->pool) {
    shard_range(0, n_shards, &j);
    return;
  }
  tfc_threadpool_parallel_for(c->pool, n_shards, 1, n_shards, shard_range, &j);
}

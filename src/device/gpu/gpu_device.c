/*
 * gpu_device — see gpu_device.h.
 *
 * The factory follows TF 1.15's BaseGPUDeviceFactory::CreateDevices step by step, so that the
 * same GPUOptions give the same devices, limits and errors: parse visible_device_list (only
 * when GPUs are wanted at all), cap the count by device_count, check the virtual devices
 * against it, then make the logical devices of each physical GPU in order.
 *
 * Each logical GPU's allocator has a gpu_mem context: the platform ordinal, the limit, and the
 * arena, created under the context's mutex on the first allocation. The allocator owns the
 * context, so the arena lives as long as any tensor allocated from it, even after the device.
 * The context also holds the GPU's streams (created on first use, under the same mutex) and
 * their completion thread, so a device tensor reaches its GPU's streams through its buffer's
 * allocator. Freeing the device retires them: the streams are synchronized, the completion
 * thread drains its queue and stops, and the handles are destroyed; the context stays for the
 * tensors still alive, whose later copies run synchronously.
 */
#include "device/gpu/gpu_device.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/gpu/gpu_platform.h"

/* ---------------- the kernel table ---------------- */

#ifdef TFC_HAVE_CUDA
/* src/device/cuda/: the CUDA kernels, for the CUDA platform only. */
int tfc_cuda_kernels_register(tfc_kernel_table *t, tfc_status *s);
#endif

/* Two tables, each built once: the platform-independent kernels alone (any platform but
 * CUDA: the fake one in tests), and those plus the CUDA kernels. A test may switch
 * platforms between sessions, so the choice is made per call, never cached. */
enum { TABLE_CORE = 0, TABLE_CUDA = 1, N_TABLES = 2 };
static tfc_kernel_table gpu_tables[N_TABLES];
static tfc_status gpu_table_status[N_TABLES];
static pthread_once_t gpu_table_once[N_TABLES] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};

static void build_table(int which) {
  tfc_status *s = &gpu_table_status[which];
  tfc_status_init(s);
  tfc_kernel_table_init(&gpu_tables[which], "GPU");
  if (tfc_gpu_kernels_core(&gpu_tables[which], s)) return;
#ifdef TFC_HAVE_CUDA
  if (which == TABLE_CUDA && tfc_cuda_kernels_register(&gpu_tables[which], s)) return;
#endif
  /* Last: they yield to any row above that could run the same node. */
  tfc_gpu_kernels_host(&gpu_tables[which], s);
}

static void build_core_table(void) { build_table(TABLE_CORE); }
static void build_cuda_table(void) { build_table(TABLE_CUDA); }

static const tfc_kernel_table *kernel_table(tfc_status *s) {
  const tfc_gpu_platform *cuda = tfc_gpu_platform_cuda();
  int which = cuda && tfc_gpu_platform_get() == cuda ? TABLE_CUDA : TABLE_CORE;
  pthread_once(&gpu_table_once[which], which == TABLE_CUDA ? build_cuda_table : build_core_table);
  if (!tfc_status_ok(&gpu_table_status[which])) {
    if (s) tfc_status_set(s, gpu_table_status[which].code, "%s", tfc_status_msg(&gpu_table_status[which]));
    return NULL;
  }
  return &gpu_tables[which];
}

const tfc_kernel_table *tfc_gpu_kernel_table(void) { return kernel_table(NULL); }

/* ---------------- memory: a lazily created arena per logical GPU ---------------- */

/* A completion waiting for the completion thread. */
typedef struct completion {
  void (*fn)(void *arg);
  void *arg;
  struct gpu_streams *streams;
  struct completion *next;
} completion;

/* The streams of one logical GPU and the thread that runs their completions. */
typedef struct gpu_streams {
  tfc_gpu_streams s;
  void *compute_event; /* recorded on the compute stream for other streams to wait on */
  pthread_mutex_t event_mu; /* record + wait on compute_event happen as one */
  pthread_t thread;
  pthread_mutex_t qmu;
  pthread_cond_t qcv;
  completion *head, *tail; /* guarded by qmu */
  int stop;                /* guarded by qmu */
} gpu_streams;

typedef struct tfc_gpu_mem {
  pthread_mutex_t mu;
  tfc_bfc *bfc; /* NULL until the first allocation; guarded by mu until set, constant after */
  const tfc_gpu_platform *platform;
  int ordinal;
  int64_t limit;
  int allow_growth;
  tfc_bfc_region_fns regions;
  char arena_name[32];
  /* Streams: created on first use (guarded by mu); `retired` once the device is gone, after
   * which copies of its tensors run synchronously. */
  gpu_streams *streams;
  int retired;
} gpu_mem;

static int region_alloc(void *arg, size_t bytes, void **out, tfc_status *s) {
  gpu_mem *m = arg;
  return m->platform->mem_alloc(m->ordinal, bytes, out, s);
}

static void region_free(void *arg, void *p) {
  gpu_mem *m = arg;
  m->platform->mem_free(m->ordinal, p);
}

/* The arena, created on first use. NULL only when the arena's own bookkeeping is out of
 * host memory. */
static tfc_bfc *mem_arena(gpu_mem *m, int create, tfc_status *s) {
  pthread_mutex_lock(&m->mu);
  if (!m->bfc && create) {
    m->bfc = tfc_bfc_new(m->arena_name, m->limit, m->allow_growth, &m->regions);
    if (!m->bfc) TFC_OOM(s);
  }
  tfc_bfc *b = m->bfc;
  pthread_mutex_unlock(&m->mu);
  return b;
}

static void *mem_alloc(void *ctx, size_t bytes, tfc_status *s) {
  tfc_bfc *b = mem_arena(ctx, 1, s);
  return b ? tfc_bfc_alloc(b, bytes, s) : NULL;
}

static void mem_free(void *ctx, void *p) {
  gpu_mem *m = ctx;
  /* p came from the arena, so it exists; read under the lock all the same (it was set by
   * another thread). */
  tfc_bfc_release(mem_arena(m, 0, NULL), p);
}

static size_t mem_usable_size(void *ctx, const void *p) { return tfc_bfc_size(mem_arena(ctx, 0, NULL), p); }

static void streams_retire(gpu_mem *m);

static void mem_destroy(void *ctx) {
  gpu_mem *m = ctx;
  streams_retire(m); /* a device that never existed fully (creation failed) */
  /* Every buffer holds a reference to the allocator, so nothing is live here; the count is
   * an invariant, not an input. */
  int live = tfc_bfc_free(m->bfc);
  (void)live;
  pthread_mutex_destroy(&m->mu);
  free(m);
}

static const tfc_allocator_ops gpu_mem_ops = {mem_alloc, mem_free, mem_usable_size, mem_destroy};

tfc_gpu_mem *tfc_gpu_mem_of(const tfc_allocator *a) {
  return a && a->ops == &gpu_mem_ops ? a->ops_ctx : NULL;
}

const tfc_gpu_platform *tfc_gpu_mem_platform(const tfc_gpu_mem *m) { return m->platform; }

int tfc_gpu_mem_ordinal(const tfc_gpu_mem *m) { return m->ordinal; }

/* ---------------- streams and their completion thread ---------------- */

/* Runs completions in order until told to stop with nothing left. */
static void *completion_thread(void *arg) {
  gpu_streams *st = arg;
  pthread_mutex_lock(&st->qmu);
  for (;;) {
    while (!st->head && !st->stop) pthread_cond_wait(&st->qcv, &st->qmu);
    completion *c = st->head;
    if (!c) break;
    st->head = c->next;
    if (!st->head) st->tail = NULL;
    pthread_mutex_unlock(&st->qmu);
    c->fn(c->arg);
    free(c);
    pthread_mutex_lock(&st->qmu);
  }
  pthread_mutex_unlock(&st->qmu);
  return NULL;
}

/* The platform's callback may not call the platform, so it only queues. */
static void completion_trampoline(void *arg) {
  completion *c = arg;
  gpu_streams *st = c->streams;
  pthread_mutex_lock(&st->qmu);
  if (st->tail)
    st->tail->next = c;
  else
    st->head = c;
  st->tail = c;
  pthread_cond_signal(&st->qcv);
  pthread_mutex_unlock(&st->qmu);
}

static void streams_destroy(const tfc_gpu_platform *p, int ordinal, gpu_streams *st, int thread_started) {
  if (thread_started) {
    pthread_mutex_lock(&st->qmu);
    st->stop = 1;
    pthread_cond_signal(&st->qcv);
    pthread_mutex_unlock(&st->qmu);
    pthread_join(st->thread, NULL);
  }
  if (st->compute_event) p->event_destroy(ordinal, st->compute_event);
  void *all[] = {st->s.compute, st->s.h2d, st->s.d2h, st->s.d2d};
  for (int i = 0; i < 4; i++)
    if (all[i]) p->stream_destroy(ordinal, all[i]);
  pthread_mutex_destroy(&st->event_mu);
  pthread_mutex_destroy(&st->qmu);
  pthread_cond_destroy(&st->qcv);
  free(st);
}

static gpu_streams *streams_create(const tfc_gpu_platform *p, int ordinal, tfc_status *s) {
  gpu_streams *st = calloc(1, sizeof *st);
  if (!st) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_init(&st->event_mu, NULL);
  pthread_mutex_init(&st->qmu, NULL);
  pthread_cond_init(&st->qcv, NULL);
  void **all[] = {&st->s.compute, &st->s.h2d, &st->s.d2h, &st->s.d2d};
  int code = TFC_OK;
  for (int i = 0; i < 4 && !code; i++) code = p->stream_create(ordinal, all[i], s);
  if (!code) code = p->event_create(ordinal, &st->compute_event, s);
  if (!code && pthread_create(&st->thread, NULL, completion_thread, st) != 0)
    code = tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "GPU %d: cannot start the stream completion thread", ordinal);
  if (code) {
    streams_destroy(p, ordinal, st, 0);
    tfc_status_prefix(s, "creating the streams of GPU %d: ", ordinal);
    return NULL;
  }
  return st;
}

/* The streams, created on first use; NULL with s OK when there are none. */
static gpu_streams *mem_streams(gpu_mem *m, tfc_status *s) {
  if (!m->platform->stream_create) return NULL;
  pthread_mutex_lock(&m->mu);
  if (!m->streams && !m->retired) m->streams = streams_create(m->platform, m->ordinal, s);
  gpu_streams *st = m->streams;
  pthread_mutex_unlock(&m->mu);
  return st;
}

/* Waits for the work queued on the streams, then destroys them; later copies of this GPU's
 * tensors run synchronously. */
static void streams_retire(gpu_mem *m) {
  pthread_mutex_lock(&m->mu);
  gpu_streams *st = m->streams;
  m->streams = NULL;
  m->retired = 1;
  pthread_mutex_unlock(&m->mu);
  if (!st) return;
  tfc_status ignored; /* a failed sync leaves nothing to do but destroy */
  tfc_status_init(&ignored);
  void *all[] = {st->s.compute, st->s.h2d, st->s.d2h, st->s.d2d};
  for (int i = 0; i < 4; i++) m->platform->stream_sync(m->ordinal, all[i], &ignored);
  tfc_status_fini(&ignored);
  streams_destroy(m->platform, m->ordinal, st, 1);
}

int tfc_gpu_mem_streams(tfc_gpu_mem *m, tfc_gpu_streams *out, tfc_status *s) {
  memset(out, 0, sizeof *out);
  gpu_streams *st = mem_streams(m, s);
  if (st) *out = st->s;
  return s->code;
}

int tfc_gpu_mem_wait_compute(tfc_gpu_mem *m, int stream_ordinal, void *stream, tfc_status *s) {
  gpu_streams *st = mem_streams(m, s);
  if (!st) return s->code;
  const tfc_gpu_platform *p = m->platform;
  pthread_mutex_lock(&st->event_mu);
  int code = p->event_record(m->ordinal, st->compute_event, st->s.compute, s);
  if (!code) code = p->stream_wait_event(stream_ordinal, stream, st->compute_event, s);
  pthread_mutex_unlock(&st->event_mu);
  return code;
}

int tfc_gpu_mem_then(tfc_gpu_mem *m, void *stream, void (*fn)(void *arg), void *arg, tfc_status *s) {
  gpu_streams *st = mem_streams(m, s);
  if (!st) return s->code ? s->code : tfc_status_set(s, TFC_FAILED_PRECONDITION, "GPU %d has no streams", m->ordinal);
  completion *c = calloc(1, sizeof *c);
  if (!c) return TFC_OOM(s);
  c->fn = fn;
  c->arg = arg;
  c->streams = st;
  if (m->platform->stream_callback(m->ordinal, stream, completion_trampoline, c, s)) {
    free(c);
    return s->code;
  }
  return TFC_OK;
}

/* ---------------- the device ---------------- */

typedef struct gpu_device {
  tfc_device base; /* first: a tfc_device * is a gpu_device * */
  int platform_id;
  gpu_mem *mem; /* borrowed from base.allocator, which owns it */
} gpu_device;

static void gpu_free(tfc_device *d) {
  gpu_device *g = (gpu_device *)d;
  if (g->mem) streams_retire(g->mem);
  tfc_resource_mgr_free(d->resources);
  tfc_allocator_unref(d->allocator);
  free(d->physical_desc);
  free(d->name);
  free(d);
}

static const tfc_device_ops gpu_ops = {gpu_free};

static const gpu_device *as_gpu(const tfc_device *d) { return d && d->ops == &gpu_ops ? (const gpu_device *)d : NULL; }

int tfc_gpu_device_platform_id(const tfc_device *d) {
  const gpu_device *g = as_gpu(d);
  return g ? g->platform_id : -1;
}

tfc_gpu_mem *tfc_gpu_device_mem(const tfc_device *d) {
  const gpu_device *g = as_gpu(d);
  return g ? g->mem : NULL;
}

void *tfc_gpu_device_compute_stream(tfc_device *d, tfc_status *s) {
  const gpu_device *g = as_gpu(d);
  if (!g) {
    tfc_status_set(s, TFC_INTERNAL, "%s is not a GPU device: it has no compute stream", d ? d->name : "(null)");
    return NULL;
  }
  gpu_streams *st = mem_streams(g->mem, s);
  return st ? st->s.compute : NULL;
}

int tfc_gpu_device_arena_stats(const tfc_device *d, tfc_bfc_stats *out) {
  memset(out, 0, sizeof *out);
  const gpu_device *g = as_gpu(d);
  tfc_bfc *b = g ? mem_arena(g->mem, 0, NULL) : NULL;
  if (!b) return -1;
  *out = tfc_bfc_get_stats(b);
  return 0;
}

typedef struct new_gpu {
  const tfc_gpu_platform *platform;
  const char *job;
  int replica, task;
  int tf_id, platform_id;
  int64_t limit;
  int allow_growth;
  const tfc_gpu_props *props;
  tfc_threadpool *pool;
  int intra_op_threads;
} new_gpu;

static tfc_device *gpu_device_new(const new_gpu *a, tfc_status *s) {
  gpu_device *g = calloc(1, sizeof *g);
  gpu_mem *m = calloc(1, sizeof *m);
  if (!g || !m) goto oom;
  tfc_device *d = &g->base;
  d->ops = &gpu_ops;
  g->platform_id = a->platform_id;
  pthread_mutex_init(&m->mu, NULL);
  m->platform = a->platform;
  m->ordinal = a->platform_id;
  m->limit = a->limit;
  m->allow_growth = a->allow_growth;
  m->regions = (tfc_bfc_region_fns){region_alloc, region_free, m};
  snprintf(m->arena_name, sizeof m->arena_name, "GPU_%d_bfc", a->tf_id);
  if (asprintf(&d->name, "/job:%s/replica:%d/task:%d/device:GPU:%d", a->job, a->replica, a->task, a->tf_id) < 0) {
    d->name = NULL;
    goto oom_mem;
  }
  /* TF's GetShortDeviceDescription: the platform's id, not the logical one. */
  if (asprintf(&d->physical_desc, "device: %d, name: %s, pci bus id: %s, compute capability: %d.%d",
               a->platform_id, a->props->name, a->props->pci_bus_id, a->props->cc_major, a->props->cc_minor) < 0) {
    d->physical_desc = NULL;
    goto oom_mem;
  }
  if (!(d->allocator = tfc_allocator_new_device(d->name, m->arena_name, &gpu_mem_ops, m, 1))) goto oom_mem;
  g->mem = m; /* the allocator owns it from here */
  if (!(d->resources = tfc_resource_mgr_new())) {
    gpu_free(d);
    TFC_OOM(s);
    return NULL;
  }
  snprintf(d->type, sizeof d->type, "GPU");
  d->id = a->tf_id;
  d->priority = 210;
  d->incarnation = tfc_new_incarnation();
  d->memory_bytes = a->limit;
  if (!(d->kernels = kernel_table(s))) {
    gpu_free(d);
    return NULL;
  }
  d->pool = a->pool;
  d->intra_op_threads = a->intra_op_threads;
  return d;
oom_mem:
  pthread_mutex_destroy(&m->mu);
  free(g->base.physical_desc);
  free(g->base.name);
oom:
  free(m);
  free(g);
  TFC_OOM(s);
  return NULL;
}

/* ---------------- the factory ---------------- */

/* TF 1.15's MinSystemMemory (gpu_device.cc, optimized builds): what the default limit leaves
 * to the driver and other processes — 225 MiB when less than 2 GiB is free, else 5% of the
 * free memory but at least 300 MiB. */
static int64_t min_system_memory(int64_t available) {
  if (available < (INT64_C(1) << 31)) return INT64_C(225) << 20;
  int64_t five_percent = (int64_t)((double)available * 0.05);
  return five_percent > INT64_C(314572800) ? five_percent : INT64_C(314572800);
}

/* The limit of a GPU that is one logical device (TF's SingleVirtualDeviceMemoryLimit, which
 * also refuses a fraction above 1 only here, where it would apply). */
static int default_limit(const tfc_gpu_platform *p, const tfc_device_options *o, int ordinal, int64_t *out,
                         tfc_status *s) {
  int64_t free_bytes = 0, total = 0;
  TFC_TRY(p->mem_info(ordinal, &free_bytes, &total, s));
  double f = o->per_process_gpu_memory_fraction;
  if (f > 1.0)
    return tfc_status_set(s, TFC_UNIMPLEMENTED,
                          "per_process_gpu_memory_fraction %g > 1 asks for unified memory (oversubscribing GPU %d), "
                          "which tfc does not support",
                          f, ordinal);
  if (!(f >= 0))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "per_process_gpu_memory_fraction %g is not a fraction", f);
  if (f == 0) {
    int64_t reserve = min_system_memory(free_bytes);
    *out = reserve < free_bytes ? free_bytes - reserve : free_bytes;
  } else {
    *out = (int64_t)((double)total * f);
  }
  return TFC_OK;
}

/* visible_device_list into platform ids, as TF's ParseVisibleDeviceList: empty means every
 * GPU in order; entries are decimal ids, each < the platform's count, without repeats. */
static int parse_visible(const char *list, int n_platform, int **out, int *n_out, tfc_status *s) {
  *out = NULL;
  *n_out = 0;
  int cap = n_platform > 1 ? n_platform : 1; /* the whole list, or one id per entry */
  int n_entries = 1;
  for (const char *c = list ? list : ""; *c; c++) n_entries += *c == ',';
  if (n_entries > cap) cap = n_entries;
  int *ids = malloc(sizeof *ids * (size_t)cap);
  if (!ids) return TFC_OOM(s);
  int n = 0;
  if (!list || !list[0]) {
    for (int i = 0; i < n_platform; i++) ids[n++] = i;
  } else {
    for (const char *p = list;;) {
      const char *end = strchr(p, ',');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      char entry[32];
      int ok = len < sizeof entry;
      long v = -1;
      if (ok) {
        memcpy(entry, p, len);
        entry[len] = 0;
        /* As TF's safe_strto32: surrounding blanks are allowed, nothing else. */
        char *rest;
        errno = 0;
        v = strtol(entry, &rest, 10);
        while (*rest == ' ' || *rest == '\t') rest++;
        ok = rest != entry && *rest == 0 && errno == 0 && v >= INT_MIN && v <= INT_MAX;
      }
      if (!ok) {
        free(ids);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Could not parse entry in 'visible_device_list': '%.*s'. visible_device_list = %s",
                              (int)(len > 64 ? 64 : len), p, list);
      }
      if (v < 0 || v >= n_platform) {
        free(ids);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "'visible_device_list' listed an invalid GPU id '%ld' but visible device count is %d", v,
                              n_platform);
      }
      ids[n++] = (int)v;
      if (!end) break;
      p = end + 1;
    }
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++)
        if (ids[i] == ids[j]) {
          free(ids);
          return tfc_status_set(s, TFC_INVALID_ARGUMENT, "visible_device_list contained a duplicate entry: %s", list);
        }
  }
  *out = ids;
  *n_out = n;
  return TFC_OK;
}

/* TF's VerifyVirtualDeviceSettings, with its texts and codes. */
static int check_virtual(const tfc_device_options *o, int num_to_use, int n_visible, int n_valid, tfc_status *s) {
  int n_vd = o->n_virtual_devices;
  if (num_to_use < n_vd)
    return tfc_status_set(s, TFC_UNKNOWN, "Not enough GPUs to create virtual devices. num_gpus_to_use: %d #virtual_devices: %d",
                          num_to_use, n_vd);
  if (o->visible_device_list && o->visible_device_list[0] && n_visible != n_vd)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "The number of GPUs in visible_device_list doesn't match the number of elements in the "
                          "virtual_devices list. #GPUs in visible_device_list: %d virtual_devices.size(): %d",
                          n_visible, n_vd);
  if (n_valid != n_vd)
    return tfc_status_set(s, TFC_UNKNOWN,
                          "The number of valid GPUs doesn't match the number of elements in the virtual_devices list. "
                          "#valid GPUs: %d virtual_devices.size(): %d",
                          n_valid, n_vd);
  return TFC_OK;
}

/* GPUOptions.allow_growth as TF's GPU allocator reads it: the environment variable
 * TF_FORCE_GPU_ALLOW_GROWTH ("true" or "false") overrides the config; any other value is
 * reported on stderr and the config's value is kept. */
static int allow_growth_value(int configured) {
  const char *v = getenv("TF_FORCE_GPU_ALLOW_GROWTH");
  if (!v) return configured;
  if (!strcmp(v, "true")) return 1;
  if (!strcmp(v, "false")) return 0;
  fprintf(stderr,
          "The TF_FORCE_GPU_ALLOW_GROWTH environment variable is set but could not be parsed: \"%s\". Valid values "
          "are \"true\" or \"false\". Using original config value of allow_growth.\n",
          v);
  return configured;
}

/* Appends the logical devices of physical GPU `pid` (visible position i), numbering them from
 * *tf_id on. */
static int add_physical(const tfc_gpu_platform *p, const tfc_device_options *o, const char *job, int replica,
                        int task, int i, int pid, int limit_offset, int *tf_id, tfc_threadpool *pool, int intra,
                        tfc_device ***devices, int *n_devices, tfc_status *s) {
  tfc_gpu_props props;
  memset(&props, 0, sizeof props);
  TFC_TRY(p->get_props(pid, &props, s));
  props.name[sizeof props.name - 1] = 0;
  props.pci_bus_id[sizeof props.pci_bus_id - 1] = 0;
  int n_limits = o->n_virtual_devices > 0 ? o->n_memory_limits[i] : 0;
  int n_logical = n_limits > 0 ? n_limits : 1;
  tfc_device **d = realloc(*devices, sizeof *d * (size_t)(*n_devices + n_logical + 1));
  if (!d) return TFC_OOM(s);
  *devices = d;
  for (int k = 0; k < n_logical; k++) {
    int64_t limit = 0;
    if (n_limits > 0) {
      float mb = o->memory_limit_mb[limit_offset + k];
      if (!(mb >= 0) || mb > (float)(INT64_MAX >> 21))
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "GPUOptions.experimental.virtual_devices: memory_limit_mb %g of GPU %d is not a "
                              "valid size",
                              (double)mb, pid);
      limit = (int64_t)mb << 20; /* TF truncates the MiB to an integer first */
    } else {
      TFC_TRY(default_limit(p, o, pid, &limit, s));
    }
    new_gpu a = {p, job, replica, task, *tf_id, pid, limit, allow_growth_value(o->allow_growth), &props, pool, intra};
    tfc_device *dev = gpu_device_new(&a, s);
    if (!dev) return s->code;
    (*devices)[(*n_devices)++] = dev;
    (*tf_id)++;
  }
  return TFC_OK;
}

int tfc_gpu_devices_create(const tfc_device_options *o, const char *job, int replica, int task, int count,
                           tfc_threadpool *pool, int intra_op_threads, tfc_device ***devices, int *n_devices,
                           tfc_status *s) {
  static const tfc_device_options none;
  if (!o) o = &none;
  const tfc_gpu_platform *p = tfc_gpu_platform_get();
  int n_platform = p->device_count();
  /* No GPU: no devices, and the GPU options mean nothing (as in a CPU-only TF build). */
  if (n_platform <= 0) return TFC_OK;
  int num_to_use = count < 0 ? INT_MAX : count;
  int *visible = NULL, n_visible = 0;
  /* TF looks at visible_device_list only when GPUs are wanted at all. */
  if (num_to_use > 0) TFC_TRY(parse_visible(o->visible_device_list, n_platform, &visible, &n_visible, s));
  /* Every visible GPU is valid: the platform shows only GPUs its kernels can run on. */
  int n_valid = n_visible;
  if (num_to_use > n_valid) num_to_use = n_valid;
  int code = TFC_OK;
  if (o->n_virtual_devices > 0) {
    code = check_virtual(o, num_to_use, n_visible, n_valid, s);
    num_to_use = o->n_virtual_devices;
  }
  int tf_id = 0, limit_offset = 0;
  for (int i = 0; code == TFC_OK && i < num_to_use; i++) {
    code = add_physical(p, o, job, replica, task, i, visible[i], limit_offset, &tf_id, pool, intra_op_threads, devices,
                        n_devices, s);
    if (o->n_virtual_devices > 0) limit_offset += o->n_memory_limits[i];
  }
  free(visible);
  return code;
}

/*
 * cpu_device — the CPU device: host memory, the CPU kernel table, a share of the cores.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/malloc_tune.h"
#include "device/cpu/cpu_kernels.h"
#include "device/device.h"

static tfc_kernel_table cpu_table;
static tfc_status cpu_table_status;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
  tfc_status_init(&cpu_table_status);
  tfc_kernel_table_init(&cpu_table, "CPU");
  tfc_status *s = &cpu_table_status;
  if (tfc_ops_init(s)) return;
  tfc_cpu_blas_init();
  tfc_malloc_tune(); /* keeps the heap from shrinking and growing every step */
  int (*families[])(tfc_kernel_table *, tfc_status *) = {
      tfc_cpu_kernels_core, tfc_cpu_kernels_matmul, tfc_cpu_kernels_cwise,
      tfc_cpu_kernels_reduce, tfc_cpu_kernels_array, tfc_cpu_kernels_sendrecv, tfc_cpu_kernels_state,
      tfc_cpu_kernels_nn,     tfc_cpu_kernels_conv,   tfc_cpu_kernels_random, tfc_cpu_kernels_training,
      tfc_cpu_kernels_parse,  tfc_cpu_kernels_data,   tfc_cpu_kernels_checkpoint, tfc_cpu_kernels_summary,
      tfc_cpu_kernels_list,
      tfc_cpu_kernels_tensor_array, tfc_cpu_kernels_script, tfc_cpu_kernels_math_tail,
      tfc_cpu_kernels_linalg, tfc_cpu_kernels_string, tfc_cpu_kernels_array_tail, tfc_cpu_kernels_image,
      tfc_cpu_kernels_codec, tfc_cpu_kernels_regex, tfc_cpu_kernels_lookup, tfc_cpu_kernels_string_ops,
      tfc_cpu_kernels_scatter,
      tfc_cpu_kernels_fft, tfc_cpu_kernels_accumulator,
      tfc_cpu_kernels_half /* last: it widens the float rows of the others */};
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
    if (families[i](&cpu_table, s)) return;
}

const tfc_kernel_table *tfc_cpu_kernel_table(tfc_status *s) {
  pthread_once(&cpu_once, build_table);
  if (!tfc_status_ok(&cpu_table_status)) {
    tfc_status_set(s, cpu_table_status.code, "%s", tfc_status_msg(&cpu_table_status));
    return NULL;
  }
  return &cpu_table;
}

static void cpu_free(tfc_device *d) {
  free(d->physical_desc);
  tfc_resource_mgr_free(d->resources);
  tfc_allocator_unref(d->allocator);
  free(d->name);
  free(d);
}

static const tfc_device_ops cpu_ops = {cpu_free};

/* ThreadPoolDeviceFactory reports 256 MiB for every CPU device (TF_DeviceListMemoryBytes). */
#define CPU_MEMORY_BYTES (256ll << 20)

tfc_device *tfc_cpu_device_new(const char *job, int replica, int task, int id, tfc_threadpool *pool,
                               int intra_op_threads, tfc_status *s) {
  const tfc_kernel_table *kt = tfc_cpu_kernel_table(s);
  if (!kt) return NULL;
  tfc_device *d = calloc(1, sizeof *d);
  if (!d || asprintf(&d->name, "/job:%s/replica:%d/task:%d/device:CPU:%d", job, replica, task, id) < 0) {
    free(d);
    TFC_OOM(s);
    return NULL;
  }
  d->ops = &cpu_ops;
  if (!(d->allocator = tfc_allocator_new(d->name)) || !(d->resources = tfc_resource_mgr_new())) {
    tfc_allocator_unref(d->allocator);
    free(d->name);
    free(d);
    TFC_OOM(s);
    return NULL;
  }
  snprintf(d->type, sizeof d->type, "CPU");
  d->id = id;
  d->priority = 70;
  d->incarnation = tfc_new_incarnation();
  d->memory_bytes = CPU_MEMORY_BYTES;
  d->kernels = kt;
  d->pool = pool;
  d->intra_op_threads = intra_op_threads;
  return d;
}

/* Above this device_count.CPU is surely a mistake (each device has its own allocator,
 * resources and executors): refuse rather than exhaust memory. */
#define MAX_CPU_DEVICES 4096

int tfc_cpu_devices_create(const tfc_device_options *o, const char *job, int replica, int task, int count,
                           tfc_threadpool *pool, int intra_op_threads, tfc_device ***devices, int *n_devices,
                           tfc_status *s) {
  (void)o;
  int n = count < 0 ? 1 : count;
  if (n == 0) n = 1; /* TF always keeps CPU:0 */
  if (n > MAX_CPU_DEVICES)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "device_count asks for %d CPU devices; at most %d", n,
                          MAX_CPU_DEVICES);
  tfc_device **d = realloc(*devices, sizeof *d * (size_t)(*n_devices + n + 1));
  if (!d) return TFC_OOM(s);
  *devices = d;
  int share = intra_op_threads / n > 0 ? intra_op_threads / n : 1;
  for (int i = 0; i < n; i++) {
    tfc_device *dev = tfc_cpu_device_new(job, replica, task, i, pool, share, s);
    if (!dev) return s->code;
    (*devices)[(*n_devices)++] = dev;
  }
  return TFC_OK;
}

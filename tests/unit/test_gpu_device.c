/* GPU device tests on the fake GPU platform: enumeration and TF's names, memory limits from
 * per_process_gpu_memory_fraction and TF's default, visible_device_list, device_count, virtual
 * devices and their errors, the "Device mapping" printed by log_device_placement, lazy arenas
 * (no GPU memory until the first tensor), allocator statistics, the out-of-memory message, and
 * that a session with a GPU still places and runs CPU-only graphs on the CPU.
 *
 * Configs are real ConfigProto bytes (packed with the generated code), so the GPUOptions
 * decoding is exercised end to end. */
#include <pthread.h>
#include <stdint.h>

#include "device/gpu/gpu_device.h"
#include "device/gpu/gpu_fake.h"
#include "harness.h"
#include "session/config.h"
#include "session/session.h"
#include "tensor/allocator.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/config.pb-c.h"

#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)
#define LH "/job:localhost/replica:0/task:0/device:"

static const tfc_gpu_fake_spec h200 = {"NVIDIA H200", "0000:1b:00.0", 9, 0, 16 * GiB, 15 * GiB};
static const tfc_gpu_fake_spec a100 = {"NVIDIA A100-SXM4-40GB", "0000:3b:00.0", 8, 0, 40 * GiB, 0};
/* Small enough that an arena may really take its whole limit from the host heap. */
static const tfc_gpu_fake_spec small = {"Small GPU", "0000:05:00.0", 7, 5, 64 * MiB, 0};

static void install(const tfc_gpu_fake_spec *specs, int n) {
  unsetenv("TF_FORCE_GPU_ALLOW_GROWTH"); /* the tests set allow_growth through the config */
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_gpu_fake_configure(specs, n, &s), TFC_OK);
  tfc_status_fini(&s);
  tfc_gpu_platform_set_for_testing(tfc_gpu_fake_platform());
}

/* ---------------- configs ---------------- */

typedef struct gpu_cfg {
  double fraction;
  int allow_growth;
  const char *visible;
  const int *gpu_count; /* device_count {"GPU": *gpu_count}; NULL: not given */
  int n_virtual;
  const int *n_limits; /* per virtual_devices entry */
  const float *limits; /* all entries' limits, one entry after the other */
  int log_placement;
  int soft_placement;
} gpu_cfg;

#define CFG(...) ((gpu_cfg){__VA_ARGS__})

/* The ConfigProto bytes for g (malloc'ed; *len their size). */
static uint8_t *pack_config(const gpu_cfg *g, size_t *len) {
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  Tensorflow__GPUOptions go = TENSORFLOW__GPUOPTIONS__INIT;
  Tensorflow__GPUOptions__Experimental x = TENSORFLOW__GPUOPTIONS__EXPERIMENTAL__INIT;
  Tensorflow__GPUOptions__Experimental__VirtualDevices vd[8];
  Tensorflow__GPUOptions__Experimental__VirtualDevices *vdp[8];
  Tensorflow__ConfigProto__DeviceCountEntry dc = TENSORFLOW__CONFIG_PROTO__DEVICE_COUNT_ENTRY__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry *dcp = &dc;
  go.per_process_gpu_memory_fraction = g->fraction;
  go.allow_growth = g->allow_growth;
  go.visible_device_list = (char *)(g->visible ? g->visible : "");
  EXPECT_TRUE(g->n_virtual <= 8);
  int off = 0;
  for (int i = 0; i < g->n_virtual; i++) {
    tensorflow__gpuoptions__experimental__virtual_devices__init(&vd[i]);
    vd[i].n_memory_limit_mb = (size_t)g->n_limits[i];
    vd[i].memory_limit_mb = (float *)g->limits + off;
    off += g->n_limits[i];
    vdp[i] = &vd[i];
  }
  x.n_virtual_devices = (size_t)g->n_virtual;
  x.virtual_devices = vdp;
  go.experimental = &x;
  cp.gpu_options = &go;
  if (g->gpu_count) {
    dc.key = "GPU";
    dc.value = *g->gpu_count;
    cp.n_device_count = 1;
    cp.device_count = &dcp;
  }
  cp.log_device_placement = g->log_placement;
  cp.allow_soft_placement = g->soft_placement;
  *len = tensorflow__config_proto__get_packed_size(&cp);
  uint8_t *buf = malloc(*len ? *len : 1);
  EXPECT_TRUE(buf != NULL);
  tensorflow__config_proto__pack(&cp, buf);
  return buf;
}

static void parse_config(const gpu_cfg *g, tfc_session_config *c) {
  size_t len;
  uint8_t *bytes = pack_config(g, &len);
  tfc_status s;
  tfc_status_init(&s);
  tfc_session_config_init(c);
  EXPECT_EQ(tfc_session_config_parse(c, bytes, len, &s), TFC_OK);
  tfc_status_fini(&s);
  free(bytes);
}

/* ---------------- device sets ---------------- */

typedef struct devset {
  tfc_device **d;
  int n;
  int code;
  tfc_status s;
} devset;

static void devset_make(devset *ds, const gpu_cfg *g) {
  tfc_session_config c;
  parse_config(g, &c);
  ds->d = NULL;
  ds->n = 0;
  tfc_status_init(&ds->s);
  ds->code = tfc_session_devices_create(&c, "localhost", 0, NULL, 2, &ds->d, &ds->n, &ds->s);
  tfc_session_config_fini(&c);
}

static void devset_free(devset *ds) {
  for (int i = 0; i < ds->n; i++) tfc_device_free(ds->d[i]);
  free(ds->d);
  tfc_status_fini(&ds->s);
}

/* The error of a device set that must fail (and then holds nothing of use). */
static void expect_devices_error(const gpu_cfg *g, int code, const char *msg) {
  devset ds;
  devset_make(&ds, g);
  EXPECT_EQ(ds.code, code);
  EXPECT_STREQ(tfc_status_msg(&ds.s), msg);
  devset_free(&ds);
}

/* TF 1.15's default: the free memory less max(300 MiB, 5%) (225 MiB below 2 GiB free). */
static int64_t tf_default_limit(int64_t free_bytes) {
  int64_t reserve = free_bytes < 2 * GiB ? 225 * MiB : (int64_t)((double)free_bytes * 0.05);
  if (free_bytes >= 2 * GiB && reserve < 300 * MiB) reserve = 300 * MiB;
  return free_bytes - reserve;
}

/* ---------------- enumeration, names, limits ---------------- */

static void no_gpus_gives_only_the_cpu(void) {
  install(NULL, 0);
  devset ds;
  devset_make(&ds, &CFG(.visible = "3", .n_virtual = 1, .n_limits = (int[]){1}, .limits = (float[]){10}));
  /* Without GPUs the GPU options mean nothing, as in a CPU-only TF build. */
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 1);
  EXPECT_STREQ(ds.d[0]->name, LH "CPU:0");
  EXPECT_TRUE(ds.d[0]->physical_desc == NULL);
  devset_free(&ds);
  /* The default platform of this build (no CUDA here, or a machine without GPUs) agrees. */
  tfc_gpu_platform_set_for_testing(NULL);
  EXPECT_TRUE(tfc_gpu_platform_get() != NULL);
  devset_make(&ds, &CFG());
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_TRUE(ds.n >= 1);
  EXPECT_STREQ(ds.d[0]->name, LH "CPU:0");
  devset_free(&ds);
}

static void one_gpu_gets_tf_name_desc_and_default_limit(void) {
  install(&h200, 1);
  devset ds;
  devset_make(&ds, &CFG());
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 2);
  /* CPU first, as TF's DeviceFactory::AddDevices makes them. */
  EXPECT_STREQ(ds.d[0]->name, LH "CPU:0");
  tfc_device *g = ds.d[1];
  EXPECT_STREQ(g->name, LH "GPU:0");
  EXPECT_STREQ(g->type, "GPU");
  EXPECT_EQ(g->id, 0);
  EXPECT_EQ(g->priority, 210);
  EXPECT_TRUE(g->incarnation != 0);
  EXPECT_TRUE(g->incarnation != ds.d[0]->incarnation);
  EXPECT_EQ(g->memory_bytes, tf_default_limit(15 * GiB));
  EXPECT_EQ(g->memory_bytes, 15 * GiB - (int64_t)(15 * GiB * 0.05));
  EXPECT_STREQ(g->physical_desc, "device: 0, name: NVIDIA H200, pci bus id: 0000:1b:00.0, compute capability: 9.0");
  EXPECT_TRUE(g->kernels == tfc_gpu_kernel_table());
  EXPECT_STREQ(g->kernels->device_type, "GPU");
  EXPECT_TRUE(g->kernels->n_defs > 0); /* the platform-independent kernels (kernels_gpu_core.c) */
  EXPECT_EQ(tfc_gpu_device_platform_id(g), 0);
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[0]), -1);
  EXPECT_TRUE(g->allocator->device_memory);
  EXPECT_STREQ(g->allocator->arena_name, "GPU_0_bfc");
  EXPECT_STREQ(g->allocator->name, LH "GPU:0");
  EXPECT_TRUE(!ds.d[0]->allocator->device_memory && ds.d[0]->allocator->ops == NULL);
  /* Listing devices takes no GPU memory. */
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  tfc_bfc_stats st;
  EXPECT_EQ(tfc_gpu_device_arena_stats(g, &st), -1);
  EXPECT_EQ(tfc_gpu_device_arena_stats(ds.d[0], &st), -1);
  devset_free(&ds);
}

static void small_free_memory_keeps_225_mib_for_the_system(void) {
  tfc_gpu_fake_spec spec = {"Tiny", "0000:01:00.0", 7, 0, 2 * GiB, 1 * GiB};
  install(&spec, 1);
  devset ds;
  devset_make(&ds, &CFG());
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.d[1]->memory_bytes, 1 * GiB - 225 * MiB);
  devset_free(&ds);
}

static void fraction_limits_each_gpu_to_its_share_of_total(void) {
  install((tfc_gpu_fake_spec[]){h200, a100}, 2);
  devset ds;
  devset_make(&ds, &CFG(.fraction = 0.25));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 3);
  EXPECT_STREQ(ds.d[1]->name, LH "GPU:0");
  EXPECT_STREQ(ds.d[2]->name, LH "GPU:1");
  EXPECT_EQ(ds.d[1]->memory_bytes, 4 * GiB);
  EXPECT_EQ(ds.d[2]->memory_bytes, 10 * GiB);
  EXPECT_STREQ(ds.d[2]->physical_desc,
               "device: 1, name: NVIDIA A100-SXM4-40GB, pci bus id: 0000:3b:00.0, compute capability: 8.0");
  devset_free(&ds);
}

static void fraction_above_one_is_unimplemented(void) {
  install(&h200, 1);
  expect_devices_error(&CFG(.fraction = 1.5), TFC_UNIMPLEMENTED,
                       "per_process_gpu_memory_fraction 1.5 > 1 asks for unified memory (oversubscribing GPU 0), "
                       "which tfc does not support");
  expect_devices_error(&CFG(.fraction = -0.5), TFC_INVALID_ARGUMENT,
                       "per_process_gpu_memory_fraction -0.5 is not a fraction");
  /* With no GPU wanted the fraction is never used, as in TF. */
  devset ds;
  devset_make(&ds, &CFG(.fraction = 1.5, .gpu_count = &(int){0}));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 1);
  devset_free(&ds);
}

/* ---------------- visible_device_list and device_count ---------------- */

static void visible_device_list_picks_and_orders_gpus(void) {
  install((tfc_gpu_fake_spec[]){h200, a100}, 2);
  devset ds;
  devset_make(&ds, &CFG(.visible = "1,0", .fraction = 0.5));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 3);
  EXPECT_STREQ(ds.d[1]->name, LH "GPU:0");
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[1]), 1);
  EXPECT_EQ(ds.d[1]->memory_bytes, 20 * GiB);
  EXPECT_STREQ(ds.d[1]->physical_desc,
               "device: 1, name: NVIDIA A100-SXM4-40GB, pci bus id: 0000:3b:00.0, compute capability: 8.0");
  EXPECT_STREQ(ds.d[2]->name, LH "GPU:1");
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[2]), 0);
  EXPECT_EQ(ds.d[2]->memory_bytes, 8 * GiB);
  devset_free(&ds);

  devset_make(&ds, &CFG(.visible = " 1 "));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 2);
  EXPECT_STREQ(ds.d[1]->name, LH "GPU:0");
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[1]), 1);
  devset_free(&ds);
}

static void visible_device_list_errors_are_tfs(void) {
  install(&h200, 1);
  expect_devices_error(&CFG(.visible = "5"), TFC_INVALID_ARGUMENT,
                       "'visible_device_list' listed an invalid GPU id '5' but visible device count is 1");
  expect_devices_error(&CFG(.visible = "-1"), TFC_INVALID_ARGUMENT,
                       "'visible_device_list' listed an invalid GPU id '-1' but visible device count is 1");
  expect_devices_error(&CFG(.visible = "0,0"), TFC_INVALID_ARGUMENT,
                       "visible_device_list contained a duplicate entry: 0,0");
  expect_devices_error(&CFG(.visible = "0,x"), TFC_INVALID_ARGUMENT,
                       "Could not parse entry in 'visible_device_list': 'x'. visible_device_list = 0,x");
  expect_devices_error(&CFG(.visible = "0,"), TFC_INVALID_ARGUMENT,
                       "Could not parse entry in 'visible_device_list': ''. visible_device_list = 0,");
  /* device_count GPU 0: the list is not even read (TF does not initialize GPUs then). */
  devset ds;
  devset_make(&ds, &CFG(.visible = "5", .gpu_count = &(int){0}));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 1);
  devset_free(&ds);
}

static void device_count_limits_and_hides_gpus(void) {
  install((tfc_gpu_fake_spec[]){h200, a100}, 2);
  devset ds;
  devset_make(&ds, &CFG(.gpu_count = &(int){0}));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 1);
  EXPECT_STREQ(ds.d[0]->name, LH "CPU:0");
  devset_free(&ds);
  devset_make(&ds, &CFG(.gpu_count = &(int){1}));
  EXPECT_EQ(ds.n, 2);
  EXPECT_STREQ(ds.d[1]->name, LH "GPU:0");
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[1]), 0);
  devset_free(&ds);
  /* More than there are: all of them. */
  devset_make(&ds, &CFG(.gpu_count = &(int){7}));
  EXPECT_EQ(ds.n, 3);
  devset_free(&ds);
}

/* ---------------- virtual devices ---------------- */

static void virtual_devices_split_one_gpu_into_several(void) {
  install(&h200, 1);
  devset ds;
  devset_make(&ds, &CFG(.n_virtual = 1, .n_limits = (int[]){2}, .limits = (float[]){1024, 2048}));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 3);
  EXPECT_STREQ(ds.d[1]->name, LH "GPU:0");
  EXPECT_STREQ(ds.d[2]->name, LH "GPU:1");
  EXPECT_EQ(ds.d[1]->memory_bytes, 1 * GiB);
  EXPECT_EQ(ds.d[2]->memory_bytes, 2 * GiB);
  EXPECT_STREQ(ds.d[1]->physical_desc, ds.d[2]->physical_desc);
  EXPECT_STREQ(ds.d[2]->physical_desc, "device: 0, name: NVIDIA H200, pci bus id: 0000:1b:00.0, compute capability: 9.0");
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[2]), 0);
  EXPECT_TRUE(ds.d[1]->allocator != ds.d[2]->allocator);
  EXPECT_STREQ(ds.d[2]->allocator->arena_name, "GPU_1_bfc");
  EXPECT_TRUE(ds.d[1]->incarnation != ds.d[2]->incarnation);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  devset_free(&ds);
}

static void virtual_devices_number_consecutively_across_gpus(void) {
  install((tfc_gpu_fake_spec[]){h200, a100}, 2);
  devset ds;
  /* GPU 1 (the A100) first: three logical GPUs, then GPU 0 with an empty entry, which is one
   * logical GPU with the default limit. Fractional MiB are truncated, as TF does. */
  devset_make(&ds, &CFG(.visible = "1,0", .n_virtual = 2, .n_limits = (int[]){3, 0},
                        .limits = (float[]){100, 200.9f, 300}));
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 5);
  for (int i = 0; i < 4; i++) {
    char want[64];
    snprintf(want, sizeof want, LH "GPU:%d", i);
    EXPECT_STREQ(ds.d[1 + i]->name, want);
  }
  EXPECT_EQ(ds.d[1]->memory_bytes, 100 * MiB);
  EXPECT_EQ(ds.d[2]->memory_bytes, 200 * MiB);
  EXPECT_EQ(ds.d[3]->memory_bytes, 300 * MiB);
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[3]), 1);
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[4]), 0);
  EXPECT_EQ(ds.d[4]->memory_bytes, tf_default_limit(15 * GiB));
  devset_free(&ds);
}

static void virtual_device_count_mismatch_errors_are_tfs(void) {
  install(&h200, 1);
  gpu_cfg two = CFG(.n_virtual = 2, .n_limits = (int[]){1, 1}, .limits = (float[]){10, 10});
  expect_devices_error(&two, TFC_UNKNOWN,
                       "Not enough GPUs to create virtual devices. num_gpus_to_use: 1 #virtual_devices: 2");
  two.gpu_count = &(int){0};
  expect_devices_error(&two, TFC_UNKNOWN,
                       "Not enough GPUs to create virtual devices. num_gpus_to_use: 0 #virtual_devices: 2");
  install((tfc_gpu_fake_spec[]){h200, a100}, 2);
  gpu_cfg one = CFG(.n_virtual = 1, .n_limits = (int[]){1}, .limits = (float[]){10});
  expect_devices_error(&one, TFC_UNKNOWN,
                       "The number of valid GPUs doesn't match the number of elements in the virtual_devices list. "
                       "#valid GPUs: 2 virtual_devices.size(): 1");
  one.visible = "0,1";
  expect_devices_error(&one, TFC_INVALID_ARGUMENT,
                       "The number of GPUs in visible_device_list doesn't match the number of elements in the "
                       "virtual_devices list. #GPUs in visible_device_list: 2 virtual_devices.size(): 1");
  /* One visible GPU, one entry: fine. */
  one.visible = "1";
  devset ds;
  devset_make(&ds, &one);
  EXPECT_EQ(ds.code, TFC_OK);
  EXPECT_EQ(ds.n, 2);
  EXPECT_EQ(tfc_gpu_device_platform_id(ds.d[1]), 1);
  EXPECT_EQ(ds.d[1]->memory_bytes, 10 * MiB);
  devset_free(&ds);
  one.visible = NULL;
  one.limits = (float[]){-1};
  install(&h200, 1);
  expect_devices_error(&one, TFC_INVALID_ARGUMENT,
                       "GPUOptions.experimental.virtual_devices: memory_limit_mb -1 of GPU 0 is not a valid size");
}

/* ---------------- memory ---------------- */

static tfc_tensor *alloc_f32(tfc_device *d, int64_t rows, int64_t cols, tfc_status *s) {
  return tfc_allocator_tensor(d->allocator, TFC_DT_FLOAT, (int64_t[]){rows, cols}, 2, s);
}

static void first_tensor_creates_a_growth_region(void) {
  install(&h200, 1);
  devset ds;
  devset_make(&ds, &CFG(.allow_growth = 1));
  tfc_device *g = ds.d[1];
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  tfc_tensor *t = alloc_f32(g, 100, 10, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(t->n_bytes, 4000);
  EXPECT_EQ(((uintptr_t)t->data) % 256, 0);
  /* allow_growth: the arena starts with a 2 MiB region. */
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 1);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 2 * MiB);
  tfc_bfc_stats st;
  EXPECT_EQ(tfc_gpu_device_arena_stats(g, &st), 0);
  EXPECT_EQ(st.bytes_in_use, 4096); /* rounded to 256 */
  EXPECT_EQ(st.n_allocs, 1);
  EXPECT_EQ(st.bytes_reserved, 2 * MiB);
  EXPECT_EQ(st.bytes_limit, g->memory_bytes);
  tfc_allocator_stats as = tfc_allocator_get_stats(g->allocator);
  EXPECT_EQ(as.bytes_in_use, 4000);
  EXPECT_EQ(as.n_allocs, 1);
  EXPECT_EQ(g->allocator->ops->usable_size(g->allocator->ops_ctx, t->data), 4096);
  /* Device memory is out of host code's reach, as on a real GPU; the fake's own view is not. */
  EXPECT_TRUE(tfc_gpu_fake_host_view(t->data, t->n_bytes) != NULL);
  EXPECT_TRUE(tfc_gpu_fake_host_view(t->data, 4u << 20) == NULL);
  memset(tfc_gpu_fake_host_view(t->data, t->n_bytes), 0x5a, t->n_bytes);
  tfc_tensor *u = alloc_f32(g, 1, 1, &s);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 1); /* served from the same region */
  tfc_tensor_unref(t);
  tfc_tensor_unref(u);
  as = tfc_allocator_get_stats(g->allocator);
  EXPECT_EQ(as.bytes_in_use, 0);
  EXPECT_EQ(as.peak_bytes_in_use, 4004);
  EXPECT_EQ(as.n_allocs, 2);
  EXPECT_EQ(tfc_gpu_device_arena_stats(g, &st), 0);
  EXPECT_EQ(st.bytes_in_use, 0);
  EXPECT_EQ(st.peak_bytes_in_use, 4096 + 256);
  /* The region stays with the arena until the device goes. */
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 2 * MiB);
  devset_free(&ds);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_status_fini(&s);
}

static void without_growth_the_first_tensor_takes_the_whole_limit(void) {
  install(&small, 1);
  devset ds;
  devset_make(&ds, &CFG(.fraction = 0.25));
  tfc_device *g = ds.d[1];
  EXPECT_EQ(g->memory_bytes, 16 * MiB);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = alloc_f32(g, 2, 2, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 1);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 16 * MiB);
  tfc_tensor_unref(t);
  devset_free(&ds);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_status_fini(&s);
}

/* TF_FORCE_GPU_ALLOW_GROWTH overrides GPUOptions.allow_growth both ways, as in TF; another
 * value keeps the config's. Reserved bytes after one small tensor tell which arena was made. */
static int64_t reserved_after_one_tensor(const gpu_cfg *cfg) {
  devset ds;
  devset_make(&ds, cfg);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = alloc_f32(ds.d[1], 2, 2, &s);
  EXPECT_TRUE(t != NULL);
  tfc_bfc_stats st;
  EXPECT_EQ(tfc_gpu_device_arena_stats(ds.d[1], &st), 0);
  tfc_tensor_unref(t);
  devset_free(&ds);
  tfc_status_fini(&s);
  return st.bytes_reserved;
}

static void force_allow_growth_env_overrides_the_config(void) {
  install(&small, 1);
  setenv("TF_FORCE_GPU_ALLOW_GROWTH", "true", 1);
  EXPECT_EQ(reserved_after_one_tensor(&CFG(.fraction = 0.25)), 2 * MiB);
  setenv("TF_FORCE_GPU_ALLOW_GROWTH", "false", 1);
  EXPECT_EQ(reserved_after_one_tensor(&CFG(.fraction = 0.25, .allow_growth = 1)), 16 * MiB);
  setenv("TF_FORCE_GPU_ALLOW_GROWTH", "yes", 1);
  EXPECT_EQ(reserved_after_one_tensor(&CFG(.fraction = 0.25, .allow_growth = 1)), 2 * MiB);
  EXPECT_EQ(reserved_after_one_tensor(&CFG(.fraction = 0.25)), 16 * MiB);
  unsetenv("TF_FORCE_GPU_ALLOW_GROWTH");
}

static void logical_gpus_on_one_gpu_have_separate_arenas(void) {
  install(&small, 1);
  devset ds;
  devset_make(&ds, &CFG(.n_virtual = 1, .n_limits = (int[]){2}, .limits = (float[]){4, 8}));
  EXPECT_EQ(ds.code, TFC_OK);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *a = alloc_f32(ds.d[1], 256, 1024, &s); /* 1 MiB */
  tfc_tensor *b = alloc_f32(ds.d[2], 512, 1024, &s); /* 2 MiB */
  EXPECT_TRUE(a && b);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 2);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 12 * MiB);
  tfc_bfc_stats s0, s1;
  EXPECT_EQ(tfc_gpu_device_arena_stats(ds.d[1], &s0), 0);
  EXPECT_EQ(tfc_gpu_device_arena_stats(ds.d[2], &s1), 0);
  EXPECT_EQ(s0.bytes_in_use, 1 * MiB);
  EXPECT_EQ(s0.bytes_limit, 4 * MiB);
  EXPECT_EQ(s1.bytes_in_use, 2 * MiB);
  EXPECT_EQ(s1.bytes_limit, 8 * MiB);
  /* GPU:0's 4 MiB are its own: 3.5 more MiB do not fit there although GPU:1 has room. */
  tfc_tensor *c = alloc_f32(ds.d[1], 896, 1024, &s);
  EXPECT_TRUE(c == NULL);
  EXPECT_EQ(s.code, TFC_RESOURCE_EXHAUSTED);
  EXPECT_CONTAINS(tfc_status_msg(&s), "by allocator GPU_0_bfc\n");
  tfc_tensor_unref(a);
  tfc_tensor_unref(b);
  devset_free(&ds);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_status_fini(&s);
}

static void out_of_memory_names_shape_device_and_arena(void) {
  install(&small, 1);
  devset ds;
  devset_make(&ds, &CFG(.fraction = 0.25));
  tfc_device *g = ds.d[1];
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = alloc_f32(g, 10000, 10000, &s);
  EXPECT_TRUE(t == NULL);
  EXPECT_EQ(s.code, TFC_RESOURCE_EXHAUSTED);
  /* TF's line, then the arena's own account (the request exceeds the limit: no region was even
   * asked for). */
  EXPECT_STREQ(tfc_status_msg(&s),
               "OOM when allocating tensor with shape[10000,10000] and type float on " LH "GPU:0 by allocator "
               "GPU_0_bfc\nOOM when allocating 400000000 bytes in GPU_0_bfc: 0 in use, 0 reserved of "
               "16777216 limit, largest free chunk 0");
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  tfc_status_fini(&s);
  /* The device still works after an OOM. */
  tfc_status_init(&s);
  t = alloc_f32(g, 1024, 1024, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 16 * MiB);
  /* With the region taken, the arena's account shows what is used and what is left. */
  EXPECT_TRUE(alloc_f32(g, 3200, 1024, &s) == NULL);
  EXPECT_STREQ(tfc_status_msg(&s),
               "OOM when allocating tensor with shape[3200,1024] and type float on " LH "GPU:0 by allocator "
               "GPU_0_bfc\nOOM when allocating 13107200 bytes in GPU_0_bfc: 4194304 in use, 16777216 reserved of "
               "16777216 limit, largest free chunk 12582912");
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
  devset_free(&ds);
}

static void platform_failure_is_resource_exhausted_with_its_reason(void) {
  install(&small, 1);
  devset ds;
  devset_make(&ds, &CFG(.allow_growth = 1));
  tfc_gpu_fake_fail_above(1 * MiB);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(alloc_f32(ds.d[1], 2, 3, &s) == NULL);
  EXPECT_EQ(s.code, TFC_RESOURCE_EXHAUSTED);
  EXPECT_CONTAINS(tfc_status_msg(&s), "OOM when allocating tensor with shape[2,3] and type float on " LH
                                      "GPU:0 by allocator GPU_0_bfc\nOOM when allocating 24 bytes in GPU_0_bfc");
  EXPECT_CONTAINS(tfc_status_msg(&s), "allocating a region of 2097152 bytes failed: RESOURCE_EXHAUSTED: fake GPU 0: "
                                      "allocating 2097152 bytes fails (the test limit is 1048576 bytes)");
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  tfc_status_fini(&s);
  tfc_gpu_fake_fail_above(-1);
  tfc_status_init(&s);
  tfc_tensor *t = alloc_f32(ds.d[1], 2, 3, &s);
  EXPECT_TRUE(t != NULL);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
  devset_free(&ds);
}

static void device_tensors_outlive_their_device(void) {
  install(&small, 1);
  devset ds;
  devset_make(&ds, &CFG(.allow_growth = 1));
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = alloc_f32(ds.d[1], 4, 4, &s);
  EXPECT_TRUE(t != NULL);
  devset_free(&ds);
  /* The buffer keeps the allocator, its arena and the region alive. */
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 2 * MiB);
  ((float *)tfc_gpu_fake_host_view(t->data, t->n_bytes))[15] = 1.5f;
  tfc_tensor_unref(t);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_status_fini(&s);
}

static void device_allocator_rejects_strings_and_bad_shapes(void) {
  install(&small, 1);
  devset ds;
  devset_make(&ds, &CFG(.allow_growth = 1));
  tfc_allocator *a = ds.d[1]->allocator;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(tfc_allocator_tensor(a, TFC_DT_STRING, (int64_t[]){2}, 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "string tensors cannot live in device memory (allocator GPU_0_bfc on " LH "GPU:0)");
  tfc_status_fini(&s);
  tfc_status_init(&s);
  EXPECT_TRUE(tfc_allocator_tensor(a, TFC_DT_FLOAT, (int64_t[]){2, -3}, 2, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "invalid tensor dims [2,?]");
  tfc_status_fini(&s);
  /* Nothing was asked of the GPU. */
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  /* A scalar and an empty tensor are fine. */
  tfc_status_init(&s);
  tfc_tensor *t = tfc_allocator_tensor(a, TFC_DT_INT64, NULL, 0, &s);
  tfc_tensor *e = tfc_allocator_tensor(a, TFC_DT_FLOAT, (int64_t[]){0, 5}, 2, &s);
  EXPECT_TRUE(t && e);
  EXPECT_EQ(e->n_bytes, 0);
  EXPECT_TRUE(t->data != e->data);
  tfc_tensor_unref(t);
  tfc_tensor_unref(e);
  tfc_status_fini(&s);
  devset_free(&ds);
}

static void fake_platform_checks_its_configuration(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_gpu_fake_spec bad = {"Bad", NULL, 8, 0, 1 * GiB, 2 * GiB};
  EXPECT_EQ(tfc_gpu_fake_configure(&bad, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s),
               "fake GPU 0: memory sizes must be >= 0 with free <= total (total 1073741824, free 2147483648)");
  tfc_status_fini(&s);
  tfc_status_init(&s);
  EXPECT_EQ(tfc_gpu_fake_configure(&h200, TFC_GPU_FAKE_MAX_DEVICES + 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "a fake GPU platform has 0 to 16 GPUs, not 17");
  tfc_status_fini(&s);
  /* Reconfiguring under live allocations is refused; default names are filled in. */
  tfc_gpu_fake_spec anon = {NULL, NULL, 8, 6, 8 * MiB, 0};
  install(&anon, 1);
  const tfc_gpu_platform *p = tfc_gpu_fake_platform();
  tfc_gpu_props props;
  tfc_status_init(&s);
  EXPECT_EQ(p->get_props(0, &props, &s), TFC_OK);
  EXPECT_STREQ(props.name, "Fake GPU");
  EXPECT_STREQ(props.pci_bus_id, "0000:00:00.0");
  EXPECT_EQ(p->get_props(1, &props, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "fake GPU 1 does not exist (1 fake GPUs)");
  tfc_status_fini(&s);
  void *mem = NULL;
  tfc_status_init(&s);
  EXPECT_EQ(p->mem_alloc(0, 4 * MiB, &mem, &s), TFC_OK);
  int64_t free_bytes, total;
  EXPECT_EQ(p->mem_info(0, &free_bytes, &total, &s), TFC_OK);
  EXPECT_EQ(free_bytes, 4 * MiB);
  EXPECT_EQ(total, 8 * MiB);
  void *more = NULL;
  EXPECT_EQ(p->mem_alloc(0, 5 * MiB, &more, &s), TFC_RESOURCE_EXHAUSTED);
  EXPECT_STREQ(tfc_status_msg(&s), "fake GPU 0: out of memory allocating 5242880 bytes (4194304 free)");
  EXPECT_TRUE(more == NULL);
  tfc_status_fini(&s);
  tfc_status_init(&s);
  EXPECT_EQ(tfc_gpu_fake_configure(&anon, 1, &s), TFC_FAILED_PRECONDITION);
  EXPECT_STREQ(tfc_status_msg(&s), "fake GPU 0 still has 4194304 bytes allocated; free them before reconfiguring");
  tfc_status_fini(&s);
  p->mem_free(0, mem);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
}

typedef struct thread_arg {
  tfc_device *d;
  int failures;
} thread_arg;

static void *alloc_loop(void *arg) {
  thread_arg *a = arg;
  tfc_status s;
  tfc_status_init(&s);
  for (int i = 0; i < 200; i++) {
    tfc_tensor *t = alloc_f32(a->d, 1 + i % 7, 64, &s);
    if (!t) {
      a->failures++;
      continue;
    }
    ((float *)tfc_gpu_fake_host_view(t->data, t->n_bytes))[0] = (float)i;
    tfc_tensor_unref(t);
  }
  tfc_status_fini(&s);
  return NULL;
}

static void threads_share_one_lazily_created_arena(void) {
  install(&small, 1);
  devset ds;
  devset_make(&ds, &CFG(.allow_growth = 1));
  enum { N = 8 };
  pthread_t th[N];
  thread_arg args[N];
  for (int i = 0; i < N; i++) {
    args[i] = (thread_arg){ds.d[1], 0};
    EXPECT_EQ(pthread_create(&th[i], NULL, alloc_loop, &args[i]), 0);
  }
  for (int i = 0; i < N; i++) {
    pthread_join(th[i], NULL);
    EXPECT_EQ(args[i].failures, 0);
  }
  /* The threads raced to the first allocation; one arena with one 2 MiB region resulted. */
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 1);
  tfc_allocator_stats as = tfc_allocator_get_stats(ds.d[1]->allocator);
  EXPECT_EQ(as.n_allocs, N * 200);
  EXPECT_EQ(as.bytes_in_use, 0);
  tfc_bfc_stats st;
  EXPECT_EQ(tfc_gpu_device_arena_stats(ds.d[1], &st), 0);
  EXPECT_EQ(st.bytes_in_use, 0);
  EXPECT_EQ(st.n_allocs, N * 200);
  devset_free(&ds);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
}

/* ---------------- sessions through the C API ---------------- */

static TF_Operation *constant(TF_Graph *g, const char *name, const char *device) {
  TF_Status *s = TF_NewStatus();
  static const float v[4] = {1, 2, 3, 4};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, (int64_t[]){2, 2}, 2, sizeof v);
  memcpy(TF_TensorData(t), v, sizeof v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  if (device) TF_SetDevice(d, device);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return op;
}

static TF_Operation *matmul(TF_Graph *g, const char *name, TF_Operation *a, TF_Operation *b, const char *device) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", name);
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  if (device) TF_SetDevice(d, device);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return op;
}

static TF_SessionOptions *options(const gpu_cfg *g) {
  size_t len;
  uint8_t *bytes = pack_config(g, &len);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Status *s = TF_NewStatus();
  TF_SetConfig(o, bytes, len, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  free(bytes);
  return o;
}

/* Runs x = MatMul(a, b) (x on `device` when given) in a session with config g, capturing
 * stdout into out. Returns the run's code; *msg gets its message (heap). */
static int run_matmul(const gpu_cfg *g, const char *device, char *out, size_t out_size, char **msg) {
  tfc_capture cap;
  tfc_capture_begin(&cap, 1);
  TF_Status *s = TF_NewStatus();
  TF_Graph *graph = TF_NewGraph();
  TF_Operation *a = constant(graph, "a", NULL);
  TF_Operation *b = constant(graph, "b", NULL);
  TF_Operation *x = matmul(graph, "x", a, b, device);
  TF_SessionOptions *o = options(g);
  TF_Session *sess = TF_NewSession(graph, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Output fetch = {x, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &r, 1, NULL, 0, NULL, s);
  int code = TF_GetCode(s);
  *msg = strdup(TF_Message(s));
  if (code == TF_OK) {
    const float *v = TF_TensorData(r);
    EXPECT_TRUE(v[0] == 7 && v[1] == 10 && v[2] == 15 && v[3] == 22);
  }
  TF_DeleteTensor(r);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(s);
  tfc_capture_end(&cap, out, out_size);
  return code;
}

static void session_lists_cpu_and_gpu_and_takes_no_gpu_memory(void) {
  install(&h200, 1);
  TF_Status *s = TF_NewStatus();
  TF_Graph *graph = TF_NewGraph();
  TF_SessionOptions *o = options(&CFG(.fraction = 0.5));
  TF_Session *sess = TF_NewSession(graph, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeviceList *l = TF_SessionListDevices(sess, s);
  EXPECT_EQ(TF_DeviceListCount(l), 2);
  EXPECT_STREQ(TF_DeviceListName(l, 0, s), LH "CPU:0");
  EXPECT_STREQ(TF_DeviceListType(l, 0, s), "CPU");
  EXPECT_STREQ(TF_DeviceListName(l, 1, s), LH "GPU:0");
  EXPECT_STREQ(TF_DeviceListType(l, 1, s), "GPU");
  EXPECT_EQ(TF_DeviceListMemoryBytes(l, 1, s), 8 * GiB);
  EXPECT_TRUE(TF_DeviceListIncarnation(l, 1, s) != 0);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  TF_DeleteDeviceList(l);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(s);
}

static void log_device_placement_prints_tfs_device_mapping(void) {
  install((tfc_gpu_fake_spec[]){h200, a100}, 2);
  char out[4096];
  char *msg;
  EXPECT_EQ(run_matmul(&CFG(.log_placement = 1, .visible = "1,0"), NULL, out, sizeof out, &msg), TF_OK);
  free(msg);
  EXPECT_STREQ(out, "Device mapping:\n" LH
                    "GPU:0 -> device: 1, name: NVIDIA A100-SXM4-40GB, pci bus id: 0000:3b:00.0, compute capability: "
                    "8.0\n" LH "GPU:1 -> device: 0, name: NVIDIA H200, pci bus id: 0000:1b:00.0, compute capability: "
                    "9.0\na: (Const): " LH "CPU:0\nb: (Const): " LH "CPU:0\nx: (MatMul): " LH "CPU:0\n");
  /* No GPU: the CPU-only text, byte for byte. */
  install(NULL, 0);
  EXPECT_EQ(run_matmul(&CFG(.log_placement = 1), NULL, out, sizeof out, &msg), TF_OK);
  free(msg);
  EXPECT_STREQ(out, "Device mapping: no known devices.\na: (Const): " LH "CPU:0\nb: (Const): " LH
                    "CPU:0\nx: (MatMul): " LH "CPU:0\n");
  /* GPUs hidden by device_count: none known either. */
  install(&h200, 1);
  EXPECT_EQ(run_matmul(&CFG(.log_placement = 1, .gpu_count = &(int){0}), NULL, out, sizeof out, &msg), TF_OK);
  free(msg);
  EXPECT_CONTAINS(out, "Device mapping: no known devices.\n");
}

static void cpu_kernels_run_on_cpu_with_a_gpu_present(void) {
  install(&h200, 1);
  char out[4096];
  char *msg;
  /* No GPU kernels yet: everything lands on CPU:0, and nothing touches GPU memory. */
  EXPECT_EQ(run_matmul(&CFG(.log_placement = 1), NULL, out, sizeof out, &msg), TF_OK);
  free(msg);
  EXPECT_CONTAINS(out, "x: (MatMul): " LH "CPU:0\n");
  /* Soft placement moves an explicit GPU request to the CPU. */
  EXPECT_EQ(run_matmul(&CFG(.log_placement = 1, .soft_placement = 1), "/device:GPU:0", out, sizeof out, &msg), TF_OK);
  free(msg);
  EXPECT_CONTAINS(out, "x: (MatMul): " LH "CPU:0\n");
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  /* Without it the request fails with TF's text. */
  EXPECT_EQ(run_matmul(&CFG(), "/device:GPU:0", out, sizeof out, &msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Cannot assign a device for operation x: Could not satisfy explicit device specification "
                       "'/device:GPU:0' because no supported kernel for GPU devices is available.");
  free(msg);
}

static void session_creation_reports_gpu_option_errors(void) {
  install(&h200, 1);
  TF_Status *s = TF_NewStatus();
  TF_Graph *graph = TF_NewGraph();
  TF_SessionOptions *o = options(&CFG(.visible = "0,0"));
  TF_Session *sess = TF_NewSession(graph, o, s);
  EXPECT_TRUE(sess == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "visible_device_list contained a duplicate entry: 0,0");
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(no_gpus_gives_only_the_cpu),
    TFC_TEST(one_gpu_gets_tf_name_desc_and_default_limit),
    TFC_TEST(small_free_memory_keeps_225_mib_for_the_system),
    TFC_TEST(fraction_limits_each_gpu_to_its_share_of_total),
    TFC_TEST(fraction_above_one_is_unimplemented),
    TFC_TEST(visible_device_list_picks_and_orders_gpus),
    TFC_TEST(visible_device_list_errors_are_tfs),
    TFC_TEST(device_count_limits_and_hides_gpus),
    TFC_TEST(virtual_devices_split_one_gpu_into_several),
    TFC_TEST(virtual_devices_number_consecutively_across_gpus),
    TFC_TEST(virtual_device_count_mismatch_errors_are_tfs),
    TFC_TEST(first_tensor_creates_a_growth_region),
    TFC_TEST(without_growth_the_first_tensor_takes_the_whole_limit),
    TFC_TEST(force_allow_growth_env_overrides_the_config),
    TFC_TEST(logical_gpus_on_one_gpu_have_separate_arenas),
    TFC_TEST(out_of_memory_names_shape_device_and_arena),
    TFC_TEST(platform_failure_is_resource_exhausted_with_its_reason),
    TFC_TEST(device_tensors_outlive_their_device),
    TFC_TEST(device_allocator_rejects_strings_and_bad_shapes),
    TFC_TEST(fake_platform_checks_its_configuration),
    TFC_TEST(threads_share_one_lazily_created_arena),
    TFC_TEST(session_lists_cpu_and_gpu_and_takes_no_gpu_memory),
    TFC_TEST(log_device_placement_prints_tfs_device_mapping),
    TFC_TEST(cpu_kernels_run_on_cpu_with_a_gpu_present),
    TFC_TEST(session_creation_reports_gpu_option_errors),
    {0},
};

TFC_TEST_MAIN(tests)

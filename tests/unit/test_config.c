/* Session config: ConfigProto decoding into tfc_session_config. */
#include "harness.h"
#include "session/config.h"

static void config_init_has_tf_defaults(void) {
  tfc_session_config c;
  tfc_session_config_init(&c);
  EXPECT_EQ(c.n_device_counts, 0);
  EXPECT_EQ(c.intra_op_parallelism_threads, 0);
  EXPECT_EQ(c.inter_op_parallelism_threads, 0);
  EXPECT_EQ(c.allow_soft_placement, 0);
  EXPECT_EQ(c.log_device_placement, 0);
  EXPECT_EQ(c.allow_growth, 0);
  EXPECT_TRUE(c.per_process_gpu_memory_fraction == 0.0);
  EXPECT_TRUE(c.visible_device_list == NULL);
  EXPECT_TRUE(c.raw == NULL);
  EXPECT_EQ(tfc_session_config_device_count(&c, "GPU"), -1);
  tfc_session_config_fini(&c);
  tfc_session_config_fini(NULL);
}

/* The 15 bytes hello_tf_c_api passes to TF_SetConfig (tf-facts 2.9), fraction = 0.5. */
static void config_parses_minimal_gpu_options_vector(void) {
  static const unsigned char v[15] = {0x32, 0x0b, 0x09, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f,
                                      0x20, 0x01, 0x38, 0x01};
  tfc_session_config c;
  tfc_session_config_init(&c);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, v, sizeof v, &s), TFC_OK);
  EXPECT_NEAR(c.per_process_gpu_memory_fraction, 0.5, 0);
  EXPECT_EQ(c.allow_growth, 1);
  EXPECT_EQ(c.allow_soft_placement, 1);
  EXPECT_EQ(c.log_device_placement, 0);
  EXPECT_EQ(c.raw_len, 15);
  EXPECT_TRUE(memcmp(c.raw, v, 15) == 0);
  tfc_session_config_fini(&c);
  tfc_status_fini(&s);
}

/* device_count {key: "CPU" value: 4} device_count {key: "GPU" value: 0}
 * intra 2, inter 3, log_device_placement, operation_timeout 1500,
 * gpu_options {visible_device_list: "0,1"}, graph_options {place_pruned_graph: true},
 * plus an unknown field 99 (varint) that must be skipped. */
static void config_parses_device_counts_threads_and_options(void) {
  static const unsigned char v[] = {
      0x0a, 0x07, 0x0a, 0x03, 'C', 'P', 'U', 0x10, 0x04,  /* device_count CPU:4 */
      0x0a, 0x07, 0x0a, 0x03, 'G', 'P', 'U', 0x10, 0x00,  /* device_count GPU:0 */
      0x10, 0x02,                                         /* intra = 2 */
      0x28, 0x03,                                         /* inter = 3 */
      0x40, 0x01,                                         /* log_device_placement */
      0x58, 0xdc, 0x0b,                                   /* operation_timeout_in_ms = 1500 */
      0x32, 0x05, 0x2a, 0x03, '0', ',', '1',              /* gpu_options.visible_device_list */
      0x52, 0x02, 0x30, 0x01,                             /* graph_options.place_pruned_graph */
      0x98, 0x06, 0x07,                                   /* unknown field 99 = 7 */
      0x0a, 0x07, 0x0a, 0x03, 'C', 'P', 'U', 0x10, 0x08,  /* CPU again: the last value wins */
  };
  tfc_session_config c;
  tfc_session_config_init(&c);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, v, sizeof v, &s), TFC_OK);
  EXPECT_EQ(c.n_device_counts, 2);
  EXPECT_EQ(tfc_session_config_device_count(&c, "CPU"), 8);
  EXPECT_EQ(tfc_session_config_device_count(&c, "GPU"), 0);
  EXPECT_EQ(tfc_session_config_device_count(&c, "TPU"), -1);
  EXPECT_EQ(c.intra_op_parallelism_threads, 2);
  EXPECT_EQ(c.inter_op_parallelism_threads, 3);
  EXPECT_EQ(c.log_device_placement, 1);
  EXPECT_EQ(c.operation_timeout_in_ms, 1500);
  EXPECT_STREQ(c.visible_device_list, "0,1");
  EXPECT_EQ(c.place_pruned_graph, 1);

  tfc_session_config d;
  EXPECT_EQ(tfc_session_config_copy(&c, &d, &s), TFC_OK);
  tfc_session_config_fini(&c);
  EXPECT_STREQ(d.visible_device_list, "0,1");
  EXPECT_EQ(d.raw_len, sizeof v);
  EXPECT_TRUE(memcmp(d.raw, v, sizeof v) == 0);
  EXPECT_EQ(tfc_session_config_device_count(&d, "CPU"), 8);
  tfc_session_config_fini(&d);
  tfc_status_fini(&s);
}

static void config_rejects_unparseable_bytes_and_keeps_old_value(void) {
  static const unsigned char good[] = {0x38, 0x01};
  static const unsigned char bad[][4] = {{0x32, 0x0b, 0x09, 0x00}, /* length past the end */
                                         {0x0f, 0x00, 0, 0},        /* wire type 7 */
                                         {0x10, 0xff, 0xff, 0xff}}; /* truncated varint */
  tfc_session_config c;
  tfc_session_config_init(&c);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, good, sizeof good, &s), TFC_OK);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tfc_status_clear(&s);
    size_t n = i == 1 ? 2 : 4;
    EXPECT_EQ(tfc_session_config_parse(&c, bad[i], n, &s), TFC_INVALID_ARGUMENT);
    EXPECT_STREQ(tfc_status_msg(&s), "Unparseable ConfigProto");
    EXPECT_EQ(c.allow_soft_placement, 1);
    EXPECT_EQ(c.raw_len, 2);
  }
  tfc_session_config_fini(&c);
  tfc_status_fini(&s);
}

static void config_empty_bytes_are_the_defaults(void) {
  tfc_session_config c;
  tfc_session_config_init(&c);
  c.allow_soft_placement = 1;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, NULL, 0, &s), TFC_OK);
  EXPECT_EQ(c.allow_soft_placement, 0);
  EXPECT_EQ(c.raw_len, 0);
  EXPECT_TRUE(c.raw != NULL);
  tfc_session_config_fini(&c);
  tfc_status_fini(&s);
}

static void config_rejects_too_many_device_types(void) {
  unsigned char v[200];
  size_t n = 0;
  for (int i = 0; i < TFC_CONFIG_MAX_DEVICE_TYPES + 1; i++) {
    unsigned char e[] = {0x0a, 0x07, 0x0a, 0x03, 'X', 'P', (unsigned char)('A' + i), 0x10, 0x01};
    memcpy(v + n, e, sizeof e);
    n += sizeof e;
  }
  tfc_session_config c;
  tfc_session_config_init(&c);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, v, n, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "more than 8 device types");
  EXPECT_EQ(c.n_device_counts, 0);
  tfc_session_config_fini(&c);
  tfc_status_fini(&s);
}

/* gpu_options { allow_growth: true experimental { virtual_devices { memory_limit_mb: [1024, 2048]
 * (packed) } virtual_devices { memory_limit_mb: 512.5 (unpacked) } virtual_devices {} } }. */
static void config_parses_virtual_devices(void) {
  static const unsigned char v[] = {
      0x32, 0x19,                   /* gpu_options, 25 bytes */
      0x20, 0x01,                   /* allow_growth */
      0x4a, 0x15,                   /* experimental, 21 bytes */
      0x0a, 0x0a, 0x0a, 0x08,       /* virtual_devices { memory_limit_mb packed, 8 bytes */
      0x00, 0x00, 0x80, 0x44,       /*   1024.0f */
      0x00, 0x00, 0x00, 0x45,       /*   2048.0f } */
      0x0a, 0x05, 0x0d,             /* virtual_devices { memory_limit_mb (fixed32) */
      0x00, 0x20, 0x00, 0x44,       /*   512.5f } */
      0x0a, 0x00,                   /* virtual_devices {} */
  };
  tfc_session_config c;
  tfc_session_config_init(&c);
  EXPECT_EQ(c.n_virtual_devices, 0);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, v, sizeof v, &s), TFC_OK);
  EXPECT_EQ(c.allow_growth, 1);
  EXPECT_EQ(c.n_virtual_devices, 3);
  EXPECT_EQ(c.virtual_device_n_limits[0], 2);
  EXPECT_EQ(c.virtual_device_n_limits[1], 1);
  EXPECT_EQ(c.virtual_device_n_limits[2], 0);
  EXPECT_EQ(c.n_virtual_device_limits, 3);
  EXPECT_TRUE(c.virtual_device_limits_mb[0] == 1024.0f);
  EXPECT_TRUE(c.virtual_device_limits_mb[1] == 2048.0f);
  EXPECT_TRUE(c.virtual_device_limits_mb[2] == 512.5f);

  tfc_session_config d;
  EXPECT_EQ(tfc_session_config_copy(&c, &d, &s), TFC_OK);
  EXPECT_TRUE(d.virtual_device_n_limits != c.virtual_device_n_limits);
  tfc_session_config_fini(&c);
  EXPECT_EQ(c.n_virtual_devices, 0);
  EXPECT_TRUE(c.virtual_device_limits_mb == NULL);
  EXPECT_EQ(d.n_virtual_devices, 3);
  EXPECT_EQ(d.virtual_device_n_limits[0], 2);
  EXPECT_EQ(d.virtual_device_n_limits[2], 0);
  EXPECT_TRUE(d.virtual_device_limits_mb[2] == 512.5f);

  /* Parsing a config without them replaces them. */
  static const unsigned char plain[] = {0x38, 0x01};
  EXPECT_EQ(tfc_session_config_parse(&d, plain, sizeof plain, &s), TFC_OK);
  EXPECT_EQ(d.n_virtual_devices, 0);
  EXPECT_TRUE(d.virtual_device_n_limits == NULL && d.virtual_device_limits_mb == NULL);
  EXPECT_EQ(d.allow_soft_placement, 1);
  tfc_session_config_fini(&d);
  tfc_status_fini(&s);
}

/* 4097 empty virtual_devices entries: more than tfc takes; the old config stays. */
static void config_rejects_too_many_virtual_devices(void) {
  enum { N = 4097 };
  static unsigned char v[8 + 2 * N];
  size_t exp_len = 2 * N, gpu_len;
  size_t k = 0;
  v[k++] = 0x32;
  gpu_len = 1 + 2 + exp_len; /* experimental tag, its 2-byte length, the entries */
  v[k++] = (unsigned char)(0x80 | (gpu_len & 0x7f));
  v[k++] = (unsigned char)(gpu_len >> 7);
  v[k++] = 0x4a;
  v[k++] = (unsigned char)(0x80 | (exp_len & 0x7f));
  v[k++] = (unsigned char)(exp_len >> 7);
  for (int i = 0; i < N; i++) {
    v[k++] = 0x0a;
    v[k++] = 0x00;
  }
  tfc_session_config c;
  tfc_session_config_init(&c);
  c.log_device_placement = 1;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, v, k, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "GPUOptions.experimental.virtual_devices has 4097 entries; at most 4096");
  EXPECT_EQ(c.log_device_placement, 1);
  EXPECT_EQ(c.n_virtual_devices, 0);
  tfc_session_config_fini(&c);
  tfc_status_fini(&s);
}

/* device_filters (field 4, strings) are kept, copied and freed with the config. */
static void config_keeps_device_filters(void) {
  static const unsigned char v[] = {
      0x22, 0x07, '/', 'j', 'o', 'b', ':', 'p', 's',                          /* "/job:ps" */
      0x22, 0x12, '/', 'j', 'o', 'b', ':', 'w', 'o', 'r', 'k', 'e', 'r', '/', /* "/job:worker/ */
      't', 'a', 's', 'k', ':', '1',                                           /*  task:1" */
  };
  tfc_session_config c, d;
  tfc_session_config_init(&c);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_session_config_parse(&c, v, sizeof v, &s), TFC_OK);
  EXPECT_EQ(c.n_device_filters, 2);
  EXPECT_STREQ(c.device_filters[0], "/job:ps");
  EXPECT_STREQ(c.device_filters[1], "/job:worker/task:1");
  EXPECT_EQ(tfc_session_config_copy(&c, &d, &s), TFC_OK);
  tfc_session_config_fini(&c);
  EXPECT_EQ(c.n_device_filters, 0);
  EXPECT_EQ(d.n_device_filters, 2);
  EXPECT_STREQ(d.device_filters[1], "/job:worker/task:1");
  tfc_session_config_fini(&d);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {TFC_TEST(config_init_has_tf_defaults),
                                 TFC_TEST(config_parses_minimal_gpu_options_vector),
                                 TFC_TEST(config_parses_device_counts_threads_and_options),
                                 TFC_TEST(config_rejects_unparseable_bytes_and_keeps_old_value),
                                 TFC_TEST(config_empty_bytes_are_the_defaults),
                                 TFC_TEST(config_rejects_too_many_device_types),
                                 TFC_TEST(config_parses_virtual_devices),
                                 TFC_TEST(config_rejects_too_many_virtual_devices),
                                 TFC_TEST(config_keeps_device_filters),
                                 {0}};
TFC_TEST_MAIN(tests)

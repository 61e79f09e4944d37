/* Tests of TFC_NewServerDef / TFC_NewLocalServerDef (include/tfc/server.h): the ServerDef is
 * decoded with protobuf-c and every field checked (jobs sorted by name, tasks numbered in
 * order, the ConfigProto carried verbatim, canonical field order); every error gives
 * INVALID_ARGUMENT with its exact message and no buffer. */
#include <stdint.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/config.pb-c.h"
#include "tensorflow/tensorflow_server.pb-c.h"
#include "tfc/server.h"

static Tensorflow__ServerDef *decode(const TF_Buffer *b) {
  EXPECT_TRUE(b != NULL);
  Tensorflow__ServerDef *sd = tensorflow__server_def__unpack(NULL, b->length, b->data);
  if (!sd) tfc_test_fail(__FILE__, __LINE__, "the buffer does not decode as a ServerDef");
  return sd;
}

/* Checks job j of the decoded cluster: its name and its task addresses, keys 0..n-1. */
static void expect_job(const Tensorflow__ServerDef *sd, int j, const char *name, int n, const char *const *addrs) {
  EXPECT_TRUE(sd->cluster != NULL);
  EXPECT_TRUE((size_t)j < sd->cluster->n_job);
  const Tensorflow__JobDef *jb = sd->cluster->job[j];
  EXPECT_STREQ(jb->name, name);
  EXPECT_EQ(jb->n_tasks, n);
  for (int t = 0; t < n; t++) {
    EXPECT_EQ(jb->tasks[t]->key, t);
    EXPECT_STREQ(jb->tasks[t]->value, addrs[t]);
  }
}

static void cluster_spec_gives_sorted_jobs_and_numbered_tasks(void) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *b = TFC_NewServerDef("worker=localhost:2223,localhost:2224;ps=localhost:2222", "worker", 1, 0,
                                  NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  Tensorflow__ServerDef *sd = decode(b);
  EXPECT_EQ(sd->cluster->n_job, 2);
  static const char *const ps[] = {"localhost:2222"};
  static const char *const worker[] = {"localhost:2223", "localhost:2224"};
  expect_job(sd, 0, "ps", 1, ps);
  expect_job(sd, 1, "worker", 2, worker);
  EXPECT_STREQ(sd->job_name, "worker");
  EXPECT_EQ(sd->task_index, 1);
  EXPECT_STREQ(sd->protocol, "grpc");
  EXPECT_EQ(sd->port, 0);
  EXPECT_TRUE(sd->default_session_config == NULL);
  tensorflow__server_def__free_unpacked(sd, NULL);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

static void port_and_config_are_carried_in_canonical_order(void) {
  /* ConfigProto { device_count {"CPU": 2}, log_device_placement, operation_timeout_in_ms 1500 } */
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry dc = TENSORFLOW__CONFIG_PROTO__DEVICE_COUNT_ENTRY__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry *dcs[] = {&dc};
  dc.key = "CPU";
  dc.value = 2;
  cp.n_device_count = 1;
  cp.device_count = dcs;
  cp.log_device_placement = 1;
  cp.operation_timeout_in_ms = 1500;
  uint8_t cfg[128];
  size_t cfg_len = tensorflow__config_proto__pack(&cp, cfg);

  TF_Status *s = TF_NewStatus();
  TF_Buffer *b = TFC_NewServerDef("ps=localhost:2222;worker=localhost:2223", "ps", 0, 5000, cfg, cfg_len, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  Tensorflow__ServerDef *sd = decode(b);
  EXPECT_STREQ(sd->job_name, "ps");
  EXPECT_EQ(sd->task_index, 0);
  EXPECT_EQ(sd->port, 5000);
  EXPECT_STREQ(sd->protocol, "grpc");
  const Tensorflow__ConfigProto *got = sd->default_session_config;
  EXPECT_TRUE(got != NULL);
  EXPECT_EQ(got->n_device_count, 1);
  EXPECT_STREQ(got->device_count[0]->key, "CPU");
  EXPECT_EQ(got->device_count[0]->value, 2);
  EXPECT_EQ(got->log_device_placement, 1);
  EXPECT_EQ(got->operation_timeout_in_ms, 1500);

  /* The same ServerDef packed by protobuf-c in one go is the same bytes: field order holds. */
  uint8_t again[512];
  size_t again_len = tensorflow__server_def__get_packed_size(sd);
  EXPECT_TRUE(again_len <= sizeof again);
  tensorflow__server_def__pack(sd, again);
  EXPECT_EQ(again_len, b->length);
  EXPECT_TRUE(memcmp(again, b->data, again_len) == 0);
  tensorflow__server_def__free_unpacked(sd, NULL);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

static void config_fields_unknown_here_survive(void) {
  /* log_device_placement = true, then field 1000 (varint 7), which config.proto lacks. */
  const uint8_t cfg[] = {0x40, 0x01, 0xc0, 0x3e, 0x07};
  TF_Status *s = TF_NewStatus();
  TF_Buffer *b = TFC_NewServerDef("w=localhost:1", "w", 0, 0, cfg, sizeof cfg, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  /* Field 4, length 5, the bytes as given. */
  const uint8_t want[] = {0x22, 0x05, 0x40, 0x01, 0xc0, 0x3e, 0x07};
  const uint8_t *d = b->data;
  int found = 0;
  for (size_t i = 0; i + sizeof want <= b->length; i++) found |= memcmp(d + i, want, sizeof want) == 0;
  EXPECT_TRUE(found);
  Tensorflow__ServerDef *sd = decode(b);
  EXPECT_EQ(sd->default_session_config->log_device_placement, 1);
  EXPECT_EQ(sd->default_session_config->base.n_unknown_fields, 1);
  tensorflow__server_def__free_unpacked(sd, NULL);
  TF_DeleteBuffer(b);

  /* An empty ConfigProto (non-NULL, 0 bytes) is present and empty. */
  b = TFC_NewServerDef("w=localhost:1", "w", 0, 0, cfg, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  sd = decode(b);
  EXPECT_TRUE(sd->default_session_config != NULL);
  EXPECT_EQ(sd->default_session_config->log_device_placement, 0);
  tensorflow__server_def__free_unpacked(sd, NULL);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

static void addresses_accept_names_ipv4_ipv6_and_port_zero(void) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *b = TFC_NewServerDef("job_2=[::1]:2222,host-1.example.com:0,127.0.0.1:65535,my_host:1", "job_2", 3, 0,
                                  NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  Tensorflow__ServerDef *sd = decode(b);
  static const char *const want[] = {"[::1]:2222", "host-1.example.com:0", "127.0.0.1:65535", "my_host:1"};
  expect_job(sd, 0, "job_2", 4, want);
  EXPECT_EQ(sd->task_index, 3);
  tensorflow__server_def__free_unpacked(sd, NULL);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

static void local_server_def_is_create_local_servers(void) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *b = TFC_NewLocalServerDef(s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  Tensorflow__ServerDef *sd = decode(b);
  static const char *const local[] = {"localhost:0"};
  EXPECT_EQ(sd->cluster->n_job, 1);
  expect_job(sd, 0, "local", 1, local);
  EXPECT_STREQ(sd->job_name, "local");
  EXPECT_EQ(sd->task_index, 0);
  EXPECT_STREQ(sd->protocol, "grpc");
  EXPECT_EQ(sd->port, 0);
  EXPECT_TRUE(sd->default_session_config == NULL);
  tensorflow__server_def__free_unpacked(sd, NULL);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

/* One bad call: NULL, INVALID_ARGUMENT, exactly `msg`. */
static void expect_error(const char *cluster, const char *job, int task, int port, const void *cfg, size_t cfg_len,
                         const char *msg) {
  TF_Status *s = TF_NewStatus();
  TF_SetStatus(s, TF_INTERNAL, "stale"); /* the call must overwrite an old status */
  TF_Buffer *b = TFC_NewServerDef(cluster, job, task, port, cfg, cfg_len, s);
  if (b) tfc_test_fail(__FILE__, __LINE__, "expected an error for cluster '%s': %s", cluster ? cluster : "(null)", msg);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), msg);
  TF_DeleteStatus(s);
}

static void cluster_spec_errors_name_the_bad_part(void) {
  expect_error(NULL, "w", 0, 0, NULL, 0, "TFC_NewServerDef: cluster is empty");
  expect_error("", "w", 0, 0, NULL, 0, "TFC_NewServerDef: cluster is empty");
  expect_error("ps=a:1;;w=b:2", "w", 0, 0, NULL, 0, "TFC_NewServerDef: empty job entry in cluster 'ps=a:1;;w=b:2'");
  expect_error("ps=a:1;", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: empty job entry in cluster 'ps=a:1;'");
  expect_error("ps=a:1;localhost:2", "ps", 0, 0, NULL, 0,
               "TFC_NewServerDef: cluster entry 'localhost:2' is not job=host:port[,host:port...]");
  expect_error("=a:1", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job entry '=a:1' has an empty job name");
  expect_error("1ps=a:1", "1ps", 0, 0, NULL, 0,
               "TFC_NewServerDef: job name '1ps' is not valid: it must be a letter followed by letters, digits or "
               "underscores");
  expect_error("p-s=a:1", "p-s", 0, 0, NULL, 0,
               "TFC_NewServerDef: job name 'p-s' is not valid: it must be a letter followed by letters, digits or "
               "underscores");
  expect_error("ps=", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' has no tasks");
  expect_error("ps=a:1,,b:2", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 1: empty address");
  expect_error("ps=a:1,", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 1: empty address");
  expect_error("ps=localhost", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: 'localhost' is not host:port");
  expect_error("ps=a:1,:2", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 1: ':2' is not host:port");
  expect_error("ps=a:", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: 'a:' is not host:port");
  expect_error("ps=a:12x", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: 'a:12x' is not host:port");
  expect_error("ps=a b:1", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: 'a b:1' is not host:port");
  expect_error("ps=a:-1", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: 'a:-1' is not host:port");
  expect_error("ps=::1:2", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: '::1:2' is not host:port");
  expect_error("ps=[::1]2", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: '[::1]2' is not host:port");
  expect_error("ps=[]:2", "ps", 0, 0, NULL, 0, "TFC_NewServerDef: job 'ps' task 0: '[]:2' is not host:port");
  expect_error("ps=a:65536", "ps", 0, 0, NULL, 0,
               "TFC_NewServerDef: job 'ps' task 0: port 65536 in 'a:65536' is out of range [0, 65535]");
  expect_error("ps=a:1;w=b:2,c:99999999999", "ps", 0, 0, NULL, 0,
               "TFC_NewServerDef: job 'w' task 1: port 99999999999 in 'c:99999999999' is out of range [0, 65535]");
  expect_error("ps=a:1;w=b:2;ps=c:3", "ps", 0, 0, NULL, 0,
               "TFC_NewServerDef: job 'ps' appears twice in cluster 'ps=a:1;w=b:2;ps=c:3'");
}

static void task_port_and_config_errors(void) {
  const char *c = "worker=a:1,b:2;ps=c:3";
  expect_error(c, NULL, 0, 0, NULL, 0, "TFC_NewServerDef: job_name is empty");
  expect_error(c, "", 0, 0, NULL, 0, "TFC_NewServerDef: job_name is empty");
  expect_error(c, "chief", 0, 0, NULL, 0, "TFC_NewServerDef: job 'chief' is not in the cluster (jobs: ps, worker)");
  expect_error(c, "worker", 2, 0, NULL, 0,
               "TFC_NewServerDef: task_index 2 is out of range for job 'worker' with 2 tasks");
  expect_error(c, "worker", -1, 0, NULL, 0,
               "TFC_NewServerDef: task_index -1 is out of range for job 'worker' with 2 tasks");
  expect_error(c, "ps", 1, 0, NULL, 0, "TFC_NewServerDef: task_index 1 is out of range for job 'ps' with 1 task");
  expect_error(c, "ps", 0, 65536, NULL, 0, "TFC_NewServerDef: port 65536 is out of range [0, 65535]");
  expect_error(c, "ps", 0, -5, NULL, 0, "TFC_NewServerDef: port -5 is out of range [0, 65535]");
  expect_error(c, "ps", 0, 0, NULL, 3, "TFC_NewServerDef: config_proto is NULL but config_len is 3");
  const uint8_t bad[] = {0x0a, 0x7f, 0x01}; /* field 1 claims 127 bytes, 1 follows */
  expect_error(c, "ps", 0, 0, bad, sizeof bad,
               "TFC_NewServerDef: config_proto (3 bytes) is not a valid serialized ConfigProto");
}

static void null_status_is_allowed(void) {
  TF_Buffer *b = TFC_NewServerDef("w=localhost:1", "w", 0, 0, NULL, 0, NULL);
  EXPECT_TRUE(b != NULL);
  TF_DeleteBuffer(b);
  EXPECT_TRUE(TFC_NewServerDef("w=", "w", 0, 0, NULL, 0, NULL) == NULL);
}

static const tfc_test tests[] = {
    TFC_TEST(cluster_spec_gives_sorted_jobs_and_numbered_tasks),
    TFC_TEST(port_and_config_are_carried_in_canonical_order),
    TFC_TEST(config_fields_unknown_here_survive),
    TFC_TEST(addresses_accept_names_ipv4_ipv6_and_port_zero),
    TFC_TEST(local_server_def_is_create_local_servers),
    TFC_TEST(cluster_spec_errors_name_the_bad_part),
    TFC_TEST(task_port_and_config_errors),
    TFC_TEST(null_status_is_allowed),
    {0},
};
TFC_TEST_MAIN(tests)

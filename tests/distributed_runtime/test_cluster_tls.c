/* End-to-end tests of TLS on the cluster's RPCs (TFC_SetGrpcTLS, TFC_TLS_* in the environment;
 * distributed_runtime/rpc_tls.c) with real `tfc server` processes on 127.0.0.1 and this
 * process as the client. The certificates are made by the test with the openssl command: a
 * CA and a certificate it signs for "localhost" (the one every task and the client present),
 * and a second CA with its own certificate (a client the cluster must refuse).
 *
 * Covered: a step across two TLS tasks (client -> master and master -> worker channels all
 * TLS); a plaintext client, and a client whose certificate another CA signed, refused with
 * UNAVAILABLE while the right one is served; settings that cannot be used, from the API and
 * from the environment of `tfc server`, named in the error. */
#include <stdlib.h>
#include <sys/stat.h>

#include "dist_util.h"
#include "tfc/server.h"
#include "tfc/tfc.h"

#define T1 "/job:local/replica:0/task:1"

static char cert_dir[256];

/* Runs a shell command in cert_dir, failing the test when it fails. */
static void sh(const char *cmd) {
  char full[2048];
  snprintf(full, sizeof full, "cd '%s' && { %s; } >/dev/null 2>&1", cert_dir, cmd);
  int rc = system(full);
  if (rc != 0) tfc_test_fail(__FILE__, __LINE__, "'%s' failed (status 0x%x)", cmd, rc);
}

/* A CA `ca` (ca.pem, ca.key) and a certificate `leaf` it signs for localhost and 127.0.0.1,
 * good for servers and clients (leaf.pem, leaf.key). */
static void make_ca_and_leaf(const char *ca, const char *leaf) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=%s "
           "-keyout %s.key -out %s.pem",
           ca, ca, ca);
  sh(cmd);
  snprintf(cmd, sizeof cmd,
           "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost -keyout %s.key "
           "-out %s.csr && printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nextendedKeyUsage=serverAuth,clientAuth\\n"
           "basicConstraints=CA:FALSE\\n' > %s.ext && openssl x509 -req -in %s.csr -CA %s.pem -CAkey %s.key "
           "-CAcreateserial -days 2 -extfile %s.ext -out %s.pem",
           leaf, leaf, leaf, leaf, ca, ca, leaf, leaf);
  sh(cmd);
}

static void make_certs(void) {
  if (system("openssl version >/dev/null 2>&1") != 0) tfc_test_skip("the openssl command is not installed");
  snprintf(cert_dir, sizeof cert_dir, "%s/tfc_tls_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(cert_dir)) tfc_test_fail(__FILE__, __LINE__, "mkdtemp failed");
  make_ca_and_leaf("ca", "node");
  make_ca_and_leaf("other_ca", "stranger");
}

static void remove_certs(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", cert_dir);
  if (system(cmd) != 0) tfc_test_fail(__FILE__, __LINE__, "cannot remove %s", cert_dir);
}

static const char *path_of(const char *name, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/%s", cert_dir, name);
  return buf;
}

/* The environment every spawned task inherits: TLS with the cluster's CA and certificate. */
static void cluster_env(void) {
  char p[512];
  setenv("TFC_TLS_CA", path_of("ca.pem", p, sizeof p), 1);
  setenv("TFC_TLS_CERT", path_of("node.pem", p, sizeof p), 1);
  setenv("TFC_TLS_KEY", path_of("node.key", p, sizeof p), 1);
}

/* This process's own setting: CA, certificate and key files named in cert_dir (NULL: off). */
static void client_tls(const char *ca, const char *cert, const char *key) {
  char a[512], b[512], c[512];
  TF_Status *s = TF_NewStatus();
  TFC_SetGrpcTLS(ca ? path_of(ca, a, sizeof a) : NULL, cert ? path_of(cert, b, sizeof b) : NULL,
                 key ? path_of(key, c, sizeof c) : NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "TFC_SetGrpcTLS: %s", TF_Message(s));
  TF_DeleteStatus(s);
}

/* A session on target that runs y; the first error (creating or running) lands in s. */
static TF_Tensor *session_run(TF_Graph *g, const char *target, TF_Operation *y, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_SetTarget(o, target);
  /* Bounds every wait of a refused client. */
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  cp.operation_timeout_in_ms = 5000;
  uint8_t buf[64];
  size_t len = tensorflow__config_proto__pack(&cp, buf);
  TF_SetConfig(o, buf, len, s);
  TF_Tensor *out = NULL;
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_DeleteSessionOptions(o);
  if (TF_GetCode(s) == TF_OK) out = dist_run(sess, NULL, NULL, y, NULL, s);
  if (sess) {
    TF_Status *ignored = TF_NewStatus();
    TF_CloseSession(sess, ignored);
    TF_DeleteSession(sess, ignored);
    TF_DeleteStatus(ignored);
  }
  return out;
}

static void expect_2_4_6(TF_Tensor *t, TF_Status *s, int line) {
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, line, "run: %s", TF_Message(s));
  dist_expect_2_4_6(t, line);
  TF_DeleteTensor(t);
}

static void tls_cluster_runs_a_step_across_tasks(void) {
  make_certs();
  cluster_env(); /* the tasks and, from the environment at its first channel, this client */
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = dist_cross_task_mul(g);
  TF_Status *s = TF_NewStatus();
  expect_2_4_6(session_run(g, t0->target, y, s), s, __LINE__);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
  remove_certs();
}

static void tls_cluster_refuses_clients_without_its_ca_certificate(void) {
  make_certs();
  cluster_env();
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = dist_cross_task_mul(g);
  TF_Status *s = TF_NewStatus();

  client_tls(NULL, NULL, NULL); /* plaintext */
  TF_Tensor *out = session_run(g, t0->target, y, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNAVAILABLE);
  EXPECT_TRUE(out == NULL);

  /* A client that trusts the cluster's CA but presents a certificate another CA signed. */
  client_tls("ca.pem", "stranger.pem", "stranger.key");
  out = session_run(g, t0->target, y, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNAVAILABLE);
  EXPECT_TRUE(out == NULL);

  /* A client with the other CA only: it does not trust the cluster's servers. */
  client_tls("other_ca.pem", "stranger.pem", "stranger.key");
  out = session_run(g, t0->target, y, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNAVAILABLE);
  EXPECT_TRUE(out == NULL);

  /* The cluster was not disturbed: the right certificate is served. */
  client_tls("ca.pem", "node.pem", "node.key");
  expect_2_4_6(session_run(g, t0->target, y, s), s, __LINE__);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
  remove_certs();
}

static void tls_settings_that_cannot_be_used_name_the_file(void) {
  make_certs();
  char ca[512], cert[512], key[512];
  path_of("ca.pem", ca, sizeof ca);
  path_of("node.pem", cert, sizeof cert);
  path_of("node.key", key, sizeof key);
  TF_Status *s = TF_NewStatus();
  TFC_SetGrpcTLS(ca, cert, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "key_file is not set");
  TFC_SetGrpcTLS("/nonexistent/ca.pem", cert, key, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "CA certificate (ca_file) '/nonexistent/ca.pem': No such file or directory");
  char csr[512];
  path_of("node.ext", csr, sizeof csr);
  TFC_SetGrpcTLS(ca, csr, key, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "is not a PEM file");
  TFC_SetGrpcTLS(ca, cert, key, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TFC_SetGrpcTLS(NULL, NULL, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);

  /* From the environment: `tfc server` fails to start, naming the variable and the file. */
  setenv("TFC_TLS_CA", "/nonexistent/ca.pem", 1);
  setenv("TFC_TLS_CERT", cert, 1);
  setenv("TFC_TLS_KEY", key, 1);
  const char *args[] = {"server", "--cluster", "local=localhost:0", "--job", "local", NULL};
  dist_task *t = dist_task_spawn("bad-tls", args);
  int st = dist_task_signal_wait(t, 0, DIST_START_GUARD_MS);
  char *e = dist_task_output(t, 1);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 1)
    tfc_test_fail(__FILE__, __LINE__, "status 0x%x, want exit 1; stderr:\n%s", st, e);
  EXPECT_CONTAINS(e, "TFC_TLS_CA");
  EXPECT_CONTAINS(e, "/nonexistent/ca.pem");
  free(e);
  dist_task_free(t);
  unsetenv("TFC_TLS_CA");
  const char *half[] = {"server", "--cluster", "local=localhost:0", "--job", "local", NULL};
  t = dist_task_spawn("half-tls", half);
  st = dist_task_signal_wait(t, 0, DIST_START_GUARD_MS);
  e = dist_task_output(t, 1);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1);
  EXPECT_CONTAINS(e, "TFC_TLS_CA is not set");
  free(e);
  dist_task_free(t);
  TF_DeleteStatus(s);
  remove_certs();
}

static const tfc_test tests[] = {
    TFC_TEST(tls_cluster_runs_a_step_across_tasks),
    TFC_TEST(tls_cluster_refuses_clients_without_its_ca_certificate),
    TFC_TEST(tls_settings_that_cannot_be_used_name_the_file),
    {0},
};
TFC_TEST_MAIN(tests)

/*
 * rpc_tls — TLS for the gRPC layer, off by default (as TensorFlow's servers, which only
 * speak plaintext). When it is on, every server the process starts afterwards accepts only
 * TLS connections from clients that present a certificate signed by the configured CA
 * (mutual authentication), and every channel it opens afterwards presents the process's own
 * certificate and accepts only servers whose certificate that CA signed for the host name it
 * dials. One setting per process: a cluster's tasks each get the CA, their certificate and its
 * key; all tasks may share one certificate whose names cover their hosts.
 *
 * The setting comes from tfc_rpc_tls_set (TFC_SetGrpcTLS in include/tfc/server.h) or, until
 * that is called, from the environment at the first server or channel: TFC_TLS_CA,
 * TFC_TLS_CERT and TFC_TLS_KEY name PEM files (all three, or none). The files are read once,
 * when the setting is made; servers and channels made afterwards get credentials built from
 * those bytes. A setting that cannot be used (a file missing or not PEM, one of the three
 * missing) fails every server start and channel open with a message naming the variable and
 * the file, rather than quietly falling back to plaintext.
 *
 * Thread-safe: the setting is guarded by one mutex.
 */
#include <errno.h>
#include <grpc/grpc_security.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distributed_runtime/rpc_int.h"
#include "io/file.h"

static pthread_mutex_t tls_mu = PTHREAD_MUTEX_INITIALIZER;
static int tls_decided;    /* set by tfc_rpc_tls_set or by reading the environment */
static char *tls_pem[3];   /* CA, certificate, key: all NULL when TLS is off */
static tfc_status tls_err; /* why the environment's setting cannot be used */

static const char *const kWhat[3] = {"CA certificate", "certificate", "private key"};
static const char *const kEnv[3] = {"TFC_TLS_CA", "TFC_TLS_CERT", "TFC_TLS_KEY"};

/* The PEM file `path` as a NUL-terminated malloc'd string in *out; `who` names the setting in
 * errors (NOT_FOUND or PERMISSION_DENIED from errno, INVALID_ARGUMENT when not PEM). */
static int read_pem(const char *who, const char *path, char **out, tfc_status *s) {
  size_t n = 0;
  int rc = tfc_file_read_all(path, out, &n);
  if (rc == -1)
    return tfc_status_set(s, errno == ENOENT ? TFC_NOT_FOUND : errno == EACCES ? TFC_PERMISSION_DENIED : TFC_UNKNOWN,
                          "%s '%s': %s", who, path, strerror(errno));
  if (rc == -2) return TFC_OOM(s);
  if (rc) return tfc_status_set(s, TFC_UNKNOWN, "%s '%s': read error", who, path);
  if (n > ((size_t)1 << 24))
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s '%s' is too large for a PEM file", who, path);
  else if (!strstr(*out, "-----BEGIN "))
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s '%s' is not a PEM file (no \"-----BEGIN\" line)", who, path);
  if (s->code) {
    free(*out);
    *out = NULL;
  }
  return s->code;
}

/* Replaces the setting with files[3] (all NULL: off). Caller holds tls_mu. `names` name the
 * three settings in errors. On failure the setting is left off. */
static int set_locked(const char *const files[3], const char *const names[3], tfc_status *s) {
  for (int i = 0; i < 3; i++) {
    free(tls_pem[i]);
    tls_pem[i] = NULL;
  }
  int given = (files[0] != NULL) + (files[1] != NULL) + (files[2] != NULL);
  if (given == 0) return TFC_OK;
  if (given != 3) {
    for (int i = 0; i < 3; i++)
      if (!files[i])
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "TLS needs a CA certificate, a certificate and its private key: %s is not set", names[i]);
  }
  char *pem[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    char who[96];
    snprintf(who, sizeof who, "%s (%s)", kWhat[i], names[i]);
    if (read_pem(who, files[i], &pem[i], s)) {
      for (int j = 0; j < i; j++) free(pem[j]);
      return s->code;
    }
  }
  memcpy(tls_pem, pem, sizeof pem);
  return TFC_OK;
}

int tfc_rpc_tls_set(const char *ca_file, const char *cert_file, const char *key_file, tfc_status *s) {
  static const char *const names[3] = {"ca_file", "cert_file", "key_file"};
  const char *files[3] = {ca_file, cert_file, key_file};
  pthread_mutex_lock(&tls_mu);
  tls_decided = 1;
  tfc_status_fini(&tls_err);
  tfc_status_init(&tls_err);
  int rc = set_locked(files, names, s);
  pthread_mutex_unlock(&tls_mu);
  return rc;
}

/* Decides the setting from the environment the first time. Caller holds tls_mu. */
static void decide_locked(void) {
  if (tls_decided) return;
  tls_decided = 1;
  tfc_status_init(&tls_err);
  const char *files[3];
  for (int i = 0; i < 3; i++) {
    files[i] = getenv(kEnv[i]);
    if (files[i] && !*files[i]) files[i] = NULL;
  }
  set_locked(files, kEnv, &tls_err);
}

int tfc_rpc_tls_server_credentials(grpc_server_credentials **out, tfc_status *s) {
  *out = NULL;
  pthread_mutex_lock(&tls_mu);
  decide_locked();
  int rc = TFC_OK;
  if (tls_err.code) {
    tfc_status_assign(s, tls_err.code, tls_err.msg);
    rc = tls_err.code;
  } else if (tls_pem[0]) {
    grpc_ssl_pem_key_cert_pair pair = {tls_pem[2], tls_pem[1]};
    *out = grpc_ssl_server_credentials_create_ex(tls_pem[0], &pair, 1,
                                                 GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY, NULL);
    if (!*out) rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "gRPC refused the TLS certificate or key");
  } else {
    *out = grpc_insecure_server_credentials_create();
  }
  pthread_mutex_unlock(&tls_mu);
  return rc;
}

int tfc_rpc_tls_channel_credentials(grpc_channel_credentials **out, int *is_tls, tfc_status *s) {
  *out = NULL;
  *is_tls = 0;
  pthread_mutex_lock(&tls_mu);
  decide_locked();
  int rc = TFC_OK;
  if (tls_err.code) {
    tfc_status_assign(s, tls_err.code, tls_err.msg);
    rc = tls_err.code;
  } else if (tls_pem[0]) {
    grpc_ssl_pem_key_cert_pair pair = {tls_pem[2], tls_pem[1]};
    *out = grpc_ssl_credentials_create(tls_pem[0], &pair, NULL, NULL);
    *is_tls = 1;
    if (!*out) rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "gRPC refused the TLS certificate or key");
  } else {
    *out = grpc_insecure_credentials_create();
  }
  pthread_mutex_unlock(&tls_mu);
  return rc;
}

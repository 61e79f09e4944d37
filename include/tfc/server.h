/*
 * server.h — ServerDefs from C without protobuf: what TF Python's tf.train.ClusterSpec and
 * tf.train.Server arguments build, as the serialized ServerDef that TF_NewServer takes.
 *
 * A cluster is written as one string, jobs separated by ';', each job's tasks by ',' in task
 * order:
 *
 *     "ps=localhost:2222;worker=localhost:2223,localhost:2224"
 *
 * gives job "ps" with task 0 at localhost:2222 and job "worker" with tasks 0 and 1 (the
 * ClusterDef of ClusterSpec({"ps": [...], "worker": [...]})). A job name is a letter followed
 * by letters, digits and underscores (TF's device-name syntax); an address is host:port with
 * a decimal port in [0, 65535] ("[::1]:2222" for IPv6 literals). Port 0 lets the task's
 * server pick a free port (create_local_server's "localhost:0").
 *
 * Errors are INVALID_ARGUMENT with a message naming the offending part of the spec: an empty
 * cluster, an entry that is not job=addresses, an empty or malformed job name, a job without
 * tasks, an address that is not host:port, a job given twice, a job_name that is not in the
 * cluster, a task_index outside the job, a port outside [0, 65535], config bytes that are not
 * a ConfigProto.
 *
 * Ownership: the returned TF_Buffer is the caller's (TF_DeleteBuffer). Thread-safety: the
 * functions keep no state and may be called from any thread.
 */
#ifndef TFC_SERVER_H_
#define TFC_SERVER_H_

#include <stddef.h>

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The serialized ServerDef (protocol "grpc") of task `task_index` of job `job_name` in
 * `cluster` (syntax above). port: ServerDef.port, the port this task's server binds (0: the
 * one in its cluster entry). config_proto/config_len: an optional serialized ConfigProto
 * (NULL/0: none) that becomes default_session_config; its bytes are copied verbatim. All
 * arguments are borrowed for the call. Returns a new buffer, or NULL with status set
 * (INVALID_ARGUMENT, as listed above). */
TF_CAPI_EXPORT extern TF_Buffer* TFC_NewServerDef(const char* cluster, const char* job_name, int task_index,
                                                  int port, const void* config_proto, size_t config_len,
                                                  TF_Status* status);

/* The ServerDef of TF Python's tf.train.Server.create_local_server(): cluster
 * "local=localhost:0", job "local", task 0, protocol "grpc" (the server picks a free port;
 * TF_ServerTarget reports it). A new buffer, or NULL with status set. */
TF_CAPI_EXPORT extern TF_Buffer* TFC_NewLocalServerDef(TF_Status* status);

/* TLS for the cluster's RPCs, tfc's addition (TensorFlow's servers speak plaintext only).
 * Every server started (TF_ServerStart) and every gRPC channel opened (to a grpc:// session
 * target, from a master to its workers, between workers) afterwards in this process uses TLS
 * with mutual authentication: `ca_file` is the CA certificate that signs every task's and
 * client's certificate, `cert_file` this process's certificate (its names must cover the host
 * its server is dialled by: "localhost" for localhost tasks), `key_file` its private key, all
 * PEM files, read during the call. A peer without a certificate from that CA is refused: its
 * calls fail UNAVAILABLE. All three NULL turns TLS off. Until this is called, the environment
 * decides at the first server or channel: TFC_TLS_CA, TFC_TLS_CERT and TFC_TLS_KEY (file
 * paths, all three or none), so unmodified programs and `tfc server` can use TLS. Errors:
 * INVALID_ARGUMENT when only some of the three are given or a file is not PEM, NOT_FOUND or
 * PERMISSION_DENIED for a file that cannot be read, each naming the file; TLS is then off.
 * Servers and channels made before keep their setting. Thread-safe. */
TF_CAPI_EXPORT extern void TFC_SetGrpcTLS(const char* ca_file, const char* cert_file, const char* key_file,
                                         TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TFC_SERVER_H_ */

/*
 * events — TensorBoard event files (see events.h for the format and the contract).
 *
 * The writer is a TFRecord writer (io/record.h) plus what TF's EventsWriter and Python's
 * FileWriter add on top: the file name, the logdir made on demand, the first "brain.Event:2"
 * record flushed at once, wall times, and the first-occurrence rule for summary metadata
 * (the set of tags already written lives with the writer). One mutex serializes records, so
 * events from several threads never interleave inside a record.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/hashmap.h"
#include "base/mem.h"
#include "io/events.h"
#include "io/record.h"
#include "proto/pb_util.h"

struct tfc_event_writer {
  pthread_mutex_t mu;
  char *path;
  tfc_record_writer *rec; /* NULL once closed; guarded by mu */
  tfc_hashmap seen_tags;  /* tags whose metadata was written; guarded by mu */
};

struct tfc_event_reader {
  tfc_record_reader *rec;
};

double tfc_events_wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the directory ---- */

/* TF's errno -> code mapping (core/platform/posix/error.cc) for directory errors. */
static int errno_code(int err) {
  switch (err) {
    case ENOENT: return TFC_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS: return TFC_PERMISSION_DENIED;
    case EEXIST: return TFC_ALREADY_EXISTS;
    case ENOTDIR:
    case EISDIR: return TFC_FAILED_PRECONDITION;
    case ENOSPC:
    case EDQUOT:
    case ENOMEM: return TFC_RESOURCE_EXHAUSTED;
    case ENAMETOOLONG:
    case ELOOP:
    case EINVAL: return TFC_INVALID_ARGUMENT;
    default: return TFC_UNKNOWN;
  }
}

/* One level: made, or already a directory. */
static int make_one_dir(const char *dir, tfc_status *s) {
  if (mkdir(dir, 0777) == 0) return TFC_OK;
  int err = errno;
  struct stat st;
  if (err == EEXIST) {
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return TFC_OK;
    return tfc_status_set(s, TFC_FAILED_PRECONDITION, "%s; Not a directory", dir);
  }
  /* A parent we may not write to can still hold the directory already. */
  if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return TFC_OK;
  return tfc_status_set(s, errno_code(err), "%s; %s", dir, strerror(err));
}

/* mkdir -p: each '/'-separated prefix in turn. */
static int make_dirs(const char *logdir, tfc_status *s) {
  char *p = tfc_strdup(logdir);
  if (!p) return TFC_OOM(s);
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/') p[--n] = 0;
  int rc = TFC_OK;
  for (size_t i = 1; i < n && rc == TFC_OK; i++) {
    if (p[i] != '/' || p[i - 1] == '/') continue;
    p[i] = 0;
    rc = make_one_dir(p, s);
    p[i] = '/';
  }
  if (rc == TFC_OK) rc = make_one_dir(p, s);
  free(p);
  return rc;
}

/* ---- the writer ---- */

/* Packs e and appends it as one record (caller holds mu). */
static int write_locked(tfc_event_writer *w, const Tensorflow__Event *e, tfc_status *s) {
  if (!w->rec) return tfc_status_set(s, TFC_FAILED_PRECONDITION, "event file %s is closed", w->path);
  void *bytes = NULL;
  size_t len = 0;
  TFC_TRY(tfc_pb_pack(&e->base, &bytes, &len, s));
  int rc = tfc_record_write(w->rec, bytes, len, s);
  free(bytes);
  return rc;
}

tfc_event_writer *tfc_event_writer_new(const char *logdir, const char *suffix, tfc_status *s) {
  if (!logdir || !*logdir) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "event writer: logdir is empty");
    return NULL;
  }
  if (make_dirs(logdir, s)) {
    tfc_status_prefix(s, "creating log directory %s: ", logdir);
    return NULL;
  }
  char host[256];
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "localhost");
  host[sizeof host - 1] = 0;
  time_t now = time(NULL);
  size_t n = strlen(logdir);
  const char *sep = logdir[n - 1] == '/' ? "" : "/";
  tfc_event_writer *w = calloc(1, sizeof *w);
  if (!w) {
    TFC_OOM(s);
    return NULL;
  }
  if (asprintf(&w->path, "%s%sevents.out.tfevents.%010lld.%s%s", logdir, sep, (long long)now, host,
               suffix ? suffix : "") < 0) {
    free(w);
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_init(&w->mu, NULL);
  tfc_hashmap_init(&w->seen_tags);
  w->rec = tfc_record_writer_open(w->path, TFC_COMPRESSION_NONE, 0, s);
  if (!w->rec) {
    tfc_event_writer_free(w);
    return NULL;
  }
  /* The first event: whole seconds (those of the name) and the version, flushed now. */
  Tensorflow__Event first = TENSORFLOW__EVENT__INIT;
  first.wall_time = (double)now;
  first.what_case = TENSORFLOW__EVENT__WHAT_FILE_VERSION;
  first.file_version = (char *)TFC_EVENTS_FILE_VERSION;
  if (write_locked(w, &first, s) || tfc_record_writer_flush(w->rec, s)) {
    tfc_status_prefix(s, "writing the first event of %s: ", w->path);
    tfc_event_writer_free(w);
    return NULL;
  }
  return w;
}

const char *tfc_event_writer_path(const tfc_event_writer *w) { return w->path; }

int tfc_event_writer_write(tfc_event_writer *w, Tensorflow__Event *e, tfc_status *s) {
  e->wall_time = tfc_events_wall_time();
  pthread_mutex_lock(&w->mu);
  int rc = write_locked(w, e, s);
  pthread_mutex_unlock(&w->mu);
  return rc;
}

int tfc_event_writer_add_summary(tfc_event_writer *w, const void *summary, size_t len, int64_t step,
                                 tfc_status *s) {
  Tensorflow__Summary *sum =
      (Tensorflow__Summary *)tfc_pb_unpack(&tensorflow__summary__descriptor, summary, len, "Summary", s);
  if (!sum) return s->code;
  /* Metadata is written with a tag's first value only; the stripped pointers are put back
   * before the message is freed. */
  Tensorflow__SummaryMetadata **saved = calloc(sum->n_value ? sum->n_value : 1, sizeof *saved);
  if (!saved) {
    protobuf_c_message_free_unpacked(&sum->base, NULL);
    return TFC_OOM(s);
  }
  Tensorflow__Event e = TENSORFLOW__EVENT__INIT;
  e.step = step;
  e.what_case = TENSORFLOW__EVENT__WHAT_SUMMARY;
  e.summary = sum;
  e.wall_time = tfc_events_wall_time();
  pthread_mutex_lock(&w->mu);
  int rc = TFC_OK;
  for (size_t i = 0; i < sum->n_value && rc == TFC_OK; i++) {
    Tensorflow__Summary__Value *v = sum->value[i];
    if (!v->metadata) continue;
    if (tfc_hashmap_get(&w->seen_tags, v->tag)) {
      saved[i] = v->metadata;
      v->metadata = NULL;
    } else if (tfc_hashmap_put(&w->seen_tags, v->tag, (void *)1)) {
      rc = TFC_OOM(s);
    }
  }
  if (rc == TFC_OK) rc = write_locked(w, &e, s);
  pthread_mutex_unlock(&w->mu);
  for (size_t i = 0; i < sum->n_value; i++)
    if (saved[i]) sum->value[i]->metadata = saved[i];
  free(saved);
  protobuf_c_message_free_unpacked(&sum->base, NULL);
  return rc;
}

int tfc_event_writer_add_event(tfc_event_writer *w, const void *event, size_t len, tfc_status *s) {
  Tensorflow__Event *e = (Tensorflow__Event *)tfc_pb_unpack(&tensorflow__event__descriptor, event, len, "Event", s);
  if (!e) return s->code;
  protobuf_c_message_free_unpacked(&e->base, NULL);
  pthread_mutex_lock(&w->mu);
  int rc = w->rec ? tfc_record_write(w->rec, event, len, s)
                  : tfc_status_set(s, TFC_FAILED_PRECONDITION, "event file %s is closed", w->path);
  pthread_mutex_unlock(&w->mu);
  return rc;
}

int tfc_event_writer_add_graph_def(tfc_event_writer *w, const void *graph_def, size_t len, tfc_status *s) {
  Tensorflow__Event e = TENSORFLOW__EVENT__INIT;
  e.what_case = TENSORFLOW__EVENT__WHAT_GRAPH_DEF;
  e.graph_def.data = (uint8_t *)graph_def;
  e.graph_def.len = len;
  return tfc_event_writer_write(w, &e, s);
}

int tfc_event_writer_add_session_log(tfc_event_writer *w, int status, const char *checkpoint_path,
                                     int64_t step, tfc_status *s) {
  if (status < TENSORFLOW__SESSION_LOG__SESSION_STATUS__START ||
      status > TENSORFLOW__SESSION_LOG__SESSION_STATUS__CHECKPOINT)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "session log status %d is not START (1), STOP (2) or CHECKPOINT (3)", status);
  Tensorflow__SessionLog log = TENSORFLOW__SESSION_LOG__INIT;
  log.status = (Tensorflow__SessionLog__SessionStatus)status;
  log.checkpoint_path = (char *)(checkpoint_path ? checkpoint_path : "");
  Tensorflow__Event e = TENSORFLOW__EVENT__INIT;
  e.step = step;
  e.what_case = TENSORFLOW__EVENT__WHAT_SESSION_LOG;
  e.session_log = &log;
  return tfc_event_writer_write(w, &e, s);
}

int tfc_event_writer_flush(tfc_event_writer *w, tfc_status *s) {
  pthread_mutex_lock(&w->mu);
  int rc = w->rec ? tfc_record_writer_flush(w->rec, s)
                  : tfc_status_set(s, TFC_FAILED_PRECONDITION, "event file %s is closed", w->path);
  pthread_mutex_unlock(&w->mu);
  return rc;
}

int tfc_event_writer_close(tfc_event_writer *w, tfc_status *s) {
  pthread_mutex_lock(&w->mu);
  tfc_record_writer *rec = w->rec;
  w->rec = NULL;
  int rc = rec ? tfc_record_writer_close(rec, s) : TFC_OK;
  pthread_mutex_unlock(&w->mu);
  return rc;
}

void tfc_event_writer_free(tfc_event_writer *w) {
  if (!w) return;
  tfc_status ignored;
  tfc_status_init(&ignored);
  tfc_event_writer_close(w, &ignored);
  tfc_status_fini(&ignored);
  tfc_hashmap_fini(&w->seen_tags);
  pthread_mutex_destroy(&w->mu);
  free(w->path);
  free(w);
}

/* ---- the reader ---- */

tfc_event_reader *tfc_event_reader_open(const char *path, tfc_status *s) {
  tfc_event_reader *r = calloc(1, sizeof *r);
  if (!r) {
    TFC_OOM(s);
    return NULL;
  }
  r->rec = tfc_record_reader_open(path, TFC_COMPRESSION_NONE, s);
  if (!r->rec) {
    free(r);
    return NULL;
  }
  return r;
}

int tfc_event_reader_next(tfc_event_reader *r, Tensorflow__Event **out, tfc_status *s) {
  *out = NULL;
  const char *data = NULL;
  size_t len = 0;
  uint64_t offset = 0;
  TFC_TRY(tfc_record_read(r->rec, &data, &len, &offset, s));
  tfc_status inner;
  tfc_status_init(&inner);
  *out = (Tensorflow__Event *)tfc_pb_unpack(&tensorflow__event__descriptor, data, len, "Event", &inner);
  if (!*out) {
    if (inner.code == TFC_RESOURCE_EXHAUSTED) tfc_status_move(s, &inner);
    else
      tfc_status_set(s, TFC_DATA_LOSS, "corrupted record at %llu in file %s: %s", (unsigned long long)offset,
                     tfc_record_reader_path(r->rec), tfc_status_msg(&inner));
  }
  tfc_status_fini(&inner);
  return s->code;
}

void tfc_event_reader_free(tfc_event_reader *r) {
  if (!r) return;
  tfc_record_reader_free(r->rec);
  free(r);
}

/*
 * reader — see reader.h. One mutex per reader guards the work (current file, its record
 * reader) and the counters; it is held for the whole of a read, the blocking dequeue of the
 * next file name included, which serializes reads as TF's ReaderBase does.
 *
 * Work accounting follows TF: work_started counts files opened, work_finished is set to it
 * when a file ends; a file is "in progress" while finished < started.
 */
#include "state/reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "io/record.h"

/* What the records of a file are. */
typedef enum reader_type { READER_TFRECORD = 0, READER_TEXT_LINE = 1, READER_WHOLE_FILE = 2 } reader_type;

struct tfc_reader {
  tfc_resource base; /* first: the reader is a resource */
  pthread_mutex_t mu;
  char *name;
  reader_type type;
  tfc_compression compression; /* TFRecord */
  int64_t skip_header_lines;   /* text line */
  /* guarded by mu */
  char *work;               /* current file name, NULL when none */
  tfc_record_reader *file;  /* TFRecord: open while the work is in progress */
  FILE *text;               /* text line: open while the work is in progress */
  int64_t line_number;      /* text line: lines read from the current file */
  char *line;               /* text line: the last line read (getline's buffer) */
  size_t line_cap, line_len;
  tfc_strbuf value;         /* whole file: the last file read */
  int64_t work_started, work_finished, produced;
};

static void reader_close_work(tfc_reader *r) {
  tfc_record_reader_free(r->file);
  r->file = NULL;
  if (r->text) fclose(r->text);
  r->text = NULL;
  free(r->work);
  r->work = NULL;
}

static void reader_free(tfc_resource *res) {
  tfc_reader *r = (tfc_reader *)res;
  reader_close_work(r);
  tfc_strbuf_fini(&r->value);
  free(r->line);
  free(r->name);
  pthread_mutex_destroy(&r->mu);
  free(r);
}

const tfc_resource_kind tfc_reader_kind = {"N10tensorflow15ReaderInterfaceE", reader_free, NULL};

static tfc_reader *reader_new(const char *name, reader_type type, tfc_status *s) {
  tfc_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->name = strdup(name))) {
    free(r);
    TFC_OOM(s);
    return NULL;
  }
  tfc_resource_init(&r->base, &tfc_reader_kind);
  pthread_mutex_init(&r->mu, NULL);
  tfc_strbuf_init(&r->value);
  r->type = type;
  return r;
}

tfc_reader *tfc_reader_new_tfrecord(const char *name, const char *compression, tfc_status *s) {
  tfc_compression c;
  if (tfc_compression_parse(compression, &c, s)) return NULL;
  tfc_reader *r = reader_new(name, READER_TFRECORD, s);
  if (r) r->compression = c;
  return r;
}

tfc_reader *tfc_reader_new_text_line(const char *name, int64_t skip_header_lines, tfc_status *s) {
  if (skip_header_lines < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "skip_header_lines must be >= 0 not %lld", (long long)skip_header_lines);
    return NULL;
  }
  tfc_reader *r = reader_new(name, READER_TEXT_LINE, s);
  if (r) r->skip_header_lines = skip_header_lines;
  return r;
}

tfc_reader *tfc_reader_new_whole_file(const char *name, tfc_status *s) {
  return reader_new(name, READER_WHOLE_FILE, s);
}

/* The next line of the text file into r->line (without "\n" and a "\r" before it; r->line_len
 * bytes). Returns 1 with a line, 0 at the end of the file, -1 with s set on a read error. */
static int next_line(tfc_reader *r, tfc_status *s) {
  errno = 0;
  ssize_t n = getline(&r->line, &r->line_cap, r->text);
  if (n < 0) {
    if (ferror(r->text)) {
      tfc_io_file_error(s, errno ? errno : EIO, r->work);
      return -1;
    }
    if (errno == ENOMEM) {
      TFC_OOM(s);
      return -1;
    }
    return 0;
  }
  if (n > 0 && r->line[n - 1] == '\n') n--;
  if (n > 0 && r->line[n - 1] == '\r') n--;
  r->line_len = (size_t)n;
  r->line_number++;
  return 1;
}

/* Opens the current work for a text-line reader and skips its header lines. */
static int open_text(tfc_reader *r, tfc_status *s) {
  r->text = fopen(r->work, "rb");
  if (!r->text) return tfc_io_file_error(s, errno, r->work);
  r->line_number = 0;
  for (int64_t i = 0; i < r->skip_header_lines; i++) {
    int got = next_line(r, s);
    if (got < 0) return s->code;
    if (!got) break;
  }
  return TFC_OK;
}

/* The whole file of the current work into r->value. */
static int read_whole(tfc_reader *r, tfc_status *s) {
  FILE *f = fopen(r->work, "rb");
  if (!f) return tfc_io_file_error(s, errno, r->work);
  r->value.len = 0;
  char buf[16384];
  size_t got;
  int rc = TFC_OK;
  while (rc == TFC_OK && (got = fread(buf, 1, sizeof buf, f)) > 0) {
    tfc_strbuf_append(&r->value, buf, got);
    if (!tfc_strbuf_ok(&r->value)) rc = TFC_OOM(s);
  }
  if (rc == TFC_OK && ferror(f)) rc = tfc_io_file_error(s, errno ? errno : EIO, r->work);
  fclose(f);
  return rc;
}

static int in_progress(const tfc_reader *r) { return r->work_finished < r->work_started; }

/* TF's GetNextWorkLocked + OnWorkStartedLocked: the next file name from q, opened. */
static int next_work(tfc_reader *r, tfc_queue *q, tfc_queue_cancel *cx, tfc_status *s) {
  if (tfc_queue_n_components(q) != 1)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected single component queue");
  if (tfc_queue_dtype(q, 0) != TFC_DT_STRING)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected queue with single string component");
  tfc_tensor *t = NULL;
  TFC_TRY(tfc_queue_dequeue(q, -1, 0, cx, &t, s));
  if (t->n_elems != 1) {
    tfc_tensor_unref(t);
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected to dequeue a one-element string tensor");
  }
  const tfc_tstring *name = tfc_tensor_strings(t);
  reader_close_work(r);
  r->work = malloc(name->len + 1);
  if (!r->work) {
    tfc_tensor_unref(t);
    return TFC_OOM(s);
  }
  if (name->len) memcpy(r->work, name->data, name->len);
  r->work[name->len] = 0;
  tfc_tensor_unref(t);
  if (r->type == READER_TFRECORD) {
    r->file = tfc_record_reader_open(r->work, r->compression, s);
    if (!r->file) return s->code;
  } else if (r->type == READER_TEXT_LINE) {
    if (open_text(r, s)) {
      reader_close_work(r);
      return s->code;
    }
  }
  r->work_started++;
  return TFC_OK;
}

static int string_scalar(const char *data, size_t len, tfc_tensor **out, tfc_status *s) {
  *out = tfc_tensor_new(TFC_DT_STRING, NULL, 0, s);
  if (!*out) return s->code;
  return tfc_tstring_assign(tfc_tensor_strings(*out), data, len, s);
}

/* The next record of the current work: *produced set when one was read, *at_end when the file
 * is done. */
static int read_locked(tfc_reader *r, tfc_strbuf *key, const char **value, size_t *len, int *produced, int *at_end,
                       tfc_status *s) {
  if (r->type != READER_TFRECORD) {
    if (r->type == READER_WHOLE_FILE) {
      TFC_TRY(read_whole(r, s));
      *at_end = 1;
    } else {
      int got = next_line(r, s);
      if (got < 0) return s->code;
      if (!got) {
        *at_end = 1;
        return TFC_OK;
      }
    }
    if (r->type == READER_WHOLE_FILE) {
      *value = r->value.data ? r->value.data : "";
      *len = r->value.len;
    } else {
      *value = r->line;
      *len = r->line_len;
    }
    key->len = 0;
    if (key->data) key->data[0] = 0;
    if (r->type == READER_WHOLE_FILE)
      tfc_strbuf_append(key, r->work, strlen(r->work));
    else
      tfc_strbuf_printf(key, "%s:%lld", r->work, (long long)r->line_number);
    *produced = 1;
    return TFC_OK;
  }
  uint64_t offset = 0;
  tfc_status rs;
  tfc_status_init(&rs);
  int code = tfc_record_read(r->file, value, len, &offset, &rs);
  if (code == TFC_OUT_OF_RANGE) {
    *at_end = 1;
    tfc_status_fini(&rs);
    return TFC_OK;
  }
  if (code) return tfc_status_move(s, &rs);
  tfc_status_fini(&rs);
  key->len = 0;
  if (key->data) key->data[0] = 0;
  tfc_strbuf_printf(key, "%s:%llu", r->work, (unsigned long long)offset);
  *produced = 1;
  return TFC_OK;
}

/* Reads up to n records (n < 0: exactly one, as Read) into the callback's hands. */
typedef int (*emit_fn)(void *arg, tfc_strbuf *key, const char *value, size_t len, tfc_status *s);

static int read_records(tfc_reader *r, tfc_queue *q, int64_t n, tfc_queue_cancel *cx, emit_fn emit, void *arg,
                        tfc_status *s) {
  int64_t want = n < 0 ? 1 : n, got = 0;
  tfc_strbuf key;
  tfc_strbuf_init(&key);
  pthread_mutex_lock(&r->mu);
  while (got < want) {
    if (!in_progress(r) && next_work(r, q, cx, s)) break;
    const char *value = NULL;
    size_t len = 0;
    int produced = 0, at_end = 0;
    if (read_locked(r, &key, &value, &len, &produced, &at_end, s)) break;
    if (produced) {
      r->produced++;
      got++;
      if (emit(arg, &key, value, len, s)) break;
    }
    if (at_end) {
      reader_close_work(r);
      r->work_finished = r->work_started;
      if (n >= 0 && got > 0) break; /* ReadUpTo stops at the end of a file */
    }
  }
  pthread_mutex_unlock(&r->mu);
  tfc_strbuf_fini(&key);
  return s->code;
}

typedef struct one_rec {
  tfc_tensor *key, *value;
} one_rec;

static int emit_one(void *arg, tfc_strbuf *key, const char *value, size_t len, tfc_status *s) {
  one_rec *o = arg;
  TFC_TRY(string_scalar(tfc_strbuf_str(key), key->len, &o->key, s));
  return string_scalar(value, len, &o->value, s);
}

int tfc_reader_read(tfc_reader *r, tfc_queue *q, tfc_queue_cancel *cx, tfc_tensor **key, tfc_tensor **value,
                    tfc_status *s) {
  one_rec o = {NULL, NULL};
  if (read_records(r, q, -1, cx, emit_one, &o, s)) {
    tfc_tensor_unref(o.key);
    tfc_tensor_unref(o.value);
    o.key = o.value = NULL;
  }
  *key = o.key;
  *value = o.value;
  return s->code;
}

/* ReadUpTo collects into growing arrays of strings, then makes the two vectors. */
typedef struct many_rec {
  int64_t n, cap;
  tfc_tstring *keys, *values;
} many_rec;

static int dup_str(tfc_tstring *dst, const char *data, size_t len, tfc_status *s) {
  dst->data = malloc(len + 1);
  if (!dst->data) return TFC_OOM(s);
  if (len) memcpy(dst->data, data, len);
  dst->data[len] = 0;
  dst->len = len;
  return TFC_OK;
}

static int emit_many(void *arg, tfc_strbuf *key, const char *value, size_t len, tfc_status *s) {
  many_rec *m = arg;
  if (m->n == m->cap) {
    int64_t cap = m->cap ? m->cap * 2 : 16;
    tfc_tstring *k = realloc(m->keys, sizeof *k * (size_t)cap);
    if (!k) return TFC_OOM(s);
    m->keys = k;
    tfc_tstring *v = realloc(m->values, sizeof *v * (size_t)cap);
    if (!v) return TFC_OOM(s);
    m->values = v;
    m->cap = cap;
  }
  if (dup_str(&m->keys[m->n], tfc_strbuf_str(key), key->len, s)) return s->code;
  if (dup_str(&m->values[m->n], value, len, s)) {
    free(m->keys[m->n].data);
    return s->code;
  }
  m->n++;
  return TFC_OK;
}

static tfc_tensor *string_vector(const tfc_tstring *items, int64_t n, tfc_status *s) {
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, &n, 1, s);
  for (int64_t i = 0; t && i < n; i++)
    if (tfc_tstring_assign(&tfc_tensor_strings(t)[i], items[i].data, items[i].len, s)) {
      tfc_tensor_unref(t);
      t = NULL;
    }
  return t;
}

int tfc_reader_read_up_to(tfc_reader *r, tfc_queue *q, int64_t n, tfc_queue_cancel *cx, tfc_tensor **keys,
                          tfc_tensor **values, tfc_status *s) {
  *keys = *values = NULL;
  if (n < 0) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "num_records must be >= 0, got %lld", (long long)n);
  many_rec m = {0, 0, NULL, NULL};
  if (read_records(r, q, n, cx, emit_many, &m, s) == TFC_OK) {
    *keys = string_vector(m.keys, m.n, s);
    *values = *keys ? string_vector(m.values, m.n, s) : NULL;
    if (!*values) {
      tfc_tensor_unref(*keys);
      *keys = NULL;
    }
  }
  for (int64_t i = 0; i < m.n; i++) {
    free(m.keys[i].data);
    free(m.values[i].data);
  }
  free(m.keys);
  free(m.values);
  return s->code;
}

int64_t tfc_reader_num_records_produced(tfc_reader *r) {
  pthread_mutex_lock(&r->mu);
  int64_t n = r->produced;
  pthread_mutex_unlock(&r->mu);
  return n;
}

int64_t tfc_reader_num_work_units_completed(tfc_reader *r) {
  pthread_mutex_lock(&r->mu);
  int64_t n = r->work_finished;
  pthread_mutex_unlock(&r->mu);
  return n;
}

void tfc_reader_reset(tfc_reader *r) {
  pthread_mutex_lock(&r->mu);
  reader_close_work(r);
  r->work_started = r->work_finished = r->produced = 0;
  pthread_mutex_unlock(&r->mu);
}

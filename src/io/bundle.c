/*
 * bundle — TF's tensor bundles: writer, reader and merge. Format and contracts: bundle.h.
 *
 * The writer streams tensor bytes into the temporary data file as they are added (one buffered
 * FILE) and keeps only the entries in memory; the index is built at finish, sorted, through
 * io/table.c. The reader keeps the index table open and one descriptor per data shard, opened
 * on first use, and reads each tensor with pread at its offset.
 */
#include "io/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/hashmap.h"
#include "io/crc32c.h"
#include "io/table.h"
#include "proto/pb_util.h"
#include "tensorflow/tensor_bundle.pb-c.h"

/* TF's kTensorBundleVersion (written as producer) and the consumer floor it accepts. */
#define BUNDLE_VERSION 1
/* A sanity bound on a header's shard count before arrays are sized by it. */
#define MAX_SHARDS (1 << 20)

char *tfc_bundle_index_path(const char *prefix) {
  char *p = NULL;
  return asprintf(&p, "%s.index", prefix) < 0 ? NULL : p;
}

char *tfc_bundle_data_path(const char *prefix, int shard, int num_shards) {
  char *p = NULL;
  return asprintf(&p, "%s.data-%05d-of-%05d", prefix, shard, num_shards) < 0 ? NULL : p;
}

int tfc_bundle_exists(const char *prefix) {
  char *path = tfc_bundle_index_path(prefix);
  struct stat st;
  int ok = path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
  free(path);
  return ok;
}

int tfc_bundle_delete(const char *prefix) {
  int removed = 0;
  char *index = tfc_bundle_index_path(prefix), *pattern = NULL;
  if (index && unlink(index) == 0) removed++;
  free(index);
  /* The data files, whatever their shard count. Glob metacharacters in the prefix itself
   * are escaped so only the shard part matches loosely. */
  size_t n = strlen(prefix);
  pattern = malloc(2 * n + 32);
  if (pattern) {
    char *q = pattern;
    for (size_t i = 0; i < n; i++) {
      if (strchr("*?[]\\", prefix[i])) *q++ = '\\';
      *q++ = prefix[i];
    }
    strcpy(q, ".data-\?\?\?\?\?-of-\?\?\?\?\?");
    glob_t g;
    if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++)
        if (unlink(g.gl_pathv[i]) == 0) removed++;
      globfree(&g);
    }
    free(pattern);
  }
  return removed;
}

/* Creates dir and its parents; an existing directory is fine. */
static int make_dirs(const char *dir, tfc_status *s) {
  if (!*dir) return TFC_OK;
  char *p = strdup(dir);
  if (!p) return TFC_OOM(s);
  for (char *q = p + 1;; q++) {
    int end = *q == '\0';
    if (*q == '/' || end) {
      *q = '\0';
      struct stat st;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        int rc = tfc_table_io_error(s, errno, p);
        free(p);
        return rc;
      }
      if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
        int rc = tfc_table_io_error(s, ENOTDIR, p);
        free(p);
        return rc;
      }
      if (end) break;
      *q = '/';
    }
  }
  free(p);
  return TFC_OK;
}

/* The directory part of path ("" for none, "/" for the root). Caller frees. */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup("");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

/* "<path>.tempstate<random>", TF's temporary-file naming. Caller frees. */
static char *temp_name(const char *path) {
  static atomic_uint_fast64_t counter;
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
  }
  r ^= atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull;
  char *p = NULL;
  return asprintf(&p, "%s.tempstate%llu", path, (unsigned long long)r) < 0 ? NULL : p;
}

/* Creates "<path>.tempstate<random>" (exclusively) and takes an exclusive flock(2) on it,
 * which marks it live for tfc_bundle_remove_stale_temps until the file is closed. A remover
 * may have unlinked the file between its creation and the lock: then the path no longer names
 * the locked file and a fresh name is tried. The caller frees *tmp_out. NULL with the file's
 * error. */
static FILE *open_locked_temp(const char *path, char **tmp_out, tfc_status *s) {
  *tmp_out = NULL;
  for (int attempt = 0; attempt < 8; attempt++) {
    char *tmp = temp_name(path);
    if (!tmp) {
      TFC_OOM(s);
      return NULL;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      tfc_table_io_error(s, errno, tmp);
      free(tmp);
      return NULL;
    }
    struct stat have, named;
    int locked = flock(fd, LOCK_EX) == 0;
    if (locked && fstat(fd, &have) == 0 && stat(tmp, &named) == 0 && have.st_ino == named.st_ino &&
        have.st_dev == named.st_dev) {
      FILE *f = fdopen(fd, "wb");
      if (f) {
        *tmp_out = tmp;
        return f;
      }
      tfc_table_io_error(s, errno, tmp);
      close(fd);
      unlink(tmp);
      free(tmp);
      return NULL;
    }
    int err = locked ? 0 : errno;
    close(fd);
    if (!locked) {
      unlink(tmp);
      tfc_table_io_error(s, err, tmp);
      free(tmp);
      return NULL;
    }
    free(tmp); /* removed under us: try another name */
  }
  tfc_status_set(s, TFC_UNAVAILABLE, "could not keep a temporary file for %s: removed repeatedly", path);
  return NULL;
}

/* The length of a "<digits>" run at p (0 for none). */
static size_t digits_at(const char *p) {
  size_t n = 0;
  while (p[n] >= '0' && p[n] <= '9') n++;
  return n;
}

/* Whether name (a directory entry) is a temporary of a bundle at "<base>" or "<base>-<step>":
 * "[-<digits>].index.tempstate<digits>" or "[-<digits>].data-<5 digits>-of-<5
 * digits>.tempstate<digits>" after base. */
static int is_temp_of(const char *name, const char *base) {
  size_t bl = strlen(base);
  if (strncmp(name, base, bl) != 0) return 0;
  const char *p = name + bl;
  if (*p == '-') {
    size_t d = digits_at(p + 1);
    if (!d) return 0;
    p += 1 + d;
  }
  if (strncmp(p, ".index", 6) == 0) {
    p += 6;
  } else if (strncmp(p, ".data-", 6) == 0 && digits_at(p + 6) == 5 && strncmp(p + 11, "-of-", 4) == 0 &&
             digits_at(p + 15) == 5) {
    p += 20;
  } else {
    return 0;
  }
  if (strncmp(p, ".tempstate", 10) != 0) return 0;
  p += 10;
  size_t d = digits_at(p);
  return d > 0 && p[d] == '\0';
}

int tfc_bundle_remove_stale_temps(const char *save_path) {
  const char *slash = strrchr(save_path, '/');
  char *dir = dir_of(save_path);
  const char *base = slash ? slash + 1 : save_path;
  DIR *d = dir && *base ? opendir(*dir ? dir : ".") : NULL;
  int removed = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!is_temp_of(e->d_name, base)) continue;
    char *path = NULL;
    if (asprintf(&path, "%s%s%s", dir, *dir && strcmp(dir, "/") ? "/" : "", e->d_name) < 0) break;
    /* A live writer holds its lock until the file is renamed into place or removed. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
      struct stat have, named;
      if (fstat(fd, &have) == 0 && lstat(path, &named) == 0 && have.st_ino == named.st_ino &&
          have.st_dev == named.st_dev && S_ISREG(have.st_mode) && unlink(path) == 0)
        removed++;
    }
    if (fd >= 0) close(fd);
    free(path);
  }
  if (d) closedir(d);
  free(dir);
  return removed;
}

static void put_varint(uint8_t *buf, size_t *n, uint64_t v) {
  while (v >= 0x80) {
    buf[(*n)++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  buf[(*n)++] = (uint8_t)v;
}

/* Bytes per element of a dtype bundles store raw; 0 for string and types with no encoding. */
static size_t raw_size(int dtype) {
  if (dtype == TFC_DT_STRING || dtype == TFC_DT_RESOURCE || dtype == TFC_DT_VARIANT) return 0;
  return tfc_dtype_size(dtype);
}

/* ---------------------------------------------------------------- writer */

typedef struct wentry {
  char *key;
  int dtype;
  int ndims;
  int64_t dims[TFC_MAX_DIMS];
  uint64_t offset, size;
  uint32_t crc; /* masked */
} wentry;

struct tfc_bundle_writer {
  char *prefix, *index_path, *data_path, *tmp_data;
  FILE *data;
  uint64_t size;
  wentry *entries;
  int n, cap;
  tfc_hashmap keys;
  int failed, finished;
};

static void writer_discard_temps(tfc_bundle_writer *w) {
  if (w->data && w->tmp_data) unlink(w->tmp_data); /* while still locked */
  if (w->data) fclose(w->data);
  w->data = NULL;
}

tfc_bundle_writer *tfc_bundle_writer_new(const char *prefix, tfc_status *s) {
  tfc_bundle_writer *w = calloc(1, sizeof *w);
  if (!w) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_hashmap_init(&w->keys);
  w->prefix = strdup(prefix);
  w->index_path = tfc_bundle_index_path(prefix);
  w->data_path = tfc_bundle_data_path(prefix, 0, 1);
  char *dir = dir_of(prefix);
  if (!w->prefix || !w->index_path || !w->data_path || !dir) {
    TFC_OOM(s);
  } else if (make_dirs(dir, s) == TFC_OK) {
    w->data = open_locked_temp(w->data_path, &w->tmp_data, s);
  }
  free(dir);
  if (!tfc_status_ok(s)) {
    tfc_bundle_writer_free(w);
    return NULL;
  }
  return w;
}

void tfc_bundle_writer_free(tfc_bundle_writer *w) {
  if (!w) return;
  if (!w->finished) writer_discard_temps(w);
  for (int i = 0; i < w->n; i++) free(w->entries[i].key);
  free(w->entries);
  tfc_hashmap_fini(&w->keys);
  free(w->prefix);
  free(w->index_path);
  free(w->data_path);
  free(w->tmp_data);
  free(w);
}

static int writer_put(tfc_bundle_writer *w, const void *p, size_t n, uint32_t *crc, tfc_status *s) {
  if (n && fwrite(p, 1, n, w->data) != n) {
    char ctx[64 + 1024];
    snprintf(ctx, sizeof ctx, "Failed to write to %s", w->tmp_data);
    w->failed = 1;
    return tfc_table_io_error(s, errno ? errno : EIO, ctx);
  }
  *crc = tfc_crc32c_extend(*crc, p, n);
  return TFC_OK;
}

/* TF's WriteStringTensor: varint64 lengths, their masked checksum, the bytes. The checksums
 * (of the lengths, and the entry's) cover each length as a little-endian uint32, not its
 * varint, as TF computes them. */
static void crc_lengths(const tfc_tstring *str, int64_t n, uint32_t *crc) {
  for (int64_t i = 0; i < n; i++) {
    uint32_t l = (uint32_t)str[i].len;
    uint8_t b[4] = {(uint8_t)l, (uint8_t)(l >> 8), (uint8_t)(l >> 16), (uint8_t)(l >> 24)};
    *crc = tfc_crc32c_extend(*crc, b, 4);
  }
}

static int writer_put_strings(tfc_bundle_writer *w, const tfc_tensor *t, uint64_t *size, uint32_t *crc,
                              tfc_status *s) {
  const tfc_tstring *str = tfc_tensor_strings(t);
  uint32_t ignored = 0;
  for (int64_t i = 0; i < t->n_elems; i++) {
    uint8_t v[10];
    size_t n = 0;
    put_varint(v, &n, str[i].len);
    TFC_TRY(writer_put(w, v, n, &ignored, s));
    *size += n;
  }
  crc_lengths(str, t->n_elems, crc);
  uint32_t lcrc = tfc_crc32c_mask(*crc);
  uint8_t l[4] = {(uint8_t)lcrc, (uint8_t)(lcrc >> 8), (uint8_t)(lcrc >> 16), (uint8_t)(lcrc >> 24)};
  TFC_TRY(writer_put(w, l, 4, crc, s));
  *size += 4;
  for (int64_t i = 0; i < t->n_elems; i++) {
    TFC_TRY(writer_put(w, str[i].data, str[i].len, crc, s));
    *size += str[i].len;
  }
  return TFC_OK;
}

int tfc_bundle_writer_add(tfc_bundle_writer *w, const char *key, const tfc_tensor *t, tfc_status *s) {
  if (w->failed || w->finished)
    return tfc_status_set(s, TFC_FAILED_PRECONDITION, "bundle writer for %s is %s", w->prefix,
                          w->finished ? "finished" : "in an error state");
  if (!*key) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Tensor names in a checkpoint must not be empty");
  if (tfc_hashmap_get(&w->keys, key)) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Adding duplicate key: %s", key);
  if (t->dtype != TFC_DT_STRING && raw_size(t->dtype) == 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Cannot save tensor '%s' of type %s in a checkpoint", key,
                          tfc_dtype_name(t->dtype));
  if (w->n == w->cap) {
    int cap = w->cap ? 2 * w->cap : 16;
    wentry *e = realloc(w->entries, (size_t)cap * sizeof *e);
    if (!e) return TFC_OOM(s);
    w->entries = e;
    w->cap = cap;
  }
  wentry *e = &w->entries[w->n];
  memset(e, 0, sizeof *e);
  e->key = strdup(key);
  if (!e->key || tfc_hashmap_put(&w->keys, key, (void *)1) != 0) {
    free(e->key);
    return TFC_OOM(s);
  }
  w->n++;
  e->dtype = t->dtype;
  e->ndims = t->ndims;
  memcpy(e->dims, t->dims, sizeof(int64_t) * (size_t)t->ndims);
  e->offset = w->size;
  uint32_t crc = 0;
  uint64_t size = 0;
  if (t->dtype == TFC_DT_STRING) {
    TFC_TRY(writer_put_strings(w, t, &size, &crc, s));
  } else {
    size = t->n_bytes;
    TFC_TRY(writer_put(w, t->data, t->n_bytes, &crc, s));
  }
  e->size = size;
  e->crc = tfc_crc32c_mask(crc);
  w->size += size;
  return TFC_OK;
}

static int entry_cmp(const void *a, const void *b) {
  return strcmp(((const wentry *)a)->key, ((const wentry *)b)->key);
}

/* The header proto, packed. */
static int pack_header(int32_t num_shards, const Tensorflow__VersionDef *version, void **out, size_t *len,
                       tfc_status *s) {
  Tensorflow__BundleHeaderProto h = TENSORFLOW__BUNDLE_HEADER_PROTO__INIT;
  Tensorflow__VersionDef v = TENSORFLOW__VERSION_DEF__INIT;
  v.producer = BUNDLE_VERSION;
  h.num_shards = num_shards;
  h.endianness = TENSORFLOW__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE;
  h.version = version ? (Tensorflow__VersionDef *)version : &v;
  return tfc_pb_pack(&h.base, out, len, s);
}

static int pack_entry(const wentry *e, void **out, size_t *len, tfc_status *s) {
  Tensorflow__BundleEntryProto p = TENSORFLOW__BUNDLE_ENTRY_PROTO__INIT;
  Tensorflow__TensorShapeProto shape = TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
  Tensorflow__TensorShapeProto__Dim dims[TFC_MAX_DIMS];
  Tensorflow__TensorShapeProto__Dim *dimp[TFC_MAX_DIMS];
  for (int i = 0; i < e->ndims; i++) {
    tensorflow__tensor_shape_proto__dim__init(&dims[i]);
    dims[i].size = e->dims[i];
    dimp[i] = &dims[i];
  }
  shape.n_dim = (size_t)e->ndims;
  shape.dim = dimp;
  p.dtype = (Tensorflow__DataType)e->dtype;
  p.shape = &shape;
  p.offset = (int64_t)e->offset;
  p.size = (int64_t)e->size;
  p.crc32c = e->crc;
  return tfc_pb_pack(&p.base, out, len, s);
}

/* Writes the table of (key, packed value) pairs, header first, to a locked temporary file
 * renamed to index_path (while still locked, so it is never taken for a stale one). */
typedef struct kv {
  const char *key;
  void *value;
  size_t len;
} kv;

static int write_index(const char *index_path, const void *header, size_t header_len, const kv *kvs, int n,
                       tfc_status *s) {
  char *tmp_path = NULL;
  FILE *f = open_locked_temp(index_path, &tmp_path, s);
  if (!f) return s->code;
  tfc_table_builder *b = tfc_table_builder_new(f, tmp_path, NULL, s);
  if (b) {
    tfc_table_builder_add(b, "", 0, header, header_len, s);
    for (int i = 0; i < n && tfc_status_ok(s); i++)
      tfc_table_builder_add(b, kvs[i].key, strlen(kvs[i].key), kvs[i].value, kvs[i].len, s);
    if (tfc_status_ok(s)) tfc_table_builder_finish(b, s);
    tfc_table_builder_free(b);
  }
  if (tfc_status_ok(s) && (fflush(f) != 0 || fsync(fileno(f)) != 0)) tfc_table_io_error(s, errno, tmp_path);
  if (tfc_status_ok(s) && rename(tmp_path, index_path) != 0) {
    char ctx[64 + 2048];
    snprintf(ctx, sizeof ctx, "Failed to rename %s to %s", tmp_path, index_path);
    tfc_table_io_error(s, errno, ctx);
  }
  if (!tfc_status_ok(s)) unlink(tmp_path);
  if (fclose(f) != 0 && tfc_status_ok(s)) tfc_table_io_error(s, errno, index_path);
  free(tmp_path);
  return s->code;
}

int tfc_bundle_writer_finish(tfc_bundle_writer *w, tfc_status *s) {
  if (w->failed || w->finished)
    return tfc_status_set(s, TFC_FAILED_PRECONDITION, "bundle writer for %s is %s", w->prefix,
                          w->finished ? "finished" : "in an error state");
  w->failed = 1; /* until it succeeds */
  /* 1. The data file: flushed to disk (closed once renamed: it stays locked until then). */
  int rc = fflush(w->data) != 0 || fsync(fileno(w->data)) != 0 ? errno : 0;
  if (rc) return tfc_table_io_error(s, rc, w->tmp_data);
  /* 2. The index entries, sorted, packed. */
  qsort(w->entries, (size_t)w->n, sizeof *w->entries, entry_cmp);
  kv *kvs = calloc((size_t)w->n + 1, sizeof *kvs);
  void *header = NULL;
  size_t header_len = 0;
  if (!kvs) return TFC_OOM(s);
  for (int i = 0; i < w->n && tfc_status_ok(s); i++) {
    kvs[i].key = w->entries[i].key;
    pack_entry(&w->entries[i], &kvs[i].value, &kvs[i].len, s);
  }
  if (tfc_status_ok(s)) pack_header(1, NULL, &header, &header_len, s);
  /* 3. Data file into place, then the index (the commit point). */
  if (tfc_status_ok(s) && rename(w->tmp_data, w->data_path) != 0) {
    char ctx[64 + 2048];
    snprintf(ctx, sizeof ctx, "Failed to rename %s to %s", w->tmp_data, w->data_path);
    tfc_table_io_error(s, errno, ctx);
  }
  if (tfc_status_ok(s)) {
    int failed_close = fclose(w->data) != 0;
    w->data = NULL;
    if (failed_close) tfc_table_io_error(s, errno, w->data_path);
  }
  if (tfc_status_ok(s)) write_index(w->index_path, header, header_len, kvs, w->n, s);
  for (int i = 0; i < w->n; i++) free(kvs[i].value);
  free(kvs);
  free(header);
  if (tfc_status_ok(s)) {
    w->finished = 1;
    w->failed = 0;
  }
  return s->code;
}

/* ---------------------------------------------------------------- reader */

struct tfc_bundle_reader {
  char *prefix;
  tfc_table *index;
  int num_shards;
  Tensorflow__VersionDef version;
  int *fds;         /* per shard; -1 until opened */
  uint64_t *sizes;  /* per shard file size */
};

/* Unpacks the entry under key into *out (free with protobuf_c_message_free_unpacked).
 * 1 found, 0 absent, -1 error. */
static int reader_entry(tfc_bundle_reader *r, const char *key, Tensorflow__BundleEntryProto **out,
                        tfc_status *s) {
  const char *v;
  size_t vlen;
  int found = tfc_table_get(r->index, key, strlen(key), &v, &vlen, s);
  if (found <= 0) return found;
  tfc_status ps;
  tfc_status_init(&ps);
  *out = (Tensorflow__BundleEntryProto *)tfc_pb_unpack(&tensorflow__bundle_entry_proto__descriptor, v, vlen,
                                                       "BundleEntryProto", &ps);
  if (!*out) {
    tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint index %s: entry '%s': %s", tfc_table_path(r->index),
                   key, tfc_status_msg(&ps));
    tfc_status_fini(&ps);
    return -1;
  }
  tfc_status_fini(&ps);
  return 1;
}

tfc_bundle_reader *tfc_bundle_reader_open(const char *prefix, tfc_status *s) {
  tfc_bundle_reader *r = calloc(1, sizeof *r);
  char *path = tfc_bundle_index_path(prefix);
  if (r) r->prefix = strdup(prefix);
  if (!r || !r->prefix || !path) {
    if (r) free(r->prefix);
    free(r);
    free(path);
    TFC_OOM(s);
    return NULL;
  }
  r->index = tfc_table_open(path, s);
  const char *v;
  size_t vlen;
  Tensorflow__BundleHeaderProto *h = NULL;
  if (r->index) {
    int found = tfc_table_get(r->index, "", 0, &v, &vlen, s);
    if (found == 0) tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint index %s: no header entry", path);
    if (found > 0) {
      tfc_status ps;
      tfc_status_init(&ps);
      h = (Tensorflow__BundleHeaderProto *)tfc_pb_unpack(&tensorflow__bundle_header_proto__descriptor, v, vlen,
                                                         "BundleHeaderProto", &ps);
      if (!h)
        tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint index %s: header: %s", path, tfc_status_msg(&ps));
      tfc_status_fini(&ps);
    }
  }
  if (h) {
    if (h->endianness != TENSORFLOW__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE)
      tfc_status_set(s, TFC_UNIMPLEMENTED, "Reading a big endian bundle on a little endian machine: %s", path);
    else if (h->num_shards < 1 || h->num_shards > MAX_SHARDS)
      tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint index %s: num_shards %d", path, (int)h->num_shards);
    else if (h->version && h->version->min_consumer > BUNDLE_VERSION)
      tfc_status_set(s, TFC_FAILED_PRECONDITION,
                     "Checkpoint %s needs a reader of version %d or newer; this one is version %d", path,
                     (int)h->version->min_consumer, BUNDLE_VERSION);
    if (tfc_status_ok(s)) {
      r->num_shards = h->num_shards;
      tensorflow__version_def__init(&r->version);
      if (h->version) {
        r->version.producer = h->version->producer;
        r->version.min_consumer = h->version->min_consumer;
      }
      r->fds = malloc(sizeof(int) * (size_t)r->num_shards);
      r->sizes = calloc((size_t)r->num_shards, sizeof(uint64_t));
      if (!r->fds || !r->sizes) TFC_OOM(s);
      for (int i = 0; r->fds && i < r->num_shards; i++) r->fds[i] = -1;
    }
    protobuf_c_message_free_unpacked(&h->base, NULL);
  }
  free(path);
  if (!tfc_status_ok(s)) {
    tfc_bundle_reader_free(r);
    return NULL;
  }
  return r;
}

void tfc_bundle_reader_free(tfc_bundle_reader *r) {
  if (!r) return;
  for (int i = 0; r->fds && i < r->num_shards; i++)
    if (r->fds[i] >= 0) close(r->fds[i]);
  free(r->fds);
  free(r->sizes);
  tfc_table_free(r->index);
  free(r->prefix);
  free(r);
}


/* Checks an entry and extracts dtype and shape. */
static int entry_info(tfc_bundle_reader *r, const char *key, const Tensorflow__BundleEntryProto *e,
                      int *dtype, int *ndims, int64_t *dims, tfc_status *s) {
  const char *path = tfc_table_path(r->index);
  if (e->n_slices > 0)
    return tfc_status_set(s, TFC_UNIMPLEMENTED,
                          "Tensor '%s' in checkpoint %s is saved in slices (a partitioned variable); tfc "
                          "restores whole tensors only",
                          key, r->prefix);
  if (!tfc_dtype_valid((int)e->dtype) || ((int)e->dtype != TFC_DT_STRING && raw_size((int)e->dtype) == 0))
    return tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint index %s: entry '%s' has dtype %d", path, key,
                          (int)e->dtype);
  if (!e->shape || e->shape->unknown_rank || e->shape->n_dim > TFC_MAX_DIMS)
    return tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint index %s: entry '%s' has a bad shape", path, key);
  for (size_t i = 0; i < e->shape->n_dim; i++) {
    if (e->shape->dim[i]->size < 0)
      return tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint index %s: entry '%s' has a bad shape", path,
                            key);
    dims[i] = e->shape->dim[i]->size;
  }
  if (e->shard_id < 0 || e->shard_id >= r->num_shards || e->offset < 0 || e->size < 0)
    return tfc_status_set(s, TFC_DATA_LOSS,
                          "Corrupted checkpoint index %s: entry '%s' has shard %d, offset %lld, size %lld", path,
                          key, (int)e->shard_id, (long long)e->offset, (long long)e->size);
  *dtype = (int)e->dtype;
  *ndims = (int)e->shape->n_dim;
  return TFC_OK;
}

int tfc_bundle_reader_lookup(tfc_bundle_reader *r, const char *key, int *out_dtype, int *out_ndims,
                             int64_t *out_dims, tfc_status *s) {
  Tensorflow__BundleEntryProto *e = NULL;
  int found = reader_entry(r, key, &e, s);
  if (found < 0) return s->code;
  if (found == 0) return tfc_status_set(s, TFC_NOT_FOUND, "Key %s not found in checkpoint %s", key, r->prefix);
  entry_info(r, key, e, out_dtype, out_ndims, out_dims, s);
  protobuf_c_message_free_unpacked(&e->base, NULL);
  return s->code;
}

/* The descriptor of shard i's data file, opened on first use; its path in *path (caller
 * frees). */
static int shard_fd(tfc_bundle_reader *r, int shard, char **path, tfc_status *s) {
  *path = tfc_bundle_data_path(r->prefix, shard, r->num_shards);
  if (!*path) return TFC_OOM(s);
  if (r->fds[shard] >= 0) return TFC_OK;
  int fd = open(*path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int err = errno;
    if (fd >= 0) close(fd);
    return tfc_table_io_error(s, err, *path);
  }
  r->fds[shard] = fd;
  r->sizes[shard] = (uint64_t)st.st_size;
  return TFC_OK;
}

static int pread_all(int fd, void *buf, size_t n, uint64_t off, const char *path, tfc_status *s) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return tfc_table_io_error(s, errno, path);
    if (k == 0)
      return tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint data file %s: unexpected end of file", path);
    got += (size_t)k;
  }
  return TFC_OK;
}

/* Parses a string tensor's bytes (TF's ReadStringTensor) into dst and checks both checksums;
 * *crc receives the entry checksum as TF computes it (see crc_lengths). */
static int decode_strings(const char *key, const char *path, const uint8_t *buf, size_t size, tfc_tensor *dst,
                          uint32_t *crc, tfc_status *s) {
  tfc_tstring *out = tfc_tensor_strings(dst);
  const uint8_t *p = buf, *end = buf + size;
  uint64_t total = 0;
  *crc = 0;
  for (int64_t i = 0; i < dst->n_elems; i++) {
    uint64_t v = 0;
    int shift = 0, ok = 0;
    while (p < end && shift < 64) {
      uint8_t b = *p++;
      v |= (uint64_t)(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) {
        ok = 1;
        break;
      }
    }
    if (!ok || v > size)
      return tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint data file %s: bad string length in tensor '%s'",
                            path, key);
    out[i].len = (size_t)v; /* provisional: the bytes are assigned below */
    total += v;
    uint32_t l = (uint32_t)v;
    uint8_t lb[4] = {(uint8_t)l, (uint8_t)(l >> 8), (uint8_t)(l >> 16), (uint8_t)(l >> 24)};
    *crc = tfc_crc32c_extend(*crc, lb, 4);
  }
  if ((size_t)(end - p) < 4 || (uint64_t)(end - p) - 4 != total) {
    for (int64_t i = 0; i < dst->n_elems; i++) out[i].len = 0;
    return tfc_status_set(s, TFC_DATA_LOSS,
                          "Corrupted checkpoint data file %s: string tensor '%s' does not fill its %zu bytes", path,
                          key, size);
  }
  uint32_t stored = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
  if (tfc_crc32c_unmask(stored) != *crc) {
    for (int64_t i = 0; i < dst->n_elems; i++) out[i].len = 0;
    return tfc_status_set(s, TFC_DATA_LOSS,
                          "The length checksum does not match: expected %08x but actual is %08x (tensor '%s' in %s)",
                          tfc_crc32c_unmask(stored), *crc, key, path);
  }
  *crc = tfc_crc32c_extend(*crc, p, 4);
  p += 4;
  *crc = tfc_crc32c_extend(*crc, p, (size_t)total);
  int rc = TFC_OK;
  for (int64_t i = 0; i < dst->n_elems; i++) {
    size_t len = out[i].len;
    out[i].len = 0;
    if (!rc) rc = tfc_tstring_assign(&out[i], p, len, s);
    p += len;
  }
  return rc;
}

/* "[2,3]" */
static const char *dims_str(const int64_t *dims, int n, char *buf, size_t cap) {
  size_t k = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, i ? ",%lld" : "%lld", (long long)dims[i]);
  if (k < cap) snprintf(buf + k, cap - k, "]");
  return buf;
}

/* Checks that entry e of key lies inside its shard's data file (opening it; *path receives the
 * file's name, caller frees) and that its size can hold the entry's shape: exactly the
 * elements' bytes for numbers, at least one length byte per element for strings. Run before a
 * tensor of that shape is allocated, so an index claiming a huge shape for a few bytes is
 * DATA_LOSS, never a huge allocation. */
static int entry_extent(tfc_bundle_reader *r, const char *key, const Tensorflow__BundleEntryProto *e, int dtype,
                        int ndims, const int64_t *dims, char **path, tfc_status *s) {
  if (shard_fd(r, e->shard_id, path, s)) return s->code;
  uint64_t off = (uint64_t)e->offset, size = (uint64_t)e->size, file = r->sizes[e->shard_id];
  if (off > file || size > file - off)
    return tfc_status_set(s, TFC_DATA_LOSS,
                          "Corrupted checkpoint data file %s: tensor '%s' at offset %llu size %llu runs past its end "
                          "(%llu bytes)",
                          *path, key, (unsigned long long)off, (unsigned long long)size, (unsigned long long)file);
  uint64_t n = 1, need = 0;
  int overflow = 0;
  char shape[256];
  for (int i = 0; i < ndims; i++) overflow |= __builtin_mul_overflow(n, (uint64_t)dims[i], &n);
  if (dtype == TFC_DT_STRING) {
    if (overflow || n > size)
      return tfc_status_set(s, TFC_DATA_LOSS,
                            "Corrupted checkpoint data file %s: string tensor '%s' of shape %s cannot fit its %llu "
                            "bytes",
                            *path, key, dims_str(dims, ndims, shape, sizeof shape), (unsigned long long)size);
    return TFC_OK;
  }
  overflow |= __builtin_mul_overflow(n, (uint64_t)raw_size(dtype), &need);
  if (overflow || need != size) {
    char needs[48];
    if (overflow) snprintf(needs, sizeof needs, "more than 2^64 bytes");
    else snprintf(needs, sizeof needs, "%llu", (unsigned long long)need);
    return tfc_status_set(s, TFC_DATA_LOSS, "Corrupted checkpoint: tensor '%s' holds %llu bytes in %s; %s %s needs %s",
                          key, (unsigned long long)size, *path, tfc_dtype_name(dtype),
                          dims_str(dims, ndims, shape, sizeof shape), needs);
  }
  return TFC_OK;
}

int tfc_bundle_reader_read_into(tfc_bundle_reader *r, const char *key, tfc_tensor *dst, tfc_status *s) {
  Tensorflow__BundleEntryProto *e = NULL;
  int found = reader_entry(r, key, &e, s);
  if (found < 0) return s->code;
  if (found == 0) return tfc_status_set(s, TFC_NOT_FOUND, "Key %s not found in checkpoint %s", key, r->prefix);
  int dtype, ndims;
  int64_t dims[TFC_MAX_DIMS];
  char *path = NULL;
  uint8_t *buf = NULL;
  if (entry_info(r, key, e, &dtype, &ndims, dims, s)) goto out;
  if (dtype != dst->dtype || ndims != dst->ndims || memcmp(dims, dst->dims, sizeof(int64_t) * (size_t)ndims)) {
    char have[256], want[256];
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Tensor '%s' in checkpoint %s is %s %s; the destination is %s %s", key,
                   r->prefix, tfc_dtype_name(dtype), dims_str(dims, ndims, have, sizeof have),
                   tfc_dtype_name(dst->dtype), tfc_tensor_shape_str(dst, want, sizeof want));
    goto out;
  }
  if (entry_extent(r, key, e, dtype, ndims, dims, &path, s)) goto out;
  uint64_t off = (uint64_t)e->offset, size = (uint64_t)e->size;
  /* Numbers land in the tensor directly; strings go through a staging buffer. */
  buf = dtype == TFC_DT_STRING ? malloc(size ? (size_t)size : 1) : (uint8_t *)dst->data;
  if (!buf) {
    TFC_OOM(s);
    goto out;
  }
  if (pread_all(r->fds[e->shard_id], buf, (size_t)size, off, path, s)) goto out;
  uint32_t crc;
  if (dtype == TFC_DT_STRING) {
    if (decode_strings(key, path, buf, (size_t)size, dst, &crc, s)) goto out;
  } else {
    crc = tfc_crc32c(buf, (size_t)size);
  }
  if (crc != tfc_crc32c_unmask(e->crc32c))
    tfc_status_set(s, TFC_DATA_LOSS,
                   "Checksum does not match: stored %u vs. calculated on the restored bytes %u (tensor '%s' in %s)",
                   (unsigned)e->crc32c, (unsigned)tfc_crc32c_mask(crc), key, path);
out:
  if (buf && dtype == TFC_DT_STRING) free(buf);
  free(path);
  protobuf_c_message_free_unpacked(&e->base, NULL);
  return s->code;
}

tfc_tensor *tfc_bundle_reader_read(tfc_bundle_reader *r, const char *key, tfc_status *s) {
  int dtype, ndims;
  int64_t dims[TFC_MAX_DIMS];
  Tensorflow__BundleEntryProto *e = NULL;
  int found = reader_entry(r, key, &e, s);
  if (found == 0) tfc_status_set(s, TFC_NOT_FOUND, "Key %s not found in checkpoint %s", key, r->prefix);
  char *path = NULL;
  int rc = found <= 0 ? s->code : entry_info(r, key, e, &dtype, &ndims, dims, s);
  if (rc == TFC_OK) rc = entry_extent(r, key, e, dtype, ndims, dims, &path, s);
  free(path);
  if (e) protobuf_c_message_free_unpacked(&e->base, NULL);
  if (rc) return NULL;
  tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, s);
  if (t && tfc_bundle_reader_read_into(r, key, t, s)) {
    tfc_tensor_unref(t);
    t = NULL;
  }
  return t;
}

/* ---------------------------------------------------------------- verifying */

typedef struct key_list {
  char **keys;
  int n, cap;
  tfc_status *s;
} key_list;

static int collect_key(void *arg, const char *key, size_t key_len, const char *value, size_t value_len) {
  (void)value;
  (void)value_len;
  key_list *l = arg;
  if (key_len == 0) return 0; /* the header */
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **k = realloc(l->keys, sizeof *k * (size_t)cap);
    if (!k) return TFC_OOM(l->s);
    l->keys = k;
    l->cap = cap;
  }
  if (!(l->keys[l->n] = strndup(key, key_len))) return TFC_OOM(l->s);
  l->n++;
  return 0;
}

int tfc_bundle_reader_keys(tfc_bundle_reader *r, char ***out_keys, int *out_n, tfc_status *s) {
  key_list l = {NULL, 0, 0, s};
  *out_keys = NULL;
  *out_n = 0;
  if (tfc_table_visit(r->index, collect_key, &l, s) != TFC_OK || !tfc_status_ok(s)) {
    for (int i = 0; i < l.n; i++) free(l.keys[i]);
    free(l.keys);
    return s->code ? s->code : TFC_INTERNAL;
  }
  *out_keys = l.keys;
  *out_n = l.n;
  return TFC_OK;
}

int tfc_bundle_verify(const char *prefix, tfc_status *s) {
  tfc_bundle_reader *r = tfc_bundle_reader_open(prefix, s);
  if (!r) return s->code;
  key_list l = {NULL, 0, 0, s};
  tfc_table_visit(r->index, collect_key, &l, s);
  for (int i = 0; i < l.n && tfc_status_ok(s); i++) tfc_tensor_unref(tfc_bundle_reader_read(r, l.keys[i], s));
  for (int i = 0; i < l.n; i++) free(l.keys[i]);
  free(l.keys);
  tfc_bundle_reader_free(r);
  return s->code;
}

/* ---------------------------------------------------------------- merge */

typedef struct merge_state {
  const char *prefix;     /* the source being merged */
  int src_shards;
  kv *kvs;
  int n, cap;
  tfc_hashmap keys;       /* merged keys */
  char **files;           /* source data files, in order of first use (new shard id = index) */
  int n_files;
  tfc_hashmap file_ids;   /* path -> id + 1 */
  tfc_status *s;
} merge_state;

static int merge_visit(void *arg, const char *key, size_t key_len, const char *value, size_t value_len) {
  merge_state *m = arg;
  if (key_len == 0) return 0;
  char *k = strndup(key, key_len);
  if (!k) return TFC_OOM(m->s);
  if (tfc_hashmap_get(&m->keys, k)) {
    tfc_status_set(m->s, TFC_FAILED_PRECONDITION, "Duplicate tensor keyed by %s encountered, when merging prefix: %s",
                   k, m->prefix);
    free(k);
    return m->s->code;
  }
  Tensorflow__BundleEntryProto *e = (Tensorflow__BundleEntryProto *)tfc_pb_unpack(
      &tensorflow__bundle_entry_proto__descriptor, value, value_len, "BundleEntryProto", m->s);
  if (!e) {
    tfc_status_prefix(m->s, "checkpoint %s, entry '%s': ", m->prefix, k);
    free(k);
    return m->s->code;
  }
  int rc = TFC_OK;
  char *file = tfc_bundle_data_path(m->prefix, e->shard_id, m->src_shards);
  if (!file) rc = TFC_OOM(m->s);
  if (!rc && e->n_slices == 0 && (e->shard_id < 0 || e->shard_id >= m->src_shards))
    rc = tfc_status_set(m->s, TFC_DATA_LOSS, "Corrupted checkpoint index %s.index: entry '%s' has shard %d",
                        m->prefix, k, (int)e->shard_id);
  if (!rc) {
    intptr_t id = (intptr_t)tfc_hashmap_get(&m->file_ids, file);
    if (!id) {
      char **f = realloc(m->files, sizeof(char *) * (size_t)(m->n_files + 1));
      if (!f || tfc_hashmap_put(&m->file_ids, file, (void *)(intptr_t)(m->n_files + 1)) != 0) {
        if (f) m->files = f;
        rc = TFC_OOM(m->s);
      } else {
        m->files = f;
        m->files[m->n_files++] = file;
        file = NULL;
        id = m->n_files;
      }
    }
    e->shard_id = (int32_t)(id - 1);
  }
  free(file);
  if (!rc && m->n == m->cap) {
    int cap = m->cap ? 2 * m->cap : 16;
    kv *p = realloc(m->kvs, sizeof(kv) * (size_t)cap);
    if (!p) rc = TFC_OOM(m->s);
    else {
      m->kvs = p;
      m->cap = cap;
    }
  }
  if (!rc && tfc_hashmap_put(&m->keys, k, (void *)1) != 0) rc = TFC_OOM(m->s);
  if (!rc) {
    kv *slot = &m->kvs[m->n];
    if (tfc_pb_pack(&e->base, &slot->value, &slot->len, m->s) == TFC_OK) {
      slot->key = k;
      k = NULL;
      m->n++;
    }
    rc = m->s->code;
  }
  free(k);
  protobuf_c_message_free_unpacked(&e->base, NULL);
  return rc;
}

static int kv_cmp(const void *a, const void *b) { return strcmp(((const kv *)a)->key, ((const kv *)b)->key); }

int tfc_bundle_merge(const char *const *prefixes, int n, const char *dest, tfc_status *s) {
  merge_state m = {.s = s};
  tfc_hashmap_init(&m.keys);
  tfc_hashmap_init(&m.file_ids);
  int32_t total_shards = 0;
  Tensorflow__VersionDef version = TENSORFLOW__VERSION_DEF__INIT;
  char *dir = dir_of(dest), *index = tfc_bundle_index_path(dest);
  void *header = NULL;
  size_t header_len = 0;
  if (!dir || !index) TFC_OOM(s);
  if (tfc_status_ok(s)) make_dirs(dir, s);
  /* 1. Every source's entries, shard ids renumbered. */
  for (int i = 0; i < n && tfc_status_ok(s); i++) {
    tfc_bundle_reader *r = tfc_bundle_reader_open(prefixes[i], s);
    if (!r) break;
    if (i == 0) {
      version.producer = r->version.producer;
      version.min_consumer = r->version.min_consumer;
    }
    total_shards += r->num_shards;
    m.prefix = prefixes[i];
    m.src_shards = r->num_shards;
    tfc_table_visit(r->index, merge_visit, &m, s);
    tfc_bundle_reader_free(r);
  }
  /* 2. Data files renamed under dest. */
  for (int i = 0; i < m.n_files && tfc_status_ok(s); i++) {
    char *to = tfc_bundle_data_path(dest, i, m.n_files);
    if (!to) TFC_OOM(s);
    else if (rename(m.files[i], to) != 0) {
      char ctx[64 + 2048];
      snprintf(ctx, sizeof ctx, "Failed to rename %s to %s", m.files[i], to);
      tfc_table_io_error(s, errno, ctx);
    }
    free(to);
  }
  /* 3. The merged index; then the sources' indexes go. */
  if (tfc_status_ok(s)) {
    qsort(m.kvs, (size_t)m.n, sizeof(kv), kv_cmp);
    if (pack_header(total_shards, &version, &header, &header_len, s) == TFC_OK)
      write_index(index, header, header_len, m.kvs, m.n, s);
  }
  if (tfc_status_ok(s)) {
    for (int i = 0; i < n; i++) {
      char *p = tfc_bundle_index_path(prefixes[i]);
      if (p && strcmp(p, index) != 0) unlink(p);
      free(p);
    }
  }
  for (int i = 0; i < m.n; i++) {
    free((char *)m.kvs[i].key);
    free(m.kvs[i].value);
  }
  free(m.kvs);
  for (int i = 0; i < m.n_files; i++) free(m.files[i]);
  free(m.files);
  tfc_hashmap_fini(&m.keys);
  tfc_hashmap_fini(&m.file_ids);
  free(header);
  free(dir);
  free(index);
  return s->code;
}

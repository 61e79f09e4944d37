/*
 * test_bundle — V2 checkpoint bundles (src/io/bundle.c): round trips of every dtype, TF's
 * checkpoint (tests/fixtures/ckpt_tf, written by gen_checkpoint.py) restored value for value,
 * tfc writing the same tensors byte for byte as TF did, merges, atomic writes and the errors
 * (missing key, corrupt data, missing files, duplicates) with their codes and texts.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "io/bundle.h"
#include "io/table.h"
#include "tensorflow/tensor_bundle.pb-c.h"

static char *tmp_dir(void) {
  char *d = malloc(4096);
  snprintf(d, 4096, "%s/bundle_tmp_XXXXXX", TFC_BINARY_DIR);
  EXPECT_TRUE(mkdtemp(d) != NULL);
  return d;
}

/* Removes dir and the files in it (one level, plus one level of subdirectories). */
static void rm_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (unlink(p) != 0) rm_tree(p);
  }
  closedir(d);
  rmdir(dir);
}

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  if (d) closedir(d);
  return n;
}

static tfc_tensor *make(int dtype, const int64_t *dims, int nd, const void *data) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(dtype, dims, nd, &s);
  EXPECT_TRUE(t != NULL);
  if (dtype == TFC_DT_STRING) {
    const char *const *strs = data;
    for (int64_t i = 0; i < t->n_elems; i++)
      EXPECT_EQ(tfc_tstring_assign(&tfc_tensor_strings(t)[i], strs[i], strlen(strs[i]), &s), TFC_OK);
  } else if (t->n_bytes) {
    EXPECT_TRUE(data != NULL); /* NULL data only for tensors with no elements */
    memcpy(t->data, data, t->n_bytes);
  }
  tfc_status_fini(&s);
  return t;
}

static void expect_same(const tfc_tensor *a, const tfc_tensor *b) {
  EXPECT_EQ(a->dtype, b->dtype);
  EXPECT_EQ(a->ndims, b->ndims);
  for (int i = 0; i < a->ndims; i++) EXPECT_EQ(a->dims[i], b->dims[i]);
  EXPECT_EQ(a->n_elems, b->n_elems);
  if (a->dtype == TFC_DT_STRING) {
    for (int64_t i = 0; i < a->n_elems; i++) {
      const tfc_tstring *x = &tfc_tensor_strings(a)[i], *y = &tfc_tensor_strings(b)[i];
      EXPECT_EQ(x->len, y->len);
      EXPECT_TRUE(x->len == 0 || memcmp(x->data, y->data, x->len) == 0);
    }
  } else {
    EXPECT_EQ(a->n_bytes, b->n_bytes);
    EXPECT_TRUE(a->n_bytes == 0 || memcmp(a->data, b->data, a->n_bytes) == 0);
  }
}

/* The tensors of gen_checkpoint.py's TENSORS, in its order. */
#define N_FIXTURE 9
static const char *fixture_names[N_FIXTURE] = {"w_float", "scalar_double", "ints", "big",  "bytes",
                                               "flags",   "words",         "empty", "step"};
static char long_x[201];

static tfc_tensor *fixture_tensor(int i) {
  switch (i) {
    case 0: {
      float v[6];
      for (int k = 0; k < 6; k++) v[k] = (float)k * 0.5f - 1.0f;
      return make(TFC_DT_FLOAT, (int64_t[]){2, 3}, 2, v);
    }
    case 1: return make(TFC_DT_DOUBLE, NULL, 0, (double[]){3.25});
    case 2: return make(TFC_DT_INT32, (int64_t[]){4}, 1, (int32_t[]){-2, 0, 7, 2147483647});
    case 3: return make(TFC_DT_INT64, (int64_t[]){2, 2}, 2, (int64_t[]){1ll << 40, -1, 0, 5});
    case 4: return make(TFC_DT_UINT8, (int64_t[]){3}, 1, (uint8_t[]){0, 128, 255});
    case 5: return make(TFC_DT_BOOL, (int64_t[]){2}, 1, (uint8_t[]){1, 0});
    case 6:
      memset(long_x, 'x', 200);
      long_x[200] = 0;
      return make(TFC_DT_STRING, (int64_t[]){3}, 1, (const char *[]){"", "hello", long_x});
    case 7: return make(TFC_DT_FLOAT, (int64_t[]){0, 3}, 2, NULL);
    default: return make(TFC_DT_INT64, NULL, 0, (int64_t[]){42});
  }
}

static void write_bundle(const char *prefix, const char *const *names, tfc_tensor **ts, int n) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_bundle_writer *w = tfc_bundle_writer_new(prefix, &s);
  EXPECT_TRUE(w != NULL);
  for (int i = 0; i < n; i++) EXPECT_EQ(tfc_bundle_writer_add(w, names[i], ts[i], &s), TFC_OK);
  EXPECT_EQ(tfc_bundle_writer_finish(w, &s), TFC_OK);
  tfc_bundle_writer_free(w);
  tfc_status_fini(&s);
}

static void bundle_round_trips_every_dtype(void) {
  char *dir = tmp_dir();
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s/sub/dir/model", dir); /* directories are created */
  const char *names[] = {"f32", "f64", "i32", "u8", "i16", "i8", "i64", "b", "u16", "half", "c64", "c128", "u32",
                         "u64", "bf16", "str", "empty_str", "scalar_str", "empty", "scalar"};
  enum { N = 20 };
  tfc_tensor *ts[N];
  uint8_t raw[64];
  for (int i = 0; i < 64; i++) raw[i] = (uint8_t)(i * 37 + 11);
  int types[] = {TFC_DT_FLOAT, TFC_DT_DOUBLE, TFC_DT_INT32, TFC_DT_UINT8, TFC_DT_INT16, TFC_DT_INT8, TFC_DT_INT64,
                 TFC_DT_BOOL,  TFC_DT_UINT16, TFC_DT_HALF,  TFC_DT_COMPLEX64, TFC_DT_COMPLEX128, TFC_DT_UINT32,
                 TFC_DT_UINT64, TFC_DT_BFLOAT16};
  for (int i = 0; i < 15; i++) {
    ts[i] = make(types[i], (int64_t[]){2, 2}, 2, raw);
    if (types[i] == TFC_DT_BOOL)
      for (int k = 0; k < 4; k++) ((uint8_t *)ts[i]->data)[k] = k & 1;
  }
  ts[15] = make(TFC_DT_STRING, (int64_t[]){2, 2}, 2, (const char *[]){"a", "", "tf\0c", "\xff\x01 bytes"});
  ts[16] = make(TFC_DT_STRING, (int64_t[]){0}, 1, NULL);
  ts[17] = make(TFC_DT_STRING, NULL, 0, (const char *[]){"only"});
  ts[18] = make(TFC_DT_INT32, (int64_t[]){3, 0, 2}, 3, NULL);
  ts[19] = make(TFC_DT_FLOAT, NULL, 0, (float[]){-0.125f});
  write_bundle(prefix, names, ts, N);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(tfc_bundle_exists(prefix));
  tfc_bundle_reader *r = tfc_bundle_reader_open(prefix, &s);
  EXPECT_TRUE(r != NULL);
  for (int i = N - 1; i >= 0; i--) { /* any order */
    int dtype, nd;
    int64_t dims[8];
    EXPECT_EQ(tfc_bundle_reader_lookup(r, names[i], &dtype, &nd, dims, &s), TFC_OK);
    EXPECT_EQ(dtype, ts[i]->dtype);
    EXPECT_EQ(nd, ts[i]->ndims);
    tfc_tensor *got = tfc_bundle_reader_read(r, names[i], &s);
    EXPECT_TRUE(got != NULL);
    expect_same(got, ts[i]);
    tfc_tensor_unref(got);
  }
  tfc_bundle_reader_free(r);
  for (int i = 0; i < N; i++) tfc_tensor_unref(ts[i]);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

static void bundle_restores_tf_written_checkpoint(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_bundle_reader *r = tfc_bundle_reader_open(TFC_FIXTURE_DIR "/ckpt_tf/model", &s);
  EXPECT_TRUE(r != NULL);
  for (int i = 0; i < N_FIXTURE; i++) {
    tfc_tensor *want = fixture_tensor(i);
    tfc_tensor *got = tfc_bundle_reader_read(r, fixture_names[i], &s);
    if (!got) tfc_test_fail(__FILE__, __LINE__, "%s: %s", fixture_names[i], tfc_status_msg(&s));
    expect_same(got, want);
    tfc_tensor_unref(got);
    tfc_tensor_unref(want);
  }
  tfc_bundle_reader_free(r);
  tfc_status_fini(&s);
}

static void expect_files_equal(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  EXPECT_TRUE(fa && fb);
  long pos = 0;
  for (;;) {
    int ca = fgetc(fa), cb = fgetc(fb);
    if (ca != cb) tfc_test_fail(__FILE__, __LINE__, "%s and %s differ at byte %ld", a, b, pos);
    if (ca == EOF) break;
    pos++;
  }
  fclose(fa);
  fclose(fb);
}

static void bundle_writes_tf_identical_bytes(void) {
  /* tfc saves the fixture's tensors in TF's call order into the build tree (the committed
   * tests/fixtures/ckpt_tfc is a copy, read back with TF by gen_checkpoint.py --check-tfc). */
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s/ckpt_tfc/model", TFC_BINARY_DIR);
  tfc_tensor *ts[N_FIXTURE];
  for (int i = 0; i < N_FIXTURE; i++) ts[i] = fixture_tensor(i);
  write_bundle(prefix, fixture_names, ts, N_FIXTURE);
  for (int i = 0; i < N_FIXTURE; i++) tfc_tensor_unref(ts[i]);
  char a[4300], b[4300];
  snprintf(a, sizeof a, "%s.index", prefix);
  expect_files_equal(a, TFC_FIXTURE_DIR "/ckpt_tf/model.index");
  expect_files_equal(a, TFC_FIXTURE_DIR "/ckpt_tfc/model.index");
  snprintf(b, sizeof b, "%s.data-00000-of-00001", prefix);
  expect_files_equal(b, TFC_FIXTURE_DIR "/ckpt_tf/model.data-00000-of-00001");
  expect_files_equal(b, TFC_FIXTURE_DIR "/ckpt_tfc/model.data-00000-of-00001");
}

static void bundle_missing_key_is_not_found_with_tf_text(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_bundle_reader *r = tfc_bundle_reader_open(TFC_FIXTURE_DIR "/ckpt_tf/model", &s);
  int dtype, nd;
  int64_t dims[8];
  EXPECT_EQ(tfc_bundle_reader_lookup(r, "w", &dtype, &nd, dims, &s), TFC_NOT_FOUND);
  EXPECT_STREQ(tfc_status_msg(&s), "Key w not found in checkpoint " TFC_FIXTURE_DIR "/ckpt_tf/model");
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_bundle_reader_read(r, "w_floa", &s) == NULL);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  /* A destination of the wrong dtype or shape. */
  tfc_status_clear(&s);
  tfc_tensor *dst = make(TFC_DT_INT32, (int64_t[]){2, 3}, 2, (int32_t[6]){0});
  EXPECT_EQ(tfc_bundle_reader_read_into(r, "w_float", dst, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Tensor 'w_float' in checkpoint " TFC_FIXTURE_DIR
                                   "/ckpt_tf/model is float [2,3]; the destination is int32 [2,3]");
  tfc_tensor_unref(dst);
  tfc_bundle_reader_free(r);
  tfc_status_fini(&s);
}

static void copy_file(const char *from, const char *to) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  EXPECT_TRUE(a && b);
  int c;
  while ((c = fgetc(a)) != EOF) fputc(c, b);
  fclose(a);
  fclose(b);
}

static void bundle_corrupt_data_is_data_loss_naming_file(void) {
  char *dir = tmp_dir();
  char prefix[4200], idx[4300], data[4300];
  snprintf(prefix, sizeof prefix, "%s/model", dir);
  snprintf(idx, sizeof idx, "%s.index", prefix);
  snprintf(data, sizeof data, "%s.data-00000-of-00001", prefix);
  copy_file(TFC_FIXTURE_DIR "/ckpt_tf/model.index", idx);
  copy_file(TFC_FIXTURE_DIR "/ckpt_tf/model.data-00000-of-00001", data);
  FILE *f = fopen(data, "r+b");
  fseek(f, 2, SEEK_SET); /* inside w_float, the first tensor */
  fputc(0x7f, f);
  fclose(f);
  tfc_status s;
  tfc_status_init(&s);
  tfc_bundle_reader *r = tfc_bundle_reader_open(prefix, &s);
  EXPECT_TRUE(r != NULL);
  EXPECT_TRUE(tfc_bundle_reader_read(r, "w_float", &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Checksum does not match: stored ");
  EXPECT_CONTAINS(tfc_status_msg(&s), "(tensor 'w_float' in ");
  EXPECT_CONTAINS(tfc_status_msg(&s), data);
  /* Other tensors still read. */
  tfc_status_clear(&s);
  tfc_tensor *t = tfc_bundle_reader_read(r, "ints", &s);
  EXPECT_TRUE(t != NULL);
  tfc_tensor_unref(t);
  tfc_bundle_reader_free(r);
  /* A truncated data file. */
  EXPECT_EQ(truncate(data, 100), 0);
  r = tfc_bundle_reader_open(prefix, &s);
  EXPECT_TRUE(tfc_bundle_reader_read(r, "words", &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "runs past its end");
  EXPECT_CONTAINS(tfc_status_msg(&s), data);
  tfc_bundle_reader_free(r);
  /* No data file at all. */
  tfc_status_clear(&s);
  unlink(data);
  r = tfc_bundle_reader_open(prefix, &s);
  EXPECT_TRUE(tfc_bundle_reader_read(r, "ints", &s) == NULL);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  char msg[8600];
  snprintf(msg, sizeof msg, "%s; No such file or directory", data);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  tfc_bundle_reader_free(r);
  /* A corrupt index. */
  tfc_status_clear(&s);
  f = fopen(idx, "r+b");
  fseek(f, 20, SEEK_SET);
  fputc(0x55, f);
  fclose(f);
  EXPECT_TRUE(tfc_bundle_reader_open(prefix, &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), idx);
  /* No index. */
  tfc_status_clear(&s);
  unlink(idx);
  EXPECT_TRUE(tfc_bundle_reader_open(prefix, &s) == NULL);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  snprintf(msg, sizeof msg, "%s; No such file or directory", idx);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

/* Adds key -> a BundleEntryProto of dtype, a 1-d shape of n elements and size bytes at 0. */
static void add_entry(tfc_table_builder *b, const char *key, int dtype, int64_t n, int64_t size) {
  Tensorflow__TensorShapeProto__Dim dim = TENSORFLOW__TENSOR_SHAPE_PROTO__DIM__INIT;
  Tensorflow__TensorShapeProto__Dim *dims[1] = {&dim};
  Tensorflow__TensorShapeProto shape = TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
  Tensorflow__BundleEntryProto e = TENSORFLOW__BUNDLE_ENTRY_PROTO__INIT;
  dim.size = n;
  shape.n_dim = 1;
  shape.dim = dims;
  e.dtype = (Tensorflow__DataType)dtype;
  e.shape = &shape;
  e.size = size;
  uint8_t buf[128];
  size_t len = tensorflow__bundle_entry_proto__pack(&e, buf);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_table_builder_add(b, key, strlen(key), buf, len, &s), TFC_OK);
  tfc_status_fini(&s);
}

/* An index whose entries claim shapes far larger than their bytes (a damaged or hostile file)
 * fails with DATA_LOSS naming the tensor before any tensor of that shape is allocated. */
static void bundle_entry_shape_larger_than_its_bytes_is_data_loss(void) {
  char *dir = tmp_dir();
  char prefix[4200], idx[4300], data[4300];
  snprintf(prefix, sizeof prefix, "%s/model", dir);
  snprintf(idx, sizeof idx, "%s.index", prefix);
  snprintf(data, sizeof data, "%s.data-00000-of-00001", prefix);
  tfc_status s;
  tfc_status_init(&s);
  FILE *f = fopen(idx, "wb");
  tfc_table_builder *b = tfc_table_builder_new(f, idx, NULL, &s);
  Tensorflow__VersionDef version = TENSORFLOW__VERSION_DEF__INIT;
  Tensorflow__BundleHeaderProto h = TENSORFLOW__BUNDLE_HEADER_PROTO__INIT;
  version.producer = 1;
  h.num_shards = 1;
  h.version = &version;
  uint8_t buf[64];
  size_t len = tensorflow__bundle_header_proto__pack(&h, buf);
  EXPECT_EQ(tfc_table_builder_add(b, "", 0, buf, len, &s), TFC_OK);
  add_entry(b, "floats", TFC_DT_FLOAT, (int64_t)1 << 40, 8);  /* 4 TiB claimed, 8 bytes held */
  add_entry(b, "overflow", TFC_DT_DOUBLE, INT64_MAX / 2, 8);  /* elements * 8 overflows */
  add_entry(b, "strings", TFC_DT_STRING, (int64_t)1 << 28, 8); /* 2^28 strings in 8 bytes */
  EXPECT_EQ(tfc_table_builder_finish(b, &s), TFC_OK);
  tfc_table_builder_free(b);
  fclose(f);
  f = fopen(data, "wb");
  fwrite("01234567", 1, 8, f);
  fclose(f);
  tfc_bundle_reader *r = tfc_bundle_reader_open(prefix, &s);
  EXPECT_TRUE(r != NULL);
  EXPECT_TRUE(tfc_bundle_reader_read(r, "floats", &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  char msg[8800];
  snprintf(msg, sizeof msg, "Corrupted checkpoint: tensor 'floats' holds 8 bytes in %s; float [1099511627776] needs 4398046511104", data);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_bundle_reader_read(r, "overflow", &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "tensor 'overflow' holds 8 bytes in ");
  EXPECT_CONTAINS(tfc_status_msg(&s), "needs more than 2^64 bytes");
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_bundle_reader_read(r, "strings", &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  snprintf(msg, sizeof msg, "Corrupted checkpoint data file %s: string tensor 'strings' of shape [268435456] cannot fit its 8 bytes", data);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  tfc_bundle_reader_free(r);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

static void bundle_rejects_duplicate_and_empty_keys(void) {
  char *dir = tmp_dir();
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s/model", dir);
  tfc_status s;
  tfc_status_init(&s);
  tfc_bundle_writer *w = tfc_bundle_writer_new(prefix, &s);
  tfc_tensor *t = make(TFC_DT_FLOAT, NULL, 0, (float[]){1});
  EXPECT_EQ(tfc_bundle_writer_add(w, "w", t, &s), TFC_OK);
  EXPECT_EQ(tfc_bundle_writer_add(w, "w", t, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Adding duplicate key: w");
  tfc_status_clear(&s);
  EXPECT_EQ(tfc_bundle_writer_add(w, "", t, &s), TFC_INVALID_ARGUMENT);
  tfc_bundle_writer_free(w); /* abandoned: its temporary file goes */
  EXPECT_EQ(count_files(dir), 0);
  tfc_tensor_unref(t);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

static void bundle_failed_finish_keeps_previous_bundle(void) {
  char *dir = tmp_dir();
  char prefix[4200], data[4300];
  snprintf(prefix, sizeof prefix, "%s/model", dir);
  snprintf(data, sizeof data, "%s.data-00000-of-00001", prefix);
  tfc_tensor *one = make(TFC_DT_FLOAT, NULL, 0, (float[]){1}), *two = make(TFC_DT_FLOAT, NULL, 0, (float[]){2});
  const char *names[] = {"v"};
  write_bundle(prefix, names, &one, 1);
  /* The next save cannot put its data file in place (a directory holds the name): it fails
   * and the old index still describes the old data. Here the collision is on the index. */
  char idx[4400];
  char oprefix[4300];
  snprintf(oprefix, sizeof oprefix, "%s/other", dir);
  snprintf(idx, sizeof idx, "%s.index", oprefix);
  EXPECT_EQ(mkdir(idx, 0777), 0);
  tfc_status s;
  tfc_status_init(&s);
  tfc_bundle_writer *w = tfc_bundle_writer_new(oprefix, &s);
  EXPECT_EQ(tfc_bundle_writer_add(w, "v", two, &s), TFC_OK);
  EXPECT_TRUE(tfc_bundle_writer_finish(w, &s) != TFC_OK);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Failed to rename ");
  EXPECT_CONTAINS(tfc_status_msg(&s), idx);
  tfc_bundle_writer_free(w);
  tfc_status_clear(&s);
  /* Same prefix, data-file collision: replace the data file by a directory after moving the
   * old one aside, then restore it — the failed save must not have touched the index. */
  char aside[4400];
  snprintf(aside, sizeof aside, "%s.aside", data);
  EXPECT_EQ(rename(data, aside), 0);
  EXPECT_EQ(mkdir(data, 0777), 0);
  w = tfc_bundle_writer_new(prefix, &s);
  EXPECT_EQ(tfc_bundle_writer_add(w, "v", two, &s), TFC_OK);
  EXPECT_TRUE(tfc_bundle_writer_finish(w, &s) != TFC_OK);
  EXPECT_CONTAINS(tfc_status_msg(&s), data);
  tfc_bundle_writer_free(w);
  tfc_status_clear(&s);
  EXPECT_EQ(rmdir(data), 0);
  EXPECT_EQ(rename(aside, data), 0);
  tfc_bundle_reader *r = tfc_bundle_reader_open(prefix, &s);
  EXPECT_TRUE(r != NULL);
  tfc_tensor *got = tfc_bundle_reader_read(r, "v", &s);
  EXPECT_TRUE(got != NULL);
  EXPECT_EQ(*(float *)got->data, 1.0f);
  tfc_tensor_unref(got);
  tfc_bundle_reader_free(r);
  /* Nothing temporary is left: model.index, model.data, other.index (the directory) and
   * other.data (renamed before the index failed, as TF's BundleWriter does). */
  EXPECT_EQ(count_files(dir), 4);
  char other_data[4400];
  snprintf(other_data, sizeof other_data, "%s.data-00000-of-00001", oprefix);
  EXPECT_EQ(access(other_data, F_OK), 0);
  tfc_tensor_unref(one);
  tfc_tensor_unref(two);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

static void bundle_merge_renumbers_shards(void) {
  char *dir = tmp_dir();
  char p0[4200], p1[4200], dest[4200];
  snprintf(p0, sizeof p0, "%s/model_temp/part-00000-of-00002", dir);
  snprintf(p1, sizeof p1, "%s/model_temp/part-00001-of-00002", dir);
  snprintf(dest, sizeof dest, "%s/model", dir);
  tfc_tensor *a = make(TFC_DT_FLOAT, (int64_t[]){2}, 1, (float[]){1, 2});
  tfc_tensor *b = make(TFC_DT_INT64, NULL, 0, (int64_t[]){7});
  tfc_tensor *c = make(TFC_DT_STRING, (int64_t[]){1}, 1, (const char *[]){"str"});
  tfc_tensor *s0[] = {a, c}, *s1[] = {b};
  write_bundle(p0, (const char *[]){"z_a", "c"}, s0, 2);
  write_bundle(p1, (const char *[]){"b"}, s1, 1);
  tfc_status s;
  tfc_status_init(&s);
  const char *srcs[] = {p0, p1};
  EXPECT_EQ(tfc_bundle_merge(srcs, 2, dest, &s), TFC_OK);
  EXPECT_TRUE(!tfc_bundle_exists(p0) && !tfc_bundle_exists(p1));
  char f[4300];
  snprintf(f, sizeof f, "%s.data-00001-of-00002", dest);
  EXPECT_EQ(access(f, F_OK), 0);
  tfc_bundle_reader *r = tfc_bundle_reader_open(dest, &s);
  EXPECT_TRUE(r != NULL);
  tfc_tensor *got;
  expect_same(got = tfc_bundle_reader_read(r, "z_a", &s), a);
  tfc_tensor_unref(got);
  expect_same(got = tfc_bundle_reader_read(r, "b", &s), b);
  tfc_tensor_unref(got);
  expect_same(got = tfc_bundle_reader_read(r, "c", &s), c);
  tfc_tensor_unref(got);
  tfc_bundle_reader_free(r);
  /* A key in two sources. */
  write_bundle(p0, (const char *[]){"b"}, s1, 1);
  write_bundle(p1, (const char *[]){"b"}, s1, 1);
  EXPECT_EQ(tfc_bundle_merge(srcs, 2, dest, &s), TFC_FAILED_PRECONDITION);
  char msg[8400];
  snprintf(msg, sizeof msg, "Duplicate tensor keyed by b encountered, when merging prefix: %s", p1);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  tfc_tensor_unref(a);
  tfc_tensor_unref(b);
  tfc_tensor_unref(c);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

static void bundle_delete_removes_all_files(void) {
  char *dir = tmp_dir();
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s/m[1]", dir); /* glob characters in the prefix */
  tfc_tensor *a = make(TFC_DT_FLOAT, NULL, 0, (float[]){1});
  write_bundle(prefix, (const char *[]){"a"}, &a, 1);
  EXPECT_EQ(count_files(dir), 2);
  EXPECT_EQ(tfc_bundle_delete(prefix), 2);
  EXPECT_EQ(count_files(dir), 0);
  EXPECT_TRUE(!tfc_bundle_exists(prefix));
  tfc_tensor_unref(a);
  rm_tree(dir);
  free(dir);
}

static void touch(const char *dir, const char *name) {
  char p[8192];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  EXPECT_TRUE(f != NULL);
  fputs("partial", f);
  fclose(f);
}

static int exists_in(const char *dir, const char *name) {
  char p[8192];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

/* A killed save's temporaries of the prefix go; a live writer's (its flock held), another
 * prefix's and everything that is not a temporary stay; the live writer then finishes. */
static void bundle_stale_temps_go_live_ones_stay(void) {
  char *dir = tmp_dir();
  char save_path[4200], live[4300];
  snprintf(save_path, sizeof save_path, "%s/model.ckpt", dir);
  static const char *const stale[] = {"model.ckpt-600.data-00000-of-00001.tempstate123",
                                      "model.ckpt-600.index.tempstate18446744073709551615",
                                      "model.ckpt.index.tempstate7"};
  static const char *const kept[] = {"model.ckpt-2.index",        "model.ckpt-other-5.index.tempstate9",
                                     "other-600.index.tempstate9", "model.ckpt-600.index.tempstate",
                                     "model.ckpt-600.index.tempstate12x", "model.ckpt-600.meta.tempstate3"};
  for (size_t i = 0; i < sizeof stale / sizeof *stale; i++) touch(dir, stale[i]);
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) touch(dir, kept[i]);
  /* A live writer of this process, mid-save. */
  snprintf(live, sizeof live, "%s-700", save_path);
  tfc_status s;
  tfc_status_init(&s);
  tfc_bundle_writer *w = tfc_bundle_writer_new(live, &s);
  EXPECT_TRUE(w != NULL);
  tfc_tensor *a = make(TFC_DT_FLOAT, NULL, 0, (float[]){7});
  EXPECT_EQ(tfc_bundle_writer_add(w, "a", a, &s), TFC_OK);
  /* A temporary another process holds (its lock taken through another descriptor). */
  char held[8192];
  snprintf(held, sizeof held, "%s/model.ckpt-800.index.tempstate55", dir);
  int fd = open(held, O_WRONLY | O_CREAT, 0666);
  EXPECT_TRUE(fd >= 0);
  EXPECT_EQ(flock(fd, LOCK_EX), 0);
  int before = count_files(dir);
  EXPECT_EQ(tfc_bundle_remove_stale_temps(save_path), 3);
  EXPECT_EQ(count_files(dir), before - 3);
  for (size_t i = 0; i < sizeof stale / sizeof *stale; i++) EXPECT_TRUE(!exists_in(dir, stale[i]));
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) EXPECT_TRUE(exists_in(dir, kept[i]));
  EXPECT_EQ(access(held, F_OK), 0);
  EXPECT_EQ(tfc_bundle_writer_finish(w, &s), TFC_OK);
  tfc_bundle_writer_free(w);
  EXPECT_EQ(tfc_bundle_verify(live, &s), TFC_OK);
  /* Once its holder is gone, the held one is stale too. */
  close(fd);
  EXPECT_EQ(tfc_bundle_remove_stale_temps(save_path), 1);
  EXPECT_EQ(access(held, F_OK), -1);
  tfc_tensor_unref(a);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

/* verify reads every tensor: a flipped data byte or a missing data file is found without a
 * session. */
static void bundle_verify_reads_every_tensor(void) {
  char *dir = tmp_dir();
  char prefix[4200], data[4300];
  snprintf(prefix, sizeof prefix, "%s/m", dir);
  snprintf(data, sizeof data, "%s.data-00000-of-00001", prefix);
  tfc_tensor *ts[2] = {make(TFC_DT_FLOAT, (int64_t[]){3}, 1, (float[]){1, 2, 3}),
                       make(TFC_DT_INT64, NULL, 0, (int64_t[]){5})};
  write_bundle(prefix, (const char *[]){"a", "b"}, ts, 2);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_bundle_verify(prefix, &s), TFC_OK);
  FILE *f = fopen(data, "r+b");
  EXPECT_TRUE(f != NULL);
  fseek(f, 13, SEEK_SET); /* inside "b" (after a's 12 bytes) */
  fputc(0x5a, f);
  fclose(f);
  EXPECT_EQ(tfc_bundle_verify(prefix, &s), TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Checksum does not match");
  EXPECT_CONTAINS(tfc_status_msg(&s), "tensor 'b'");
  EXPECT_CONTAINS(tfc_status_msg(&s), data);
  tfc_status_clear(&s);
  EXPECT_EQ(unlink(data), 0);
  EXPECT_EQ(tfc_bundle_verify(prefix, &s), TFC_NOT_FOUND);
  EXPECT_CONTAINS(tfc_status_msg(&s), data);
  tfc_status_clear(&s);
  char missing[4300];
  snprintf(missing, sizeof missing, "%s/none", dir);
  EXPECT_EQ(tfc_bundle_verify(missing, &s), TFC_NOT_FOUND);
  EXPECT_CONTAINS(tfc_status_msg(&s), "none.index");
  tfc_tensor_unref(ts[0]);
  tfc_tensor_unref(ts[1]);
  rm_tree(dir);
  free(dir);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(bundle_round_trips_every_dtype),
    TFC_TEST(bundle_restores_tf_written_checkpoint),
    TFC_TEST(bundle_writes_tf_identical_bytes),
    TFC_TEST(bundle_missing_key_is_not_found_with_tf_text),
    TFC_TEST(bundle_corrupt_data_is_data_loss_naming_file),
    TFC_TEST(bundle_entry_shape_larger_than_its_bytes_is_data_loss),
    TFC_TEST(bundle_rejects_duplicate_and_empty_keys),
    TFC_TEST(bundle_failed_finish_keeps_previous_bundle),
    TFC_TEST(bundle_merge_renumbers_shards),
    TFC_TEST(bundle_delete_removes_all_files),
    TFC_TEST(bundle_stale_temps_go_live_ones_stay),
    TFC_TEST(bundle_verify_reads_every_tensor),
    {0}};
TFC_TEST_MAIN(tests)

/* libFuzzer harness: V2 checkpoint reading — the table format of "<prefix>.index" (io/table.h)
 * and the tensor bundle over it (io/bundle.h), as RestoreV2 and the checkpoint tools read them.
 *
 * Input: a little-endian uint32 n, then the index file's bytes (n & 0x7fffffff of them, or all
 * that remain), then the data file's bytes. Unless n's top bit is set, the harness first
 * repairs the checksums of the index file's blocks it can find (the index block and the
 * metaindex block named by the footer, the data blocks named by the index block), as a
 * fuzzer cannot: otherwise almost every mutation of the index would stop at "block checksum
 * mismatch" and the block parser would never see it. It writes the files as <tmp>/ck.index and
 * <tmp>/ck.data-00000-of-00001, walks every entry of the table (tfc_table_visit), looks every
 * key up again (tfc_table_get), opens the bundle and reads every tensor it names.
 *
 * TFC_FUZZ_DEBUG=1 prints what each input came to (when triaging or checking seeds).
 *
 * Checks beyond "no crash, no leak, no hang": every failure carries a status with a message; a
 * tensor that reads has the dtype and shape its lookup reported.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/bundle.h"
#include "io/crc32c.h"
#include "io/table.h"

static char g_dir[256], g_prefix[300], g_index[320], g_data[340];

static void cleanup(void) {
  unlink(g_index);
  unlink(g_data);
  rmdir(g_dir);
}

static void setup(void) {
  if (g_dir[0]) return;
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/tfc_fuzz_ckpt_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) abort();
  snprintf(g_prefix, sizeof g_prefix, "%s/ck", g_dir);
  snprintf(g_index, sizeof g_index, "%s.index", g_prefix);
  snprintf(g_data, sizeof g_data, "%s.data-00000-of-00001", g_prefix);
  atexit(cleanup);
}

static void write_file(const char *path, const uint8_t *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) abort();
}

typedef struct keys {
  char **k;
  size_t *len;
  int n;
} keys;

static int collect(void *arg, const char *key, size_t key_len, const char *value, size_t value_len) {
  keys *ks = arg;
  if (ks->n >= 4096) return 0; /* enough to read; the walk itself still covers the whole table */
  char **k = realloc(ks->k, sizeof *k * (size_t)(ks->n + 1));
  if (!k) abort();
  ks->k = k;
  size_t *len = realloc(ks->len, sizeof *len * (size_t)(ks->n + 1));
  if (!len) abort();
  ks->len = len;
  ks->k[ks->n] = malloc(key_len + 1);
  if (!ks->k[ks->n]) abort();
  if (key_len) memcpy(ks->k[ks->n], key, key_len);
  ks->k[ks->n][key_len] = 0;
  ks->len[ks->n] = key_len;
  ks->n++;
  return 0;
}

/* ---- checksum repair (the format as io/table.h describes it) ---- */

static int varint(const uint8_t **p, const uint8_t *end, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 1;
    }
  }
  return 0;
}

static uint32_t fixed32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Rewrites the trailer checksum of the block at (off, size); 0 when it does not fit. */
static int repair_block(uint8_t *f, size_t n, uint64_t off, uint64_t size) {
  if (off > n || size > n - off || n - off - size < 5) return 0;
  uint32_t crc = tfc_crc32c_mask(tfc_crc32c(f + off, (size_t)size + 1));
  for (int i = 0; i < 4; i++) f[off + size + 1 + (size_t)i] = (uint8_t)(crc >> (8 * i));
  return 1;
}

static void repair_index(uint8_t *f, size_t n) {
  if (n < 48) return;
  const uint8_t *p = f + n - 48, *end = f + n - 8;
  uint64_t meta_off, meta_size, off, size;
  if (!varint(&p, end, &meta_off) || !varint(&p, end, &meta_size) || !varint(&p, end, &off) ||
      !varint(&p, end, &size))
    return;
  repair_block(f, n, meta_off, meta_size);
  if (!repair_block(f, n, off, size) || size < 4) return;
  /* The index block's entries: shared, non_shared, value_len, key delta, handle. */
  uint32_t n_restarts = fixed32(f + off + size - 4);
  if (n_restarts > (size - 4) / 4) return;
  const uint8_t *q = f + off, *qend = f + off + size - 4 - 4 * (uint64_t)n_restarts;
  for (int i = 0; i < 4096 && q < qend; i++) {
    uint64_t shared, non_shared, vlen, boff, bsize;
    if (!varint(&q, qend, &shared) || !varint(&q, qend, &non_shared) || !varint(&q, qend, &vlen)) return;
    if (non_shared > (uint64_t)(qend - q) || vlen > (uint64_t)(qend - q) - non_shared) return;
    q += non_shared;
    const uint8_t *h = q;
    q += vlen;
    if (varint(&h, q, &boff) && varint(&h, q, &bsize)) repair_block(f, n, boff, bsize);
  }
}

static void check_failed(int rc, const tfc_status *s) {
  if (getenv("TFC_FUZZ_DEBUG")) fprintf(stderr, "%s\n", tfc_status_msg(s));
  if (rc == TFC_OK || tfc_status_ok(s) || !*tfc_status_msg(s)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  setup();
  size_t n = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
  data += 4;
  size -= 4;
  int repair = !(n & 0x80000000u);
  n &= 0x7fffffffu;
  if (n > size) n = size;
  if (repair) {
    uint8_t *index = malloc(n ? n : 1);
    if (!index) abort();
    if (n) memcpy(index, data, n);
    repair_index(index, n);
    write_file(g_index, index, n);
    free(index);
  } else {
    write_file(g_index, data, n);
  }
  write_file(g_data, data + n, size - n);

  tfc_status s;
  tfc_status_init(&s);
  keys ks = {NULL, NULL, 0};
  tfc_table *t = tfc_table_open(g_index, &s);
  if (!t) {
    check_failed(s.code, &s);
  } else {
    int rc = tfc_table_visit(t, collect, &ks, &s);
    if (rc) check_failed(rc, &s);
    tfc_status_clear(&s);
    for (int i = 0; i < ks.n; i++) {
      const char *v;
      size_t vlen;
      if (tfc_table_get(t, ks.k[i], ks.len[i], &v, &vlen, &s) < 0) check_failed(s.code, &s);
      tfc_status_clear(&s);
    }
    tfc_table_free(t);
  }

  tfc_bundle_reader *r = tfc_bundle_reader_open(g_prefix, &s);
  if (!r) {
    check_failed(s.code, &s);
  } else {
    for (int i = 0; i < ks.n; i++) {
      /* The header entry's key is ""; keys with a NUL byte cannot be asked for by name. */
      if (ks.len[i] == 0 || strlen(ks.k[i]) != ks.len[i]) continue;
      tfc_status_clear(&s);
      int dtype, ndims;
      int64_t dims[TFC_MAX_DIMS];
      if (tfc_bundle_reader_lookup(r, ks.k[i], &dtype, &ndims, dims, &s)) {
        check_failed(s.code, &s);
        continue;
      }
      tfc_tensor *x = tfc_bundle_reader_read(r, ks.k[i], &s);
      if (!x) {
        check_failed(s.code, &s);
        continue;
      }
      if (x->dtype != dtype || x->ndims != ndims || memcmp(x->dims, dims, sizeof *dims * (size_t)ndims) != 0)
        abort();
      if (getenv("TFC_FUZZ_DEBUG")) fprintf(stderr, "read %s\n", ks.k[i]);
      tfc_tensor_unref(x);
    }
    tfc_bundle_reader_free(r);
  }
  for (int i = 0; i < ks.n; i++) free(ks.k[i]);
  free(ks.k);
  free(ks.len);
  tfc_status_fini(&s);
  return 0;
}

/*
 * tfc_data — `tfc data fashion-mnist --out DIR [--from IDX_DIR]`: converts Debian's
 * dataset-fashion-mnist package (four gzipped idx files) to TFRecord files of
 * tf.train.Example records, the input the Fashion-MNIST training examples read:
 *
 *   DIR/train.tfrecords  60,000 examples (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz)
 *   DIR/test.tfrecords   10,000 examples (t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz)
 *
 * Each Example has features image_raw (bytes: the rows*cols uint8 pixels), pixels (int64 list:
 * the same pixels) and label (int64), in the idx files' order. The idx format: big-endian
 * magic 0x00000803 (uint8, 3 dims) or 0x00000801 (uint8, 1 dim), then the dims, then the data.
 *
 * The Example bytes are written directly in protobuf's wire format (map entries in key order,
 * int64 lists packed, as TF's own serializer writes them). --limit N keeps the first N examples
 * of each split (small datasets for tests and quick runs). Each output is written under a
 * temporary name and renamed when complete, so an interrupted run never leaves a partial file
 * under the final name; every input is read and checked before the output directory is made,
 * and a failed run removes what it wrote.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "io/record.h"
#include "tfc_tool.h"

#define DEFAULT_IDX_DIR "/usr/share/datasets/fashion-mnist"

typedef struct idx_file {
  uint32_t n, rows, cols; /* rows = cols = 1 for labels */
  uint8_t *data;
} idx_file;

/* Reads a whole gzipped idx file of `ndims` (1 or 3) uint8 dims. Returns 0, or 1 with a
 * message naming the file. */
static int read_idx(const char *path, int ndims, idx_file *out) {
  memset(out, 0, sizeof *out);
  if (access(path, F_OK) != 0) {
    fprintf(stderr,
            "tfc data: %s: No such file or directory\n"
            "Install Debian's dataset-fashion-mnist package (apt-get install dataset-fashion-mnist) "
            "or pass --from DIR with the four idx .gz files.\n",
            path);
    return 1;
  }
  gzFile f = gzopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tfc data: %s: cannot open: %s\n", path, strerror(errno));
    return 1;
  }
  uint8_t head[16];
  int want_head = 4 + 4 * ndims;
  if (gzread(f, head, (unsigned)want_head) != want_head) {
    fprintf(stderr, "tfc data: %s: truncated idx header\n", path);
    gzclose(f);
    return 1;
  }
  uint32_t v[4];
  for (int i = 0; i < 1 + ndims; i++)
    v[i] = (uint32_t)head[4 * i] << 24 | (uint32_t)head[4 * i + 1] << 16 | (uint32_t)head[4 * i + 2] << 8 | head[4 * i + 3];
  if (v[0] != (uint32_t)(0x800 | ndims)) {
    fprintf(stderr, "tfc data: %s: bad idx magic 0x%08x (want 0x%08x: uint8 data of %d dims)\n", path, v[0],
            0x800 | ndims, ndims);
    gzclose(f);
    return 1;
  }
  out->n = v[1];
  out->rows = ndims == 3 ? v[2] : 1;
  out->cols = ndims == 3 ? v[3] : 1;
  if (out->n == 0 || out->n > 10000000 || out->rows == 0 || out->cols == 0 || out->rows * (uint64_t)out->cols > 1 << 20) {
    fprintf(stderr, "tfc data: %s: implausible idx dims %u x %u x %u\n", path, out->n, out->rows, out->cols);
    gzclose(f);
    return 1;
  }
  size_t total = (size_t)out->n * out->rows * out->cols;
  out->data = malloc(total);
  if (!out->data) {
    fprintf(stderr, "tfc data: %s: out of memory\n", path);
    gzclose(f);
    return 1;
  }
  size_t got = 0;
  while (got < total) {
    size_t chunk = total - got > (1u << 30) ? (1u << 30) : total - got;
    int r = gzread(f, out->data + got, (unsigned)chunk);
    if (r <= 0) break;
    got += (size_t)r;
  }
  /* zlib's message lives in the gzFile: copy it before gzclose frees it. */
  int errnum = 0;
  char zmsg[256];
  const char *z = gzerror(f, &errnum);
  size_t plen = strlen(path);
  if (strncmp(z, path, plen) == 0 && strncmp(z + plen, ": ", 2) == 0) z += plen + 2; /* zlib names the file */
  snprintf(zmsg, sizeof zmsg, "%s", z);
  gzclose(f);
  if (got < total) {
    fprintf(stderr, "tfc data: %s: truncated: %zu of %zu data bytes%s%s\n", path, got, total,
            errnum < 0 && zmsg[0] ? ": " : "", errnum < 0 ? zmsg : "");
    free(out->data);
    out->data = NULL;
    return 1;
  }
  return 0;
}

/* ---- Example wire format ------------------------------------------------------------------ */

static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}
static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}
/* tag + length prefix of a length-delimited field. */
static size_t put_len(uint8_t *p, int field, size_t len) {
  p[0] = (uint8_t)(field << 3 | 2);
  return 1 + put_varint(p + 1, len);
}
static size_t len_field(size_t len) { return 1 + varint_len(len) + len; }

/* One map entry {key, Feature{kind: list}} whose list payload is `list` (list_len bytes). */
static size_t put_entry(uint8_t *p, const char *key, int kind, const uint8_t *list, size_t list_len) {
  size_t klen = strlen(key);
  size_t feature = len_field(list_len);
  size_t entry = len_field(klen) + len_field(feature);
  size_t n = put_len(p, 1, entry);
  n += put_len(p + n, 1, klen);
  memcpy(p + n, key, klen);
  n += klen;
  n += put_len(p + n, 2, feature);
  n += put_len(p + n, kind, list_len);
  memcpy(p + n, list, list_len);
  return n + list_len;
}

/* Serializes one Example into buf (large enough: see example_bound); returns its length. */
static size_t encode_example(uint8_t *buf, uint8_t *scratch, const uint8_t *pix, size_t npix, int label) {
  uint8_t *features = buf + 16; /* room for the Example's own tag and length */
  size_t n = 0;
  /* image_raw: BytesList{value: pixels} */
  size_t l = put_len(scratch, 1, npix);
  memcpy(scratch + l, pix, npix);
  n += put_entry(features + n, "image_raw", 1, scratch, l + npix);
  /* label: Int64List{value: [label]} packed */
  uint8_t one[16];
  size_t vl = put_varint(one + 2, (uint64_t)label);
  size_t ll = put_len(one, 1, vl);
  memmove(one + ll, one + 2, vl);
  n += put_entry(features + n, "label", 3, one, ll + vl);
  /* pixels: Int64List{value: pixels} packed (values < 128 take one byte, others two) */
  size_t packed = 0;
  for (size_t i = 0; i < npix; i++) packed += varint_len(pix[i]);
  l = put_len(scratch, 1, packed);
  for (size_t i = 0; i < npix; i++) l += put_varint(scratch + l, pix[i]);
  n += put_entry(features + n, "pixels", 3, scratch, l);
  uint8_t head[16];
  size_t hl = put_len(head, 1, n);
  memmove(buf + hl, features, n);
  memcpy(buf, head, hl);
  return hl + n;
}

static size_t example_bound(size_t npix) { return 4 * npix + 256; }

/* ---- conversion ----------------------------------------------------------------------------- */

/* Creates dir and its missing parents; *first_created is the outermost directory it made
 * (empty when it made none), for remove_created to undo. */
static int mkdir_p(const char *dir, char *first_created, size_t n) {
  char path[4096];
  first_created[0] = '\0';
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1;; p++) {
    if (*p == '/' || !*p) {
      char c = *p;
      *p = 0;
      if (mkdir(path, 0777) == 0) {
        if (!first_created[0]) snprintf(first_created, n, "%s", path);
      } else if (errno != EEXIST) {
        fprintf(stderr, "tfc data: cannot create %s: %s\n", path, strerror(errno));
        return 1;
      }
      *p = c;
      if (!c) break;
    }
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "tfc data: %s is not a directory\n", dir);
    return 1;
  }
  return 0;
}

/* Undoes a failed run: the outputs it wrote, then the directories it created (innermost
 * first; rmdir leaves any that hold something else). */
static void remove_created(const char *out_dir, const char *first_created, const char *const *written, int n_written) {
  for (int i = 0; i < n_written; i++) unlink(written[i]);
  if (!first_created[0]) return;
  char path[4096];
  snprintf(path, sizeof path, "%s", out_dir);
  size_t keep = strlen(first_created);
  for (;;) {
    size_t len = strlen(path);
    while (len > keep && path[len - 1] == '/') path[--len] = '\0';
    if (len < keep || rmdir(path) != 0 || len == keep) break;
    char *slash = strrchr(path, '/');
    if (!slash) break;
    *slash = '\0';
  }
}

typedef struct split {
  const char *prefix, *name; /* idx file prefix, output file name */
  idx_file images, labels;
} split;

/* Reads and checks one split's two idx files. Returns 0, or 1 with a message. */
static int load_split(const char *from, split *sp, uint32_t limit) {
  char ip[4096], lp[4096];
  snprintf(ip, sizeof ip, "%s/%s-images-idx3-ubyte.gz", from, sp->prefix);
  snprintf(lp, sizeof lp, "%s/%s-labels-idx1-ubyte.gz", from, sp->prefix);
  if (read_idx(ip, 3, &sp->images) || read_idx(lp, 1, &sp->labels)) return 1;
  if (sp->images.n != sp->labels.n) {
    fprintf(stderr, "tfc data: %s has %u images but %s has %u labels\n", ip, sp->images.n, lp, sp->labels.n);
    return 1;
  }
  if (limit < sp->images.n) sp->images.n = sp->labels.n = limit;
  return 0;
}

/* Writes one split as out_dir/name. Returns 0, or 1 with a message and no file left. */
static int write_split(const split *sp, const char *out_dir, char *final, size_t final_len) {
  char tmp[4200];
  snprintf(final, final_len, "%s/%s", out_dir, sp->name);
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", final, (int)getpid());
  int rc = 1;
  tfc_record_writer *w = NULL;
  tfc_status s;
  tfc_status_init(&s);
  size_t npix = (size_t)sp->images.rows * sp->images.cols;
  uint8_t *buf = malloc(example_bound(npix)), *scratch = malloc(example_bound(npix));
  if (!buf || !scratch) {
    fprintf(stderr, "tfc data: out of memory\n");
    goto out;
  }
  w = tfc_record_writer_open(tmp, TFC_COMPRESSION_NONE, 0, &s);
  if (!w) goto fail;
  for (uint32_t i = 0; i < sp->images.n; i++) {
    size_t len = encode_example(buf, scratch, sp->images.data + (size_t)i * npix, npix, sp->labels.data[i]);
    if (tfc_record_write(w, buf, len, &s)) goto fail;
  }
  tfc_record_writer *done = w;
  w = NULL;
  if (tfc_record_writer_close(done, &s)) goto fail;
  if (rename(tmp, final) != 0) {
    fprintf(stderr, "tfc data: cannot rename %s to %s: %s\n", tmp, final, strerror(errno));
    unlink(tmp);
    goto out;
  }
  printf("wrote %s: %u examples\n", final, sp->images.n);
  fflush(stdout);
  rc = 0;
  goto out;
fail:
  fprintf(stderr, "tfc data: %s: %s\n", tfc_code_name(s.code), tfc_status_msg(&s));
  tfc_status_clear(&s);
  tfc_record_writer_close(w, &s);
  unlink(tmp);
out:
  tfc_status_fini(&s);
  free(buf);
  free(scratch);
  return rc;
}

/* Reads every input before creating anything, so bad input leaves no output directory; a
 * failure while writing removes what this run wrote and created. */
static int convert(const char *from, const char *out_dir, uint32_t limit) {
  split splits[2] = {{.prefix = "train", .name = "train.tfrecords"}, {.prefix = "t10k", .name = "test.tfrecords"}};
  char written[2][4096], first_created[4096] = "";
  const char *done[2];
  int n_done = 0, rc = 1;
  for (int i = 0; i < 2; i++)
    if (load_split(from, &splits[i], limit)) goto out;
  if (mkdir_p(out_dir, first_created, sizeof first_created)) goto out;
  for (int i = 0; i < 2; i++) {
    if (write_split(&splits[i], out_dir, written[i], sizeof written[i])) {
      remove_created(out_dir, first_created, done, n_done);
      goto out;
    }
    done[n_done++] = written[i];
  }
  rc = 0;
out:
  for (int i = 0; i < 2; i++) {
    free(splits[i].images.data);
    free(splits[i].labels.data);
  }
  return rc;
}

static int data_usage(void) {
  fprintf(stderr, "usage: tfc data fashion-mnist --out DIR [--from IDX_DIR] [--limit N]\n"
                  "  IDX_DIR defaults to " DEFAULT_IDX_DIR " (Debian's dataset-fashion-mnist)\n");
  return 2;
}

int tfc_tool_data(int argc, char **argv) {
  if (argc < 1 || strcmp(argv[0], "fashion-mnist") != 0) {
    if (argc >= 1) fprintf(stderr, "tfc data: unknown dataset '%s' (known: fashion-mnist)\n", argv[0]);
    return data_usage();
  }
  const char *out = NULL, *from = DEFAULT_IDX_DIR;
  uint32_t limit = UINT32_MAX;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
      from = argv[++i];
    } else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1) {
        fprintf(stderr, "tfc data: --limit takes a positive count, not '%s'\n", argv[i]);
        return data_usage();
      }
      limit = v > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    } else {
      fprintf(stderr, "tfc data: unexpected argument '%s'\n", argv[i]);
      return data_usage();
    }
  }
  if (!out) return data_usage();
  /* Check every input exists before writing anything. */
  static const char *inputs[] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                 "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
  for (int i = 0; i < 4; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", from, inputs[i]);
    if (access(p, R_OK) != 0) {
      fprintf(stderr,
              "tfc data: %s: No such file or directory\n"
              "Install Debian's dataset-fashion-mnist package (apt-get install dataset-fashion-mnist) "
              "or pass --from DIR with the four idx .gz files.\n",
              p);
      return 1;
    }
  }
  return convert(from, out, limit);
}

/*
 * record — TFRecord reading and writing; the format and error rules are in record.h.
 *
 * Reader design: one window of *uncompressed* bytes (buf[pos, end)) refilled from the file,
 * either by read(2) directly or through inflate. A record is returned as a pointer into the
 * window whenever it fits, so the common case (records much smaller than the 256 KiB window)
 * copies each byte once, from the kernel into the window, and checksums it in place. A record
 * larger than the window grows it by doubling, and only while the window is full of real bytes,
 * so a corrupt length that passes its checksum can never make us allocate more than twice what
 * the file actually holds. The window's position is advanced only after a record has been
 * verified, so a failed read leaves the reader at the failed record.
 *
 * Writer design: records are framed into an output buffer (or through deflate into it) and the
 * buffer goes to write(2) when full; a record larger than the buffer bypasses it. Compressed
 * streams use zlib's own framing: windowBits 15 for "ZLIB", 15 + 16 for "GZIP", as TF's
 * ZlibCompressionOptions do.
 *
 * File errors follow TF's IOError: "<path>; <strerror>" with the code derived from errno.
 */
#include "io/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "io/crc32c.h"

/* 256 KiB: large enough that read(2) and inflate calls are a negligible share of the time, small
 * enough to stay in L2 together with the parser's working set. */
#define RECORD_BUF_SIZE (256u * 1024u)
#define HEADER_SIZE 12u
#define FOOTER_SIZE 4u

/* ---- errors ---------------------------------------------------------------------------- */

/* TF's errno -> code mapping (core/platform/posix/error.cc), for the errors files produce. */
static int errno_code(int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
    case ESRCH:
      return TFC_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS:
      return TFC_PERMISSION_DENIED;
    case EEXIST:
      return TFC_ALREADY_EXISTS;
    case EISDIR:
    case ENOTDIR:
    case EBADF:
    case EBUSY:
    case ETXTBSY:
      return TFC_FAILED_PRECONDITION;
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case EFBIG:
      return TFC_RESOURCE_EXHAUSTED;
    case EINVAL:
    case ENAMETOOLONG:
    case ELOOP:
      return TFC_INVALID_ARGUMENT;
    case EAGAIN:
    case EINTR:
      return TFC_UNAVAILABLE;
    default:
      return TFC_UNKNOWN;
  }
}

int tfc_io_file_error(tfc_status *s, int err, const char *path) {
  return tfc_status_set(s, errno_code(err), "%s; %s", path, strerror(err));
}

static int io_error(tfc_status *s, int err, const char *path) { return tfc_io_file_error(s, err, path); }

int tfc_compression_parse(const char *name, tfc_compression *out, tfc_status *s) {
  if (!name || !*name) {
    *out = TFC_COMPRESSION_NONE;
  } else if (!strcmp(name, "ZLIB")) {
    *out = TFC_COMPRESSION_ZLIB;
  } else if (!strcmp(name, "GZIP")) {
    *out = TFC_COMPRESSION_GZIP;
  } else {
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Unsupported compression_type: '%s' (expected \"\", \"ZLIB\" or \"GZIP\")",
                          name);
  }
  return TFC_OK;
}

static int zlib_window_bits(tfc_compression c) { return c == TFC_COMPRESSION_GZIP ? 15 + 16 : 15; }

static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static uint32_t get_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void tfc_record_frame_header(uint64_t len, const void *data, uint8_t header[12], uint8_t footer[4]) {
  put_le64(header, len);
  put_le32(header + 8, tfc_crc32c_mask(tfc_crc32c(header, 8)));
  put_le32(footer, tfc_crc32c_mask(tfc_crc32c(data, (size_t)len)));
}

/* ---- reader ---------------------------------------------------------------------------- */

struct tfc_record_reader {
  char *path;
  int fd;
  tfc_compression comp;
  uint8_t *buf; /* the uncompressed window */
  size_t cap, pos, end;
  uint64_t offset; /* uncompressed offset of buf[pos] */
  int eof;         /* no more uncompressed bytes will come */
  /* Compressed input (comp != NONE). */
  z_stream z;
  int z_ready;    /* inflateInit2 succeeded */
  int z_done;     /* the current zlib/gzip member ended */
  int z_started;  /* some compressed input was consumed */
  int file_eof;   /* read(2) returned 0 */
  int z_error;    /* inflate failed (its code); z_msg says why. The stream cannot go on */
  const char *z_msg;
  uint8_t *zin;
};

tfc_record_reader *tfc_record_reader_open(const char *path, tfc_compression c, tfc_status *s) {
  if ((unsigned)c >= TFC_COMPRESSION_COUNT) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s: unknown compression %d", path, (int)c);
    return NULL;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    io_error(s, errno, path);
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "%s; Is a directory", path);
    return NULL;
  }
  tfc_record_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->path = strdup(path)) || !(r->buf = malloc(RECORD_BUF_SIZE))) goto oom;
  r->fd = fd;
  r->comp = c;
  r->cap = RECORD_BUF_SIZE;
  if (c != TFC_COMPRESSION_NONE) {
    if (!(r->zin = malloc(RECORD_BUF_SIZE))) goto oom;
    if (inflateInit2(&r->z, zlib_window_bits(c)) != Z_OK) goto oom;
    r->z_ready = 1;
  }
  return r;
oom:
  TFC_OOM(s);
  if (r) {
    r->fd = -1;
    tfc_record_reader_free(r);
  }
  close(fd);
  return NULL;
}

void tfc_record_reader_free(tfc_record_reader *r) {
  if (!r) return;
  if (r->fd >= 0) close(r->fd);
  if (r->z_ready) inflateEnd(&r->z);
  free(r->zin);
  free(r->buf);
  free(r->path);
  free(r);
}

uint64_t tfc_record_reader_offset(const tfc_record_reader *r) { return r->offset; }
const char *tfc_record_reader_path(const tfc_record_reader *r) { return r->path; }

/* read(2) into p, retrying interrupted calls; returns bytes read (0 at the end) or -1. */
static ssize_t read_some(int fd, void *p, size_t n) {
  for (;;) {
    ssize_t got = read(fd, p, n);
    if (got >= 0 || errno != EINTR) return got;
  }
}

/* Appends some uncompressed bytes at buf[end, cap) (which is not empty), or sets eof. */
static int produce_plain(tfc_record_reader *r, tfc_status *s) {
  ssize_t got = read_some(r->fd, r->buf + r->end, r->cap - r->end);
  if (got < 0) return io_error(s, errno, r->path);
  if (got == 0) r->eof = 1;
  r->end += (size_t)got;
  return TFC_OK;
}

/* Appends some inflated bytes at buf[end, cap), or sets eof. Bytes inflated before damage in
 * the stream are handed out first; the damage is reported (every time) once more bytes are
 * needed, so the error names the record it is in and records whole before it still read. */
static int produce_inflated(tfc_record_reader *r, tfc_status *s) {
  if (r->z_error)
    return tfc_status_set(s, TFC_DATA_LOSS, "corrupted record at %llu in file %s: inflate() failed with error %d: %s",
                          (unsigned long long)r->offset, r->path, r->z_error, r->z_msg);
  for (;;) {
    if (r->z.avail_in == 0 && !r->file_eof) {
      ssize_t got = read_some(r->fd, r->zin, RECORD_BUF_SIZE);
      if (got < 0) return io_error(s, errno, r->path);
      if (got == 0) r->file_eof = 1;
      r->z.next_in = r->zin;
      r->z.avail_in = (uInt)got;
    }
    if (r->z_done) {
      if (r->z.avail_in == 0 && r->file_eof) {
        r->eof = 1;
        return TFC_OK;
      }
      if (r->z.avail_in == 0) continue;
      /* More input after a finished member: concatenated streams (gzip allows them). */
      inflateReset(&r->z);
      r->z_done = 0;
    }
    if (r->z.avail_in == 0 && r->file_eof) {
      if (!r->z_started) { /* an empty file is an empty stream */
        r->eof = 1;
        return TFC_OK;
      }
      return tfc_status_set(s, TFC_DATA_LOSS,
                            "truncated record at %llu in file %s: the compressed stream ends early",
                            (unsigned long long)r->offset, r->path);
    }
    r->z_started = 1;
    r->z.next_out = r->buf + r->end;
    r->z.avail_out = (uInt)(r->cap - r->end);
    int rc = inflate(&r->z, Z_NO_FLUSH);
    size_t made = (r->cap - r->end) - r->z.avail_out;
    r->end += made;
    if (rc == Z_STREAM_END) {
      r->z_done = 1;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      r->z_error = rc;
      r->z_msg = r->z.msg ? r->z.msg : "invalid compressed data"; /* zlib's static strings */
      return made ? TFC_OK : produce_inflated(r, s);
    }
    if (made) return TFC_OK;
  }
}

/* Makes buf[pos, pos + need) hold uncompressed bytes, or as many as remain before the end. */
static int fill(tfc_record_reader *r, size_t need, tfc_status *s) {
  if (r->end - r->pos >= need) return TFC_OK;
  if (r->pos) {
    memmove(r->buf, r->buf + r->pos, r->end - r->pos);
    r->end -= r->pos;
    r->pos = 0;
  }
  while (r->end < need && !r->eof) {
    if (r->end == r->cap) { /* full of real bytes: only now may the window grow */
      size_t cap = r->cap * 2;
      uint8_t *nb = realloc(r->buf, cap);
      if (!nb) return TFC_OOM(s);
      r->buf = nb;
      r->cap = cap;
    }
    TFC_TRY(r->comp == TFC_COMPRESSION_NONE ? produce_plain(r, s) : produce_inflated(r, s));
  }
  return TFC_OK;
}

/* The record header h (avail bytes of it present, avail > 0) at offset at: its data length in
 * *n, or DATA_LOSS. */
static int check_header(const uint8_t *h, size_t avail, unsigned long long at, const char *path, uint64_t *n,
                        tfc_status *s) {
  if (avail < HEADER_SIZE)
    return tfc_status_set(s, TFC_DATA_LOSS,
                          "truncated record at %llu in file %s: the file ends inside the record's "
                          "header (%zu of 12 bytes)",
                          at, path, avail);
  if (tfc_crc32c_unmask(get_le32(h + 8)) != tfc_crc32c(h, 8))
    return tfc_status_set(s, TFC_DATA_LOSS,
                          "corrupted record at %llu in file %s: the length's checksum does not match",
                          at, path);
  *n = get_le64(h);
  if (*n > (uint64_t)(SIZE_MAX / 4))
    return tfc_status_set(s, TFC_DATA_LOSS, "corrupted record at %llu in file %s: record size %llu too large",
                          at, path, (unsigned long long)*n);
  return TFC_OK;
}

static int truncated_record(unsigned long long at, const char *path, unsigned long long avail,
                            unsigned long long total, tfc_status *s) {
  return tfc_status_set(s, TFC_DATA_LOSS,
                        "truncated record at %llu in file %s: the file ends inside the record "
                        "(%llu of %llu bytes)",
                        at, path, avail, total);
}

int tfc_record_read(tfc_record_reader *r, const char **out, size_t *len, uint64_t *offset,
                    tfc_status *s) {
  unsigned long long at = (unsigned long long)r->offset;
  TFC_TRY(fill(r, HEADER_SIZE, s));
  size_t avail = r->end - r->pos;
  if (avail == 0) return tfc_status_set(s, TFC_OUT_OF_RANGE, "End of file");
  uint64_t n;
  TFC_TRY(check_header(r->buf + r->pos, avail, at, r->path, &n, s));
  size_t total = HEADER_SIZE + (size_t)n + FOOTER_SIZE;
  TFC_TRY(fill(r, total, s));
  avail = r->end - r->pos;
  if (avail < total) return truncated_record(at, r->path, avail, total, s);
  const uint8_t *data = r->buf + r->pos + HEADER_SIZE;
  if (tfc_crc32c_unmask(get_le32(data + n)) != tfc_crc32c(data, (size_t)n))
    return tfc_status_set(s, TFC_DATA_LOSS,
                          "corrupted record at %llu in file %s: the data's checksum does not match",
                          at, r->path);
  *out = (const char *)data;
  *len = (size_t)n;
  if (offset) *offset = r->offset;
  r->pos += total;
  r->offset += total;
  return TFC_OK;
}

int tfc_record_count(const char *path, tfc_compression c, uint64_t *count, tfc_status *s) {
  *count = 0;
  tfc_record_reader *r = tfc_record_reader_open(path, c, s);
  if (!r) return s->code;
  if (c != TFC_COMPRESSION_NONE) { /* a stream: every byte goes through inflate anyway */
    const char *data;
    size_t len;
    int rc;
    while ((rc = tfc_record_read(r, &data, &len, NULL, s)) == TFC_OK) ++*count;
    if (rc == TFC_OUT_OF_RANGE) tfc_status_clear(s);
    tfc_record_reader_free(r);
    return s->code;
  }
  /* Uncompressed: one positioned read of each header, the data skipped. */
  struct stat st;
  if (fstat(r->fd, &st) != 0) {
    io_error(s, errno, path);
    tfc_record_reader_free(r);
    return s->code;
  }
  uint64_t size = (uint64_t)st.st_size, at = 0;
  while (at < size) {
    uint8_t h[HEADER_SIZE];
    size_t want = size - at < HEADER_SIZE ? (size_t)(size - at) : HEADER_SIZE;
    ssize_t got;
    do got = pread(r->fd, h, want, (off_t)at);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
      io_error(s, errno, path);
      break;
    }
    uint64_t n;
    if (check_header(h, (size_t)got, (unsigned long long)at, path, &n, s)) break;
    uint64_t total = HEADER_SIZE + n + FOOTER_SIZE;
    if (total > size - at) {
      truncated_record((unsigned long long)at, path, (unsigned long long)(size - at), (unsigned long long)total, s);
      break;
    }
    at += total;
    ++*count;
  }
  tfc_record_reader_free(r);
  return s->code;
}

/* ---- writer ---------------------------------------------------------------------------- */

struct tfc_record_writer {
  char *path;
  int fd;
  tfc_compression comp;
  uint8_t *buf; /* bytes bound for the file (compressed when comp != NONE) */
  size_t n;
  z_stream z;
  int z_ready;
  int failed; /* a write failed: the file is incomplete, later calls fail too */
};

tfc_record_writer *tfc_record_writer_open(const char *path, tfc_compression c, int append,
                                          tfc_status *s) {
  if ((unsigned)c >= TFC_COMPRESSION_COUNT) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s: unknown compression %d", path, (int)c);
    return NULL;
  }
  if (append && c != TFC_COMPRESSION_NONE) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "%s: cannot append to a compressed TFRecord file (one stream per file)", path);
    return NULL;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0666);
  if (fd < 0) {
    io_error(s, errno, path);
    return NULL;
  }
  tfc_record_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->path = strdup(path)) || !(w->buf = malloc(RECORD_BUF_SIZE))) goto oom;
  w->fd = fd;
  w->comp = c;
  if (c != TFC_COMPRESSION_NONE) {
    if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, zlib_window_bits(c), 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
      goto oom;
    w->z_ready = 1;
  }
  return w;
oom:
  TFC_OOM(s);
  if (w) {
    free(w->buf);
    free(w->path);
    free(w);
  }
  close(fd);
  return NULL;
}

static int write_all(tfc_record_writer *w, const uint8_t *p, size_t n, tfc_status *s) {
  while (n) {
    ssize_t put = write(w->fd, p, n);
    if (put < 0) {
      if (errno == EINTR) continue;
      w->failed = 1;
      return io_error(s, errno, w->path);
    }
    p += put;
    n -= (size_t)put;
  }
  return TFC_OK;
}

static int drain(tfc_record_writer *w, tfc_status *s) {
  if (!w->n) return TFC_OK;
  size_t n = w->n;
  w->n = 0;
  return write_all(w, w->buf, n, s);
}

/* Runs deflate over p[0, n) with the given flush mode, collecting output in buf. */
static int deflate_into(tfc_record_writer *w, const void *p, size_t n, int flush, tfc_status *s) {
  w->z.next_in = (Bytef *)(uintptr_t)p;
  for (;;) {
    /* avail_in is 32 bits: feed very large records in pieces. */
    size_t piece = n > (1u << 30) ? (1u << 30) : n;
    w->z.avail_in = (uInt)piece;
    int f = piece == n ? flush : Z_NO_FLUSH;
    for (;;) {
      if (w->n == RECORD_BUF_SIZE) TFC_TRY(drain(w, s));
      w->z.next_out = w->buf + w->n;
      w->z.avail_out = (uInt)(RECORD_BUF_SIZE - w->n);
      int rc = deflate(&w->z, f);
      w->n = RECORD_BUF_SIZE - w->z.avail_out;
      if (rc == Z_STREAM_ERROR) {
        w->failed = 1;
        return tfc_status_set(s, TFC_INTERNAL, "%s: deflate() failed", w->path);
      }
      if (f == Z_FINISH ? rc == Z_STREAM_END : (w->z.avail_in == 0 && w->z.avail_out != 0)) break;
    }
    n -= piece;
    if (!n) return TFC_OK;
  }
}

static int put_bytes(tfc_record_writer *w, const void *p, size_t n, tfc_status *s) {
  if (w->comp != TFC_COMPRESSION_NONE) return deflate_into(w, p, n, Z_NO_FLUSH, s);
  if (n > RECORD_BUF_SIZE - w->n) {
    TFC_TRY(drain(w, s));
    if (n >= RECORD_BUF_SIZE) return write_all(w, p, n, s);
  }
  memcpy(w->buf + w->n, p, n);
  w->n += n;
  return TFC_OK;
}

static int check_usable(tfc_record_writer *w, tfc_status *s) {
  if (!w->failed) return TFC_OK;
  return tfc_status_set(s, TFC_FAILED_PRECONDITION,
                        "%s: an earlier write to this TFRecord file failed", w->path);
}

int tfc_record_write(tfc_record_writer *w, const void *data, size_t len, tfc_status *s) {
  TFC_TRY(check_usable(w, s));
  uint8_t header[HEADER_SIZE], footer[FOOTER_SIZE];
  tfc_record_frame_header(len, data, header, footer);
  TFC_TRY(put_bytes(w, header, sizeof header, s));
  TFC_TRY(put_bytes(w, data, len, s));
  return put_bytes(w, footer, sizeof footer, s);
}

int tfc_record_writer_flush(tfc_record_writer *w, tfc_status *s) {
  TFC_TRY(check_usable(w, s));
  if (w->comp != TFC_COMPRESSION_NONE) TFC_TRY(deflate_into(w, "", 0, Z_SYNC_FLUSH, s));
  return drain(w, s);
}

int tfc_record_writer_close(tfc_record_writer *w, tfc_status *s) {
  if (!w) return TFC_OK;
  int rc = check_usable(w, s);
  if (rc == TFC_OK && w->comp != TFC_COMPRESSION_NONE) rc = deflate_into(w, "", 0, Z_FINISH, s);
  if (rc == TFC_OK) rc = drain(w, s);
  if (close(w->fd) != 0 && rc == TFC_OK) rc = io_error(s, errno, w->path);
  if (w->z_ready) deflateEnd(&w->z);
  free(w->buf);
  free(w->path);
  free(w);
  return rc;
}

/*
 * msg — see msg.h.
 */
#include "distributed_runtime/msg.h"

#include <stdlib.h>
#include <string.h>

/* Small copied pieces go into one growing tail block instead of a segment each, so a message
 * of many small fields stays a handful of slices. */
#define TAIL_BLOCK 4096

tfc_msg_out *tfc_msg_out_new(void) { return calloc(1, sizeof(tfc_msg_out)); }

static void release_seg(tfc_msg_seg *g) {
  if (g->release) g->release(g->release_arg);
  g->release = NULL;
}

void tfc_msg_out_free(tfc_msg_out *m) {
  if (!m) return;
  for (int i = 0; i < m->n_segs; i++) release_seg(&m->segs[i]);
  free(m->segs);
  free(m);
}

static int push(tfc_msg_out *m, tfc_msg_seg g) {
  if (m->n_segs == m->cap_segs) {
    int cap = m->cap_segs ? m->cap_segs * 2 : 8;
    tfc_msg_seg *a = realloc(m->segs, sizeof *a * (size_t)cap);
    if (!a) {
      m->oom = 1;
      release_seg(&g);
      return -1;
    }
    m->segs = a;
    m->cap_segs = cap;
  }
  m->segs[m->n_segs++] = g;
  m->len += g.len;
  return 0;
}

/* Owned tail blocks: the segment's release_arg is the block; its capacity is tracked by
 * `tail_cap` below only while it is the last segment. */
typedef struct tail_block {
  size_t cap;
  uint8_t data[];
} tail_block;

static void free_block(void *p) { free(p); }

int tfc_msg_out_append(tfc_msg_out *m, const void *data, size_t len) {
  if (m->oom) return -1;
  if (len == 0) return 0;
  tfc_msg_seg *last = m->n_segs ? &m->segs[m->n_segs - 1] : NULL;
  if (last && last->release == free_block) {
    tail_block *b = last->release_arg;
    if (last->len + len <= b->cap) {
      memcpy(b->data + last->len, data, len);
      last->len += len;
      m->len += len;
      return 0;
    }
  }
  size_t cap = len > TAIL_BLOCK ? len : TAIL_BLOCK;
  tail_block *b = malloc(sizeof *b + cap);
  if (!b) {
    m->oom = 1;
    return -1;
  }
  b->cap = cap;
  memcpy(b->data, data, len);
  return push(m, (tfc_msg_seg){b->data, len, free_block, b});
}

int tfc_msg_out_append_owned(tfc_msg_out *m, void *data, size_t len) {
  if (m->oom) {
    free(data);
    return -1;
  }
  if (len == 0) {
    free(data);
    return 0;
  }
  /* A plain free() of the block: not a tail block, so nothing is appended into it. */
  return push(m, (tfc_msg_seg){data, len, free, data});
}

int tfc_msg_out_append_ref(tfc_msg_out *m, const void *data, size_t len, void (*release)(void *), void *arg) {
  if (m->oom) {
    if (release) release(arg);
    return -1;
  }
  return push(m, (tfc_msg_seg){data, len, release, arg});
}

tfc_msg_seg *tfc_msg_out_take(tfc_msg_out *m, int *out_n) {
  tfc_msg_seg *s = m->segs;
  *out_n = m->n_segs;
  m->segs = NULL;
  m->n_segs = m->cap_segs = 0;
  m->len = 0;
  return s;
}

int tfc_msg_out_status(const tfc_msg_out *m, tfc_status *s) {
  if (m->oom) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "out of memory building an RPC message");
  return TFC_OK;
}

/* ---------------- incoming ---------------- */

struct tfc_msg_in {
  int n_segs;
  tfc_msg_seg *segs; /* data/len only */
  size_t len;
  void (*release)(void *);
  void *release_arg;
  int seg;    /* cursor: segment index ... */
  size_t off; /* ... and offset in it */
  size_t pos; /* bytes before the cursor */
};

tfc_msg_in *tfc_msg_in_new(const tfc_msg_seg *segs, int n_segs, void (*release)(void *), void *arg) {
  tfc_msg_in *in = calloc(1, sizeof *in);
  tfc_msg_seg *copy = calloc((size_t)n_segs + 1, sizeof *copy);
  if (!in || !copy) {
    free(in);
    free(copy);
    if (release) release(arg);
    return NULL;
  }
  int k = 0;
  for (int i = 0; i < n_segs; i++)
    if (segs[i].len) {
      copy[k] = (tfc_msg_seg){segs[i].data, segs[i].len, NULL, NULL};
      in->len += segs[i].len;
      k++;
    }
  in->n_segs = k;
  in->segs = copy;
  in->release = release;
  in->release_arg = arg;
  return in;
}

tfc_msg_in *tfc_msg_in_copy(const void *data, size_t len) {
  void *b = malloc(len ? len : 1);
  if (!b) return NULL;
  if (len) memcpy(b, data, len);
  tfc_msg_seg g = {b, len, NULL, NULL};
  return tfc_msg_in_new(&g, 1, free, b);
}

/* The segments of an outgoing message released together. */
typedef struct seg_list {
  int n;
  tfc_msg_seg *segs;
} seg_list;

static void release_seg_list(void *p) {
  seg_list *l = p;
  for (int i = 0; i < l->n; i++) release_seg(&l->segs[i]);
  free(l->segs);
  free(l);
}

tfc_msg_in *tfc_msg_in_from_out(tfc_msg_out *m) {
  seg_list *l = malloc(sizeof *l);
  if (!l) {
    tfc_msg_out_free(m);
    return NULL;
  }
  l->segs = tfc_msg_out_take(m, &l->n);
  tfc_msg_out_free(m);
  return tfc_msg_in_new(l->segs, l->n, release_seg_list, l);
}

void tfc_msg_in_free(tfc_msg_in *in) {
  if (!in) return;
  if (in->release) in->release(in->release_arg);
  free(in->segs);
  free(in);
}

size_t tfc_msg_in_len(const tfc_msg_in *in) { return in->len; }
size_t tfc_msg_in_remaining(const tfc_msg_in *in) { return in->len - in->pos; }

const uint8_t *tfc_msg_in_peek(const tfc_msg_in *in, size_t *avail) {
  if (in->seg >= in->n_segs) {
    *avail = 0;
    return NULL;
  }
  *avail = in->segs[in->seg].len - in->off;
  return in->segs[in->seg].data + in->off;
}

int tfc_msg_in_read(tfc_msg_in *in, void *dst, size_t n) {
  if (n > in->len - in->pos) return -1;
  uint8_t *d = dst;
  in->pos += n;
  while (n > 0) {
    const tfc_msg_seg *g = &in->segs[in->seg];
    size_t take = g->len - in->off < n ? g->len - in->off : n;
    if (d) {
      memcpy(d, g->data + in->off, take);
      d += take;
    }
    in->off += take;
    n -= take;
    if (in->off == g->len) {
      in->seg++;
      in->off = 0;
    }
  }
  return 0;
}

void *tfc_msg_in_read_copy(tfc_msg_in *in, size_t n) {
  if (n > in->len - in->pos) return NULL;
  void *b = malloc(n ? n : 1);
  if (b) tfc_msg_in_read(in, b, n);
  return b;
}

void *tfc_msg_in_flatten(const tfc_msg_in *in, size_t *out_len) {
  uint8_t *b = malloc(in->len ? in->len : 1);
  if (!b) return NULL;
  size_t at = 0;
  for (int i = 0; i < in->n_segs; i++) {
    memcpy(b + at, in->segs[i].data, in->segs[i].len);
    at += in->segs[i].len;
  }
  *out_len = in->len;
  return b;
}

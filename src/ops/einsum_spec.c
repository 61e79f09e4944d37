/*
 * einsum_spec — Einsum's equation parser (see einsum_spec.h).
 */
#include "ops/einsum_spec.h"

#include <string.h>

static int letter_id(char ch) {
  if (ch >= 'a' && ch <= 'z') return ch - 'a';
  if (ch >= 'A' && ch <= 'Z') return 26 + ch - 'A';
  return -1;
}

/* One operand's or the output's subscripts [p, end): letter ids into ids (the ellipsis as -2
 * at its place); *n their count. */
static int parse_part(const char *p, const char *end, const char *eq, int ids[TFC_MAX_DIMS + 1], int *n,
                      tfc_status *s) {
  int k = 0, seen_ellipsis = 0;
  while (p < end) {
    if (k > TFC_MAX_DIMS) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Too many labels in einsum equation: %s", eq);
    if (*p == '.') {
      if (end - p < 3 || p[1] != '.' || p[2] != '.' || seen_ellipsis)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid ellipsis in einsum equation: %s", eq);
      seen_ellipsis = 1;
      ids[k++] = -2;
      p += 3;
      continue;
    }
    int id = letter_id(*p);
    if (id < 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid character '%c' in einsum equation: %s", *p, eq);
    ids[k++] = id;
    p++;
  }
  *n = k;
  return TFC_OK;
}

int tfc_einsum_parse(const char *eq, const tfc_shape *const *shapes, int n, int graph, tfc_einsum_spec *out,
                     tfc_status *s) {
  memset(out, 0, sizeof *out);
  for (int l = 0; l < TFC_EINSUM_MAX_LABELS; l++) out->size[l] = -2; /* -2: not seen yet */
  const char *arrow = strstr(eq, "->");
  if (!arrow || strstr(arrow + 2, "->"))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expecting exactly one '->' in einsum equation: %s", eq);
  /* Step 1: the operands' subscripts. */
  int ids[TFC_EINSUM_MAX_OPS][TFC_MAX_DIMS + 1], n_ids[TFC_EINSUM_MAX_OPS], n_parts = 0, ell_max = 0;
  int ell_len[TFC_EINSUM_MAX_OPS] = {0};
  for (const char *p = eq; p <= arrow; n_parts++) {
    const char *end = memchr(p, ',', (size_t)(arrow - p));
    if (!end) end = arrow;
    if (n_parts < TFC_EINSUM_MAX_OPS) TFC_TRY(parse_part(p, end, eq, ids[n_parts], &n_ids[n_parts], s));
    p = end + 1;
  }
  if (n_parts != n || n < 1 || n > TFC_EINSUM_MAX_OPS) {
    if (n_parts > TFC_EINSUM_MAX_OPS || n > TFC_EINSUM_MAX_OPS)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Einsum takes one or two inputs; equation %s has %d", eq,
                            n_parts);
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected %d inputs but got: %d", n_parts, n);
  }
  out->n_ops = n;
  /* Step 2: ellipsis lengths, then every axis's label and the label sizes. */
  for (int k = 0; k < n; k++) {
    int has_ell = 0;
    for (int i = 0; i < n_ids[k]; i++) has_ell |= ids[k][i] == -2;
    int letters = n_ids[k] - has_ell, rank = shapes[k]->rank;
    if (has_ell ? rank < letters : rank != letters)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected input %d to have rank %s%d but got: %d", k,
                            has_ell ? "at least " : "", letters, rank);
    ell_len[k] = has_ell ? rank - letters : 0;
    if (ell_len[k] > ell_max) ell_max = ell_len[k];
    out->rank[k] = rank;
  }
  for (int k = 0; k < n; k++) {
    const tfc_shape *sh = shapes[k];
    int axis = 0;
    for (int i = 0; i < n_ids[k]; i++) {
      if (ids[k][i] == -2) {
        for (int j = 0; j < ell_len[k]; j++, axis++) {
          int l = TFC_EINSUM_ELLIPSIS + ell_max - ell_len[k] + j;
          int64_t d = sh->dims[axis];
          out->label[k][axis] = l;
          out->used[l] |= 1 << k;
          if (out->size[l] == -2 || out->size[l] == 1 || (out->size[l] == -1 && d > 1)) out->size[l] = d;
          else if (d >= 0 && d != 1 && out->size[l] >= 0 && d != out->size[l]) {
            char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
            return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                                  "In[0] and In[1] must have compatible batch dimensions: %s vs. %s",
                                  tfc_shape_str(shapes[0], a, sizeof a), tfc_shape_str(shapes[n - 1], b, sizeof b));
          }
        }
        continue;
      }
      int l = ids[k][i];
      int64_t d = sh->dims[axis];
      out->label[k][axis] = l;
      out->used[l] |= 1 << k;
      if (out->size[l] < 0) {
        if (d >= 0 || out->size[l] == -2) out->size[l] = d;
      } else if (d >= 0 && d != out->size[l]) {
        char a[TFC_SHAPE_STR_MAX];
        if (graph)
          return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Dimensions must be equal, but are %lld and %lld",
                                (long long)out->size[l], (long long)d);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Expected dimension %lld at axis %d of the input shaped %s but got dimension %lld",
                              (long long)out->size[l], axis, tfc_shape_str(sh, a, sizeof a), (long long)d);
      }
      axis++;
    }
  }
  /* Step 3: the output's labels: distinct, each from an input. */
  int oids[TFC_MAX_DIMS + 1], n_oids;
  TFC_TRY(parse_part(arrow + 2, arrow + 2 + strlen(arrow + 2), eq, oids, &n_oids, s));
  for (int i = 0; i < n_oids; i++) {
    if (oids[i] == -2) {
      for (int j = 0; j < ell_max; j++) {
        if (out->n_out >= TFC_MAX_DIMS)
          return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Too many labels in einsum equation: %s", eq);
        out->out[out->n_out++] = TFC_EINSUM_ELLIPSIS + j;
      }
      continue;
    }
    int l = oids[i];
    if (!out->used[l])
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Output label '%c' of einsum equation %s is in no input",
                            l < 26 ? 'a' + l : 'A' + l - 26, eq);
    for (int j = 0; j < out->n_out; j++)
      if (out->out[j] == l)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Output label '%c' of einsum equation %s is repeated",
                              l < 26 ? 'a' + l : 'A' + l - 26, eq);
    out->out[out->n_out++] = l;
  }
  for (int l = 0; l < TFC_EINSUM_MAX_LABELS; l++)
    if (out->size[l] == -2) out->size[l] = 0, out->used[l] = 0;
  return TFC_OK;
}

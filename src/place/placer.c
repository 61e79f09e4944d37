/* placer — see placer.h. */
#include "place/placer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

typedef struct dev_spec {
  char type[16]; /* "" = any */
  int id;        /* -1 = any */
} dev_spec;

/* Reads the device type and id of a device string in any of TF's forms: "/cpu:0",
 * "/device:CPU:1", "/job:localhost/replica:0/task:0/device:CPU:0", "CPU:0", "/device:GPU:*".
 * Returns 0, or -1 when the string is malformed. */
static int parse_spec(const char *s, dev_spec *out) {
  out->type[0] = '\0';
  out->id = -1;
  if (!s || !*s || strcmp(s, "/") == 0) return 0;
  const char *p = s;
  while (*p) {
    if (*p == '/') p++;
    const char *seg = p;
    while (*p && *p != '/') p++;
    size_t len = (size_t)(p - seg);
    char buf[128];
    if (len >= sizeof buf) return -1;
    memcpy(buf, seg, len);
    buf[len] = '\0';
    char *colon = strchr(buf, ':');
    if (!colon) return -1;
    *colon = '\0';
    char *val = colon + 1;
    if (strcmp(buf, "job") == 0 || strcmp(buf, "replica") == 0 || strcmp(buf, "task") == 0) continue;
    const char *type = buf, *id = val;
    if (strcmp(buf, "device") == 0) {
      char *c2 = strchr(val, ':');
      type = val;
      id = NULL;
      if (c2) { *c2 = '\0'; id = c2 + 1; }
    }
    if (strlen(type) >= sizeof out->type) return -1;
    size_t i = 0;
    for (; type[i]; i++) out->type[i] = (char)toupper((unsigned char)type[i]);
    out->type[i] = '\0';
    if (strcmp(out->type, "*") == 0) out->type[0] = '\0';
    if (id && *id && strcmp(id, "*") != 0) {
      char *end;
      long v = strtol(id, &end, 10);
      if (*end || v < 0) return -1;
      out->id = (int)v;
    }
  }
  return 0;
}

static int matches(const tfc_device *d, const dev_spec *sp) {
  if (sp->type[0] && strcmp(sp->type, d->type) != 0) return 0;
  if (sp->id >= 0 && sp->id != d->id) return 0;
  return 1;
}

void tfc_placement_fini(tfc_placement *p, int n) {
  for (int i = 0; i < n; i++) {
    free(p[i].reason);
    p[i].reason = NULL;
  }
}

int tfc_place(const tfc_graph *g, int first, tfc_device *const *devices, int n_devices,
              const tfc_place_options *cfg, tfc_placement *out, tfc_status *s) {
  for (int i = first; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    dev_spec sp;
    if (parse_spec(n->device, &sp) != 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Malformed device specification '%s' in node: %s",
                            n->device, n->name);
    int best = -1, any_kernel = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++) {
      for (int d = 0; d < n_devices; d++) {
        if (!tfc_kernel_find(devices[d]->kernels, n, NULL)) continue;
        if (any_kernel < 0) any_kernel = d;
        if (pass == 0 && !matches(devices[d], &sp)) continue;
        if (best < 0 || devices[d]->priority > devices[best]->priority) best = d;
      }
      if (!cfg->allow_soft_placement) break;
    }
    if (best >= 0) {
      out[i].device = best;
      out[i].reason = strdup("default");
      continue;
    }
    if (any_kernel < 0) {
      tfc_kernel_find(devices[0]->kernels, n, s);
      return tfc_status_prefix(s, "Cannot assign a device for operation %s: ", n->name);
    }
    tfc_strbuf b;
    tfc_strbuf_init(&b);
    for (int d = 0; d < n_devices; d++) tfc_strbuf_printf(&b, "%s%s", d ? ", " : "", devices[d]->name);
    int exists = 0;
    for (int d = 0; d < n_devices; d++) exists |= matches(devices[d], &sp);
    if (exists)
      tfc_status_set(s, TFC_INVALID_ARGUMENT,
                     "Cannot assign a device for operation %s: Could not satisfy explicit device "
                     "specification '%s' because no supported kernel for %s devices is available.",
                     n->name, n->device, sp.type);
    else
      tfc_status_set(s, TFC_INVALID_ARGUMENT,
                     "Cannot assign a device for operation %s: Operation was explicitly assigned to %s "
                     "but available devices are [ %s ]. Make sure the device specification refers to a "
                     "valid device.",
                     n->name, n->device, tfc_strbuf_str(&b));
    tfc_strbuf_fini(&b);
    return s->code;
  }
  return TFC_OK;
}

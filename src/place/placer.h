/*
 * placer — assigns every node of a session's graph to one of the session's devices.
 *
 * Runs once per node (placement is stable across runs): the session calls it for the nodes
 * added since its last call. The rule today: a node's candidates are the devices with a
 * kernel for it that match its requested device (type and id, in full, partial or legacy
 * form); the highest-priority candidate wins (GPU before CPU), lowest id first. A request
 * that no device matches is TF's INVALID_ARGUMENT "Cannot assign a device for operation ...",
 * relaxed to any device when allow_soft_placement is set. Colocation groups, the generator
 * and metadata heuristics and placement reasons grow here (issue #3).
 *
 * Ownership: devices are borrowed. assignment[node id] receives an index into devices.
 */
#ifndef TFC_PLACE_PLACER_H
#define TFC_PLACE_PLACER_H

#include "device/device.h"
#include "graph/graph.h"
#include "session/config.h"

/* Places nodes [first, g->n_nodes) of g (caller holds the graph lock). */
int tfc_place_nodes(const tfc_graph *g, int first, tfc_device *const *devices, int n_devices,
                    const tfc_session_config *cfg, int *assignment, tfc_status *s);

#endif

/*
 * kernels_gpu_host — the GPU rows that run the CPU kernel: those TF 1.15 registers with every
 * argument in host memory, and the shape-only ops, which never touch their data.
 *
 * TF keeps int32 tensors (shapes, indices, axes) out of GPU memory, yet registers many int32
 * kernels for DEVICE_GPU with each input and output marked HostMemory and the CPU functor as
 * the implementation ("A special GPU kernel for int32" in cwise_op_add_1.cc, pack_op.cc,
 * reduction_ops_sum.cc, ...); a few more take every dtype that way (Range, ConcatOffset,
 * Assert). Because those rows exist, TF's placer puts a graph's int32 shape math on
 * /device:GPU:0 by default, next to the float work it feeds, and the partitioner joins them
 * with host-memory edges: no tensor ever enters device memory, and no edge crosses devices.
 *
 * tfc does the same without a line of kernel code: the table below lists each such op with
 * the dtypes TF registers, and tfc_gpu_kernels_host copies the CPU kernel table's rows for it,
 * narrowed to those dtypes, with every argument in host memory (TFC_HOST_ALL) and the CPU
 * row's init, compute and free_state unchanged. On a GPU device a host-memory output comes
 * from the host heap (tfc_kernel_alloc_output), the intra-op pool is the CPU's, and the inputs
 * are host buffers, so the CPU compute runs as it does on the CPU — same values, same error
 * codes and texts. Nothing here touches a device, so the rows suit every GPU platform (the
 * fake one in tests) and go into both GPU tables.
 *
 * The control-flow ops (Switch, Merge, Enter, Exit, NextIteration, their Ref forms, LoopCond,
 * ControlTrigger) are pointer-forwarding kernels: their CPU rows run on device tensors too,
 * with the predicate, LoopCond and Merge's value_index in host memory as TF has them.
 *
 * The containers (stacks, TensorArrays, TensorLists, and AddN and ZerosLike of lists) run their
 * CPU kernels with every argument in host memory: their elements stay in host memory, where TF
 * keeps them in device memory (see the table).
 *
 * The shape-only ops (Reshape, ExpandDims, Squeeze share their input's buffer; Shape, ShapeN,
 * Size, Rank read only its dims) and IdentityN (forwards its inputs) run their CPU kernels on
 * device tensors too: for every other
 * dtype TF lists, their rows keep the CPU row's own masks (the shape argument and the answers
 * in host memory, the data wherever it is), so the data never moves.
 *
 * One node must match one row: a row that could match the same node as a row already in the
 * table (the CUDA Reshape/Shape/... int32 rows, an int32 Identity or Const) loses the dtypes
 * they share, or is left out when the other row does not constrain that attr, so these rows
 * are appended last and never shadow or duplicate a device's own.
 */
#include <string.h>

#include "device/device.h"
#include "device/gpu/gpu_device.h"
#include "ops/opdef.h"

#define I32 TFC_T(TFC_DT_INT32)
#define I64 TFC_T(TFC_DT_INT64)
#define F32 TFC_T(TFC_DT_FLOAT)
#define F64 TFC_T(TFC_DT_DOUBLE)
/* TF's GPU numbers and bool without int32: the shape-only ops' device-memory dtypes. */
#define NUM_NO_I32                                                                                                 \
  (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16) | F32 | F64 | I64 | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) |        \
   TFC_T(TFC_DT_UINT16) | TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128) |                \
   TFC_T(TFC_DT_BOOL))

/* One TF registration: op, the dtypes of attr (NULL: none constrained, every dtype), an
 * optional second constraint TF adds (Sum's Tidx, Fill's index_type, Pad's Tpaddings), and
 * whether the row keeps the CPU row's host-memory masks instead of putting every argument in
 * host memory; with cpu_masks, host_in / host_out add arguments TF keeps in host memory
 * (Switch's pred, Merge's value_index). */
typedef struct host_reg {
  int op;
  const char *attr;
  uint32_t types;
  const char *attr2;
  uint32_t types2;
  int cpu_masks;
  uint32_t host_in, host_out;
} host_reg;

#define T32(OP) {TFC_OP_##OP, "T", I32, NULL, 0, 0, 0, 0}
/* Reductions: TF registers only the int32 reduction_indices form. */
#define RED32(OP) {TFC_OP_##OP, "T", I32, "Tidx", I32, 0, 0, 0}
/* A shape-only op on device data: the CPU row's masks (shape_ops.cc, reshape_op.cc). */
#define SHAPE_ONLY(OP) {TFC_OP_##OP, "T", NUM_NO_I32, NULL, 0, 1, 0, 0}
/* Control flow (control_flow_ops.cc): the kernels only forward tensors (the executor gives
 * them their meaning), so the CPU kernels run on device tensors untouched; TF keeps the
 * predicate, LoopCond and Merge's value_index in host memory, and int32, string, resource and
 * variant data wholly in host memory. */
#define CF_HOST_TYPES (I32 | TFC_T(TFC_DT_STRING) | TFC_T(TFC_DT_RESOURCE) | TFC_T(TFC_DT_VARIANT))
#define CF_ROWS(OP, HOST_IN, HOST_OUT)                                                                             \
  {TFC_OP_##OP, "T", NUM_NO_I32, NULL, 0, 1, HOST_IN, HOST_OUT}, {TFC_OP_##OP, "T", CF_HOST_TYPES, NULL, 0, 0, 0, 0}

/* The containers: TF 1.15 registers the stack, TensorArray and TensorList ops on the GPU
 * with the handles, sizes, indices and shapes in host memory and the elements in device
 * memory. tfc's GPU rows run the CPU kernels with every argument in host memory: the elements
 * stay on the host and the partitioner copies a value between the GPU's memory and the
 * container (documented in docs/COMPAT.md). The dtype constraints are TF's. */
#define TA_TYPES                                                                                                   \
  (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16) | F32 | F64 | I64 | TFC_T(TFC_DT_COMPLEX64) |                       \
   TFC_T(TFC_DT_COMPLEX128))
#define TA_ROW(OP, ATTR) {TFC_OP_##OP, ATTR, TA_TYPES, NULL, 0, 0, 0, 0}
#define LIST_TYPES (TA_TYPES | I32 | TFC_T(TFC_DT_BOOL))
#define LIST_ROW(OP, ATTR) {TFC_OP_##OP, ATTR, LIST_TYPES, NULL, 0, 0, 0, 0}
/* An op TF registers for every element dtype. */
#define ANY_ROW(OP) {TFC_OP_##OP, NULL, 0, NULL, 0, 0, 0, 0}

/* TF 1.15's DEVICE_GPU registrations whose arguments are all HostMemory, for the ops tfc has a
 * CPU kernel for. Ops TF registers on the GPU with int32 in device memory (Cast, Tile,
 * Transpose, ...), with only some arguments in host memory (ZerosLike, OnesLike: their input
 * stays in device memory) or not at all for int32 (Pow, Mean) are not here. */
static const host_reg regs[] = {
    /* cwise_op_*.cc: binary int32 ops run BinaryOp<CPUDevice, ...> on x, y, z in host memory */
    T32(Add),
    T32(AddV2),
    T32(Sub),
    T32(Mul),
    T32(Div),
    T32(FloorDiv),
    T32(FloorMod),
    T32(Maximum),
    T32(Minimum),
    T32(SquaredDifference),
    T32(Less),
    T32(LessEqual),
    T32(Greater),
    T32(GreaterEqual),
    T32(Equal),
    T32(NotEqual),
    /* unary int32 ops (UnaryOp<CPUDevice, ...>) */
    T32(Neg),
    T32(Abs),
    T32(Square),
    T32(Sign),
    /* aggregate_ops.cc, reduction_ops_{sum,prod,max,min}.cc */
    T32(AddN),
    RED32(Sum),
    RED32(Prod),
    RED32(Max),
    RED32(Min),
    /* shape_ops.cc, reshape_op.cc: the int32 forms of the shape-only ops */
    T32(Reshape),
    T32(ExpandDims),
    T32(Squeeze),
    T32(Shape),
    T32(ShapeN),
    T32(Size),
    T32(Rank),
    SHAPE_ONLY(Reshape),
    SHAPE_ONLY(ExpandDims),
    SHAPE_ONLY(Squeeze),
    SHAPE_ONLY(Shape),
    SHAPE_ONLY(ShapeN),
    SHAPE_ONLY(Size),
    SHAPE_ONLY(Rank),
    /* identity_n_op.cc: every dtype, data wherever it is (the CPU kernel forwards its inputs) */
    {TFC_OP_IdentityN, NULL, 0, NULL, 0, 1, 0, 0},
    /* pack_op.cc, unpack_op.cc, concat_op.cc, constant_op.cc, slice_op.cc, strided_slice_op.cc,
     * pad_op.cc, broadcast_to_op.cc */
    T32(Pack),
    T32(Unpack),
    T32(Concat),
    T32(ConcatV2),
    {TFC_OP_Fill, "T", I32, "index_type", I32, 0, 0, 0},
    T32(Slice),
    T32(StridedSlice),
    T32(StridedSliceGrad),
    {TFC_OP_Pad, "T", I32, "Tpaddings", I32 | I64, 0, 0, 0},
    {TFC_OP_PadV2, "T", I32, "Tpaddings", I32 | I64, 0, 0, 0},
    T32(BroadcastTo),
    T32(ReverseV2), /* reverse_op.cc */
    /* every dtype TF lists: sequence_ops.cc, bcast_ops.cc, transpose_op.cc, concat_op.cc,
     * logging_ops.cc */
    {TFC_OP_Range, "Tidx", I32 | I64 | F32 | F64, NULL, 0, 0, 0, 0},
    {TFC_OP_LinSpace, "T", F32 | F64, "Tidx", I32 | I64, 0, 0, 0},
    {TFC_OP_BroadcastArgs, "T", I32 | I64, NULL, 0, 0, 0, 0},
    {TFC_OP_BroadcastGradientArgs, "T", I32 | I64, NULL, 0, 0, 0, 0},
    {TFC_OP_InvertPermutation, "T", I32 | I64, NULL, 0, 0, 0, 0},
    {TFC_OP_ConcatOffset, NULL, 0, NULL, 0, 0, 0, 0},
    /* dynamic_stitch_op.cc: ParallelDynamicStitch's GPU row is the CPU kernel, all in host memory */
    {TFC_OP_ParallelDynamicStitch, "T",
     TFC_T(TFC_DT_HALF) | F32 | F64 | I32 | I64 | TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128), NULL, 0, 0, 0, 0},
    /* where_op.cc: int32 input and index in host memory, the CPU kernel (the other dtypes have
     * CUDA rows) */
    T32(Where),
    {TFC_OP_Assert, NULL, 0, NULL, 0, 0, 0, 0},
    /* control_flow_ops.cc */
    CF_ROWS(Switch, TFC_HOST(1), 0),
    CF_ROWS(RefSwitch, TFC_HOST(1), 0),
    CF_ROWS(Merge, 0, TFC_HOST(1)),
    CF_ROWS(RefMerge, 0, TFC_HOST(1)),
    CF_ROWS(Enter, 0, 0),
    CF_ROWS(RefEnter, 0, 0),
    CF_ROWS(Exit, 0, 0),
    CF_ROWS(RefExit, 0, 0),
    CF_ROWS(NextIteration, 0, 0),
    CF_ROWS(RefNextIteration, 0, 0),
    {TFC_OP_LoopCond, NULL, 0, NULL, 0, 0, 0, 0},
    {TFC_OP_ControlTrigger, NULL, 0, NULL, 0, 1, 0, 0},
    /* functional_ops.cc, partitioned_function_ops.cc: the calls. They are lowered before they
     * run (session/function_call.h), so these rows only place a call on a GPU as TF does, and
     * with it, by default, the nodes of its body that have GPU kernels. */
    ANY_ROW(PartitionedCall),
    ANY_ROW(StatefulPartitionedCall),
    ANY_ROW(If),
    ANY_ROW(StatelessIf),
    ANY_ROW(While),
    ANY_ROW(StatelessWhile),
    /* resource_variable_ops.cc (TF 2.x): a flag on the variable, its handle in host memory */
    ANY_ROW(DisableCopyOnRead),
    /* stateless_random_ops_v2.cc (TF 2.x): the seed, key, counter and alg in host memory */
    {TFC_OP_StatelessRandomGetKeyCounterAlg, "Tseed", I32 | I64, NULL, 0, 0, 0, 0},
    {TFC_OP_StatelessRandomGetKeyCounter, "Tseed", I32 | I64, NULL, 0, 0, 0, 0},
    ANY_ROW(StatelessRandomGetAlg),
    /* stack_ops.cc: the stacks of while-loop gradients (every number type and bool) */
    ANY_ROW(StackV2),
    {TFC_OP_StackPushV2, "T", NUM_NO_I32 | I32, NULL, 0, 0, 0, 0},
    {TFC_OP_StackPopV2, "elem_type", NUM_NO_I32 | I32, NULL, 0, 0, 0, 0},
    ANY_ROW(StackCloseV2),
    /* tensor_array_ops.cc */
    TA_ROW(TensorArrayV3, "dtype"),
    ANY_ROW(TensorArrayGradV3),
    ANY_ROW(TensorArrayGradWithShape),
    TA_ROW(TensorArrayWriteV3, "T"),
    TA_ROW(TensorArrayReadV3, "dtype"),
    TA_ROW(TensorArrayGatherV3, "dtype"),
    TA_ROW(TensorArrayScatterV3, "T"),
    TA_ROW(TensorArrayConcatV3, "dtype"),
    TA_ROW(TensorArraySplitV3, "T"),
    ANY_ROW(TensorArraySizeV3),
    ANY_ROW(TensorArrayCloseV3),
    /* list_kernels.cc, list_kernels.cu.cc: the ops on the list alone, then those TF
     * registers per element dtype (PopBack also for variant elements) */
    ANY_ROW(EmptyTensorList),
    ANY_ROW(TensorListReserve),
    ANY_ROW(TensorListLength),
    ANY_ROW(TensorListElementShape),
    ANY_ROW(TensorListSetItem),
    ANY_ROW(TensorListPushBack),
    ANY_ROW(TensorListResize),
    ANY_ROW(TensorListScatterIntoExistingList),
    LIST_ROW(TensorListStack, "element_dtype"),
    LIST_ROW(TensorListGather, "element_dtype"),
    LIST_ROW(TensorListGetItem, "element_dtype"),
    {TFC_OP_TensorListPopBack, "element_dtype", LIST_TYPES | TFC_T(TFC_DT_VARIANT), NULL, 0, 0, 0, 0},
    LIST_ROW(TensorListConcat, "element_dtype"),
    LIST_ROW(TensorListConcatV2, "element_dtype"),
    LIST_ROW(TensorListFromTensor, "element_dtype"),
    LIST_ROW(TensorListScatter, "element_dtype"),
    LIST_ROW(TensorListScatterV2, "element_dtype"),
    LIST_ROW(TensorListSplit, "element_dtype"),
    /* aggregate_ops.cc, constant_op.cc: the sum and the zeros of lists (gradients) */
    {TFC_OP_AddN, "T", TFC_T(TFC_DT_VARIANT), NULL, 0, 0, 0, 0},
    {TFC_OP_ZerosLike, "T", TFC_T(TFC_DT_VARIANT), NULL, 0, 0, 0, 0},
};

/* Which of row k's two type constraints is on attr `name`: 1, 2, or 0 for neither. */
static int attr_slot(const tfc_kernel_def *k, const char *name) {
  if (k->type_attr && strcmp(k->type_attr, name) == 0) return 1;
  if (k->type_attr2 && strcmp(k->type_attr2, name) == 0) return 2;
  return 0;
}

/* The dtypes row k allows for attr `name`: its mask, or every dtype when it does not
 * constrain that attr. */
static uint32_t mask_for(const tfc_kernel_def *k, const char *name) {
  int slot = attr_slot(k, name);
  return slot == 1 ? k->types : slot == 2 ? k->types2 : TFC_TYPES_ALL;
}

int tfc_gpu_kernel_rows_overlap(const tfc_kernel_def *a, const tfc_kernel_def *b) {
  if (a->op != b->op) return 0;
  const char *names[4] = {a->type_attr, a->type_attr2, b->type_attr, b->type_attr2};
  for (int i = 0; i < 4; i++)
    if (names[i] && (mask_for(a, names[i]) & mask_for(b, names[i])) == 0) return 0;
  return 1;
}

/* Narrows k's constraint on attr to mask, adding the constraint when k has none for attr.
 * Returns 1 when some dtype is left, 0 when none is (the CPU row does not cover TF's dtypes),
 * -1 when k already constrains two other attrs (a row has room for two). */
static int narrow(tfc_kernel_def *k, const char *attr, uint32_t mask) {
  if (!attr) return 1;
  switch (attr_slot(k, attr)) {
    case 1: return (k->types &= mask) != 0;
    case 2: return (k->types2 &= mask) != 0;
  }
  if (!k->type_attr) {
    k->type_attr = attr;
    k->types = mask;
  } else if (!k->type_attr2) {
    k->type_attr2 = attr;
    k->types2 = mask;
  } else {
    return -1;
  }
  return 1;
}

/* Takes from k the dtypes of r's primary attr that rows already in t take for the same nodes.
 * Returns 1 when k still matches some node no other row matches, 0 when it must be left out. */
static int make_disjoint(const tfc_kernel_table *t, const host_reg *r, tfc_kernel_def *k) {
  for (int i = 0; i < t->n_defs; i++) {
    const tfc_kernel_def *other = &t->defs[i];
    if (!tfc_gpu_kernel_rows_overlap(k, other)) continue;
    /* An unconstrained registration, or another row not constraining the attr TF narrows,
     * cannot be split by dtype: the existing row wins. */
    if (!r->attr || !attr_slot(other, r->attr)) return 0;
    if (narrow(k, r->attr, ~mask_for(other, r->attr)) != 1) return 0;
  }
  return 1;
}

int tfc_gpu_kernels_host(tfc_kernel_table *t, tfc_status *s) {
  const tfc_kernel_table *cpu = tfc_cpu_kernel_table(s);
  if (!cpu) return s->code;
  /* Each row is checked against the table as it was before its registration: the CPU rows of
   * one op are disjoint already, and must not narrow each other away. */
  for (size_t r = 0; r < sizeof regs / sizeof regs[0]; r++) {
    const host_reg *reg = &regs[r];
    int n_before = t->n_defs;
    for (int i = 0; i < cpu->n_defs; i++) {
      if (cpu->defs[i].op != reg->op) continue;
      tfc_kernel_def k = cpu->defs[i];
      int a = narrow(&k, reg->attr, reg->types), b = a == 1 ? narrow(&k, reg->attr2, reg->types2) : a;
      if (a < 0 || b < 0)
        return tfc_status_set(s, TFC_INTERNAL, "GPU host-memory row for %s: the CPU row constrains two other attrs",
                              tfc_op_by_id(reg->op)->name);
      if (b == 0) continue; /* this CPU row covers none of TF's dtypes */
      tfc_kernel_table prior = {n_before, t->defs, t->device_type};
      if (!make_disjoint(&prior, reg, &k)) continue;
      if (!reg->cpu_masks) {
        k.host_memory_in = TFC_HOST_ALL;
        k.host_memory_out = TFC_HOST_ALL;
      } else {
        k.host_memory_in |= reg->host_in;
        k.host_memory_out |= reg->host_out;
      }
      TFC_TRY(tfc_kernel_table_add(t, &k, 1, s));
    }
  }
  return TFC_OK;
}

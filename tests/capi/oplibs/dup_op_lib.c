/* An op library whose constructor registers an op the runtime already has (MatMul), and then
 * a new one (DupLibOk): loading it fails with the first registration error. */
#include "tensorflow/c/ops.h"

__attribute__((constructor)) static void register_dup(void) {
  TF_Status *s = TF_NewStatus();
  TF_OpDefinitionBuilder *b = TF_NewOpDefinitionBuilder("MatMul");
  TF_OpDefinitionBuilderAddInput(b, "a: float");
  TF_OpDefinitionBuilderAddOutput(b, "b: float");
  TF_RegisterOpDefinition(b, s);
  b = TF_NewOpDefinitionBuilder("DupLibOk");
  TF_OpDefinitionBuilderAddOutput(b, "b: float");
  TF_RegisterOpDefinition(b, s);
  TF_DeleteStatus(s);
}

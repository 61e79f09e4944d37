"""tfc.compat: `import tfc.compat.v1 as tf` is the TF 1.x API (tfc/_api.py); tfc.compat.v2 the few TF 2.x
functions whose graphs differ from their TF 1.x namesakes (compat/v2.py)."""

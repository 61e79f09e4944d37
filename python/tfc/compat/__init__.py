"""tfc.compat: `import tfc.compat.v1 as tf` is the TF 1.x API (tfc/_api.py)."""

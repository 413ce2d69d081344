"""The campaign file: parsed and validated into a ``Campaign`` (values, names, the cost objective).

The public names are re-exported by ``autotune.campaign``."""

"""autotune: Bayesian search of parallel-I/O settings for HPC applications."""

__version__ = "0.1.0"

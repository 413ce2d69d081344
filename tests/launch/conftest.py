"""Make the launch tests' shared request builder (slurm_requests.py) importable under importlib mode."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

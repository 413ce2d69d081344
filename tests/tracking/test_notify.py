"""The notification hook (``tune --notify``, ``compare --notify``): the summary reaches the command on stdin and in
the environment, never through a shell; a failing command is a warning."""

from __future__ import annotations






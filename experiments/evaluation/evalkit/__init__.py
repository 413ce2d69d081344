"""The optimizer evaluation's parts: scenarios and their true optima, methods, one campaign, reports."""

"""The confirmation of the recommendation: paired runs against the default, their budget, the claim on the
study that one worker confirms."""

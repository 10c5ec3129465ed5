"""Thin click commands over :mod:`redecode` (``redecode run|diff|backfill|query|rules``)."""

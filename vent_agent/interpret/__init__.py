"""Deterministic interpretation of a tunnel's or a device's live data against the regulation.

:mod:`.facts` gathers the facts (values, limits, anomalies, data time), :mod:`.render` writes them as
Chinese Markdown, :mod:`.prompt` turns them into chat messages for a language model.
"""

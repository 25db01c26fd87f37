"""The deterministic checks of a plan review, by reviewer: form (:mod:`.form_rules`, :mod:`.repeat_rules`),
data (:mod:`.data_rules`, :mod:`.limit_rules`) and calculation (:mod:`.calc_rules`, :mod:`.total_rules`,
:mod:`.reference_inputs`, :mod:`.calc_common`). Each finding is built by
:func:`vent_agent.review.rule_common.finding` from a rule of :mod:`vent_agent.review.rules`."""

"""Judgement helpers of the review: what was read and may be judged (:mod:`.read_scope`,
:mod:`.plausibility`, :mod:`.model_reading`), the plan's arithmetic (:mod:`.arith`), recomputation with
:mod:`calc` (:mod:`.recompute`) and one finding per root fault (:mod:`.consequences`)."""

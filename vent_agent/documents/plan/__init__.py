"""The reader of monthly air-distribution plans (月度配风计划): the structured plan (:mod:`.model`) and
the layout-independent parser that fills it (:mod:`.parser` and the modules it lists)."""

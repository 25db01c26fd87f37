"""What a review writes beside its rule findings: the reviewers' model remarks (:mod:`.remarks`, its
prompt ``remarks_prompt.md`` and digest :mod:`.remarks_digest`) and the report's provenance record
(:mod:`.provenance`)."""

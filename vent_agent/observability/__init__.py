"""Operations: Prometheus metrics, structured logs carrying run and session ids, readiness checks."""

"""The audit room: ``candidates audit`` reads a store or a replay log and reports
what it finds (docs/audit.md); the rules it judges by are the engine's (``engine/audit``)."""

from adapters.audit.checks import audit_log, audit_store
from adapters.audit.report import INFO, INTEGRITY, RULE, AuditReport, Finding

__all__ = ["INFO", "INTEGRITY", "RULE", "AuditReport", "Finding", "audit_log", "audit_store"]

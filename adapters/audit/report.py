"""The audit's report: its findings, each naming the event, and how it is said.

A finding is ``integrity`` (the log is not intact, or a result is not backed: the
exit status is 1), ``rule`` (listed; the exit status is 1 only with ``--strict``)
or ``info`` (docs/audit.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from adapters.formats.replay_log import Record
from engine.audit.findings import INFO, INTEGRITY, RULE
from engine.timefmt import format_instant

__all__ = ["INFO", "INTEGRITY", "RULE", "AuditReport", "Finding"]


class FindingJson(TypedDict, total=False):
    """A finding as ``candidates audit --json`` gives it: the event's place when it names
    one, its position in the store when that differs from the log's."""

    severity: str
    kind: str
    stream: str
    version: int
    type: str
    at: str
    position: int
    notification_id: int
    message: str


class ReportJson(TypedDict):
    """The audit as ``candidates audit --json`` gives it."""

    source: str
    events: int
    seals: int
    games: int
    board_alerts: int
    boards: int
    integrity_failures: int
    rule_findings: int
    findings: list[FindingJson]


@dataclass(frozen=True)
class Finding:
    severity: str
    """``integrity``, ``rule`` or ``info``."""
    kind: str
    """Stable name: broken_link, missing_event, seal_mismatch, projection_differs, ..."""
    message: str
    record: Record | None = None
    store_seq: int | None = None

    def as_dict(self) -> FindingJson:
        out = FindingJson(severity=self.severity, kind=self.kind)
        if self.record is not None:
            out["stream"] = self.record.stream
            out["version"] = self.record.version
            out["type"] = self.record.type
            out["at"] = _instant(self.record.at_ms)
            out["position"] = self.record.seq
        if self.store_seq is not None:
            out["notification_id"] = self.store_seq
        out["message"] = self.message
        return out


@dataclass
class AuditReport:
    source: str
    events: int = 0
    seals: int = 0
    games: int = 0
    board_alerts: int = 0
    """Events of electronic boards' own streams (``board/<serial>``: a DGT board's alerts
    before its game is known), audited as every event: hash links and seals."""
    boards: int = 0
    findings: list[Finding] = field(default_factory=list)

    def add(self, severity: str, kind: str, message: str, record: Record | None = None) -> None:
        self.findings.append(Finding(severity, kind, message, record))

    def of(self, severity: str) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    def exit_status(self, strict: bool = False) -> int:
        if self.of(INTEGRITY) or (strict and self.of(RULE)):
            return 1
        return 0

    def as_dict(self) -> ReportJson:
        return ReportJson(
            source=self.source,
            events=self.events,
            seals=self.seals,
            games=self.games,
            board_alerts=self.board_alerts,
            boards=self.boards,
            integrity_failures=len(self.of(INTEGRITY)),
            rule_findings=len(self.of(RULE)),
            findings=[f.as_dict() for f in self.findings],
        )

    def render(self) -> str:
        lines = [
            f"Audit of {self.source}: {self.events} events, {self.games} games, {self.seals} seals"
            + (
                f", {self.board_alerts} alert{'' if self.board_alerts == 1 else 's'} of "
                f"{self.boards} electronic board{'' if self.boards == 1 else 's'}"
                if self.boards
                else ""
            ),
        ]
        for severity, title in (
            (INTEGRITY, "Integrity failures"),
            (RULE, "Rule findings"),
            (INFO, "Notes"),
        ):
            found = self.of(severity)
            lines.append(f"{title}: {len(found) or 'none'}")
            for finding in found:
                where = ""
                if finding.record is not None:
                    r = finding.record
                    where = f"[{r.stream} v{r.version} {r.type} @ {_instant(r.at_ms)}] "
                lines.append(f"  - {finding.kind}: {where}{finding.message}")
        return "\n".join(lines)


def _instant(at_ms: object) -> str:
    """An event's instant as text, whatever a damaged record holds there (-1: unread)."""
    if at_ms == -1:
        return "an unknown instant"
    if isinstance(at_ms, int) and not isinstance(at_ms, bool):
        try:
            return format_instant(at_ms)
        except (OverflowError, OSError, ValueError):
            pass
    return repr(at_ms)

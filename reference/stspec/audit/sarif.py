"""SARIF 2.1.0 output, so that CI systems show violations where they are.

Every rule goes into the log's rule table with its statement from SPEC.md
and the section it lives in; every violation becomes a result located at a
file and a byte offset (a binary region: safetensors files have no lines).
"""

from __future__ import annotations

import os
import urllib.parse
from typing import TYPE_CHECKING, Any, Final

from stspec._version import SPEC_VERSION, __version__
from stspec.audit.shard_checks import SHARD_CHECKS
from stspec.errors import json_path
from stspec.rules import RULES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from stspec.audit.check import FileResult
    from stspec.audit.shards import Finding

__all__ = ["SCHEMA_URI", "SITE", "help_uri", "rule_name", "sarif_log"]

SCHEMA_URI: Final = "https://json.schemastore.org/sarif-2.1.0.json"
# The published documentation site (the Pages workflow deploys docs/ there):
# what code-scanning pages link to, so it must work for a wheel's user who
# has no checkout.
SITE: Final = "https://safetensors-spec.github.io/safetensors-spec"
# Rule family -> the SPEC.md section that defines its rules (Appendix B).
SECTIONS: Final = {
    "processing": "§1.3",
    "file": "§2",
    "text": "§3",
    "json": "§4",
    "structure": "§5",
    "size": "§7",
    "layout": "§8",
    "writer": "§9",
    "shard": "§13.2",
}
# Where the definitions live: the rules in SPEC.md, each under its own anchor
# (its id in lower case); the shard checks on the spec's companion page.
RULES_PAGE: Final = "spec/SPEC.md"
SHARDS_PAGE: Final = "docs/spec/sharded-checkpoints.md"
# Where the site publishes each of those pages.
_PUBLISHED: Final = {
    RULES_PAGE: "spec/SPEC.html",
    SHARDS_PAGE: "spec/sharded-checkpoints.html",
}


def help_uri(page: str, rule_id: str) -> str:
    """Return the address of a rule's definition on the published site."""
    return f"{SITE}/{_PUBLISHED[page]}#{rule_id.lower()}"


def rule_name(rule_id: str) -> str:
    """Return the name SARIF viewers show for a rule: HEADER-LIMIT -> HeaderLimit."""
    return "".join(part.capitalize() for part in rule_id.split("-"))


def _rules() -> list[dict[str, object]]:
    table: list[dict[str, object]] = []
    for rule in RULES:
        level = "error" if rule.level == "MUST" else "warning"
        properties: dict[str, object] = {"level": rule.level, "scope": rule.scope}
        where = SECTIONS[rule.family]
        table.append(
            _rule(rule.id, rule.statement, (RULES_PAGE, where), level, properties)
        )
    table += [
        _rule(
            check.id,
            check.statement,
            (SHARDS_PAGE, SECTIONS["shard"]),
            check.severity,
            {"severity": check.severity, "scope": "shard set"},
        )
        for check in SHARD_CHECKS
    ]
    return table


def _rule(
    rule_id: str,
    statement: str,
    defined: tuple[str, str],
    level: str,
    properties: dict[str, object],
) -> dict[str, object]:
    page, section = defined
    where = f"{page}#{rule_id.lower()}"
    address = help_uri(page, rule_id)
    return {
        "id": rule_id,
        "name": rule_name(rule_id),
        "shortDescription": {"text": statement},
        "fullDescription": {"text": f"{statement} (SPEC.md {section})"},
        "help": {"text": f"See {address} (SPEC.md {section}, rule {rule_id})."},
        "helpUri": address,
        "defaultConfiguration": {"level": level},
        "properties": {**properties, "spec": where, "section": section},
    }


def _uri(file: str) -> str:
    """Turn a path as given into a URI reference: relative stays relative."""
    # A name that is not UTF-8 holds surrogate escapes (PEP 383): they turn
    # back into its bytes, percent-encoded like any other.
    if file.lower().startswith(("https://", "http://", "hf://")):
        # A remote file's name is already a URI: its scheme stays one.
        scheme, _, rest = file.partition("://")
        return f"{scheme}://{urllib.parse.quote(rest, safe='/@:%?=&')}"
    quoted = urllib.parse.quote(file.replace(os.sep, "/"), errors="surrogateescape")
    if os.path.isabs(file):  # noqa: PTH117 - a plain path string
        return "file://" + quoted
    return quoted


def _location(file: str, offset: int | None) -> dict[str, object]:
    # GitHub code scanning shows a result only with region.startLine (the
    # sarif-sdk's rule GH1003); a binary file has no lines, so the region is
    # line 1 as a text region and the byte offset as a binary one.
    region: dict[str, object] = {"startLine": 1}
    if offset is not None:
        region["byteOffset"] = offset
    return {
        "physicalLocation": {"artifactLocation": {"uri": _uri(file)}, "region": region}
    }


def _fingerprint(entries: list[dict[str, Any]]) -> None:
    """Give each result a fingerprint that survives offsets moving.

    GitHub code scanning matches the results of two runs by their
    partialFingerprints; left to itself it hashes the text around the line,
    which a binary file does not have.  The fingerprint is the rule, the
    file, what the result is about (the header path of a violation, the
    tensor or shard name of a finding) and how many identical results came
    before it, never the byte offset: adding metadata to a file moves every
    offset but changes no alert.
    """
    import hashlib  # noqa: PLC0415 - SARIF only

    seen: dict[tuple[str, ...], int] = {}
    for entry in entries:
        location = entry["locations"][0]["physicalLocation"]
        properties = entry.get("properties", {})
        about = properties.get("headerPath", properties.get("name")) or ""
        key = (entry["ruleId"], location["artifactLocation"]["uri"], str(about))
        seen[key] = occurrence = seen.get(key, -1) + 1
        text = "\0".join([*key, str(occurrence)])
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        entry["partialFingerprints"] = {"stspec/v1": digest}


def sarif_log(
    results: Iterable[FileResult],
    findings: Iterable[Finding],
    *,
    trouble: Iterable[tuple[str, str]] = (),
    unchecked: Iterable[tuple[str, str]] = (),
) -> dict[str, object]:
    """Build one SARIF log: violations, sharded-model findings, unreadable inputs.

    ``unchecked``: (file, what it looks like) for files a folder holds that
    look like model weights in another format; warnings, not failures.
    """
    rules = _rules()
    position = {str(rule["id"]): index for index, rule in enumerate(rules)}
    levels = {rule.id: "error" if rule.level == "MUST" else "warning" for rule in RULES}
    levels |= {check.id: check.severity for check in SHARD_CHECKS}
    entries: list[dict[str, Any]] = []
    unreadable = list(trouble)
    omitted: dict[str, dict[str, int]] = {}
    for result in results:
        if result.reason is not None:
            unreadable.append((result.shown, result.reason))
        if result.omitted:
            omitted[result.shown] = result.omitted
        for error in result.errors:
            message = error.msg
            if result.looks_like is not None:
                message = f"not a safetensors file: {result.looks_like.description}"
            entry: dict[str, object] = {
                "ruleId": error.rule,
                "ruleIndex": position[error.rule],
                "level": levels[error.rule],
                "message": {"text": message},
                "locations": [_location(result.shown, error.offset)],
            }
            if error.path:
                entry["properties"] = {"headerPath": json_path(error.path)}
            entries.append(entry)
    entries += [
        {
            "ruleId": finding.rule,
            "ruleIndex": position[finding.rule],
            "level": levels[finding.rule],
            "message": {"text": finding.msg},
            "locations": [_location(finding.file, finding.offset)],
            "properties": {"name": finding.name},
        }
        for finding in findings
    ]
    notifications = [
        {
            "level": "error",
            "message": {"text": f"cannot check {file}: {reason}"},
            "locations": [_location(file, None)],
        }
        for file, reason in unreadable
    ]
    warnings = [
        {
            "level": "warning",
            "message": {"text": f"not checked: {file} looks like {description}"},
            "locations": [_location(file, None)],
        }
        for file, description in unchecked
    ]
    _fingerprint(entries)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "stspec",
                        "informationUri": f"{SITE}/",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                        "properties": {"specVersion": SPEC_VERSION},
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not notifications,
                        "toolExecutionNotifications": notifications + warnings,
                    }
                ],
                "results": entries,
                # Violations beyond the reader's cap per rule: file -> rule -> count.
                "properties": {"omittedResults": omitted},
            }
        ],
    }

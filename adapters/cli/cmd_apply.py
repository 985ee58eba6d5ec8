"""``candidates apply FILE.jsonl``: one command a line in, one JSON result a line out."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from adapters.cli.common import add_store_option, print_json, store_of


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "apply",
        help="apply commands (one JSON object a line; - for stdin)",
        description="Apply commands of the contract, one JSON object a line. Prints one "
        "JSON result a line; exits 1 if any command was refused.",
    )
    parser.add_argument("file", help="a .jsonl file, or - for standard input")
    add_store_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refused = 0
    handle = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    with store_of(args) as store, handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as exc:
                result: dict[str, Any] = {
                    "ok": False,
                    "error": {
                        "code": "malformed_command",
                        "message": f"line {number}: not JSON ({exc.msg} at column {exc.colno})",
                    },
                }
            else:
                result = store.handle(raw)
            refused += not result["ok"]
            print_json(result)
    return 1 if refused else 0

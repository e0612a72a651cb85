#!/usr/bin/env bash
# Checks deploy/receiptd.service with `systemd-analyze verify`. The unit's ExecStart points at
# /usr/local/bin/receiptd, which a build machine lacks, so a copy pointing at a stub is verified.
# Any output counts as a failure: verify reports unknown keys as warnings, not errors.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "check-unit: systemd-analyze not available; skipping the unit check" >&2
    exit 0
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$scratch/receiptd"
chmod +x "$scratch/receiptd"
sed "s#/usr/local/bin/receiptd#$scratch/receiptd#" receiptd.service >"$scratch/receiptd.service"

if ! output=$(systemd-analyze verify --man=no "$scratch/receiptd.service" 2>&1) || [[ -n "$output" ]]; then
    echo "check-unit: systemd-analyze verify found problems in deploy/receiptd.service:" >&2
    echo "$output" >&2
    exit 1
fi
echo "check-unit: deploy/receiptd.service verified"

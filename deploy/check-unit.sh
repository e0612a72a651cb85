#!/usr/bin/env bash
# Checks that deploy/receiptd.service and deploy/receiptd-console.service keep their hardening directives, then
# verifies each with `systemd-analyze verify`. The units' ExecStart points at /usr/local/bin/receiptd, which a
# build machine lacks, so a copy pointing at a stub is verified.
# Any output counts as a failure: verify reports unknown keys as warnings, not errors.
set -euo pipefail
cd "$(dirname "$0")"

# The hardening Deploying.md (Sources/ReceiptdCore/ReceiptdCore.docc) promises, checked with or without
# systemd: a directive dropped or misspelt by mistake fails here.
required=(
    DynamicUser=yes NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes PrivateDevices=yes
    ProtectProc=invisible ProcSubset=pid PrivateUsers=yes PrivateMounts=yes CapabilityBoundingSet=
    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" MemoryDenyWriteExecute=yes SystemCallArchitectures=native
    SystemCallFilter=@system-service SystemCallFilter=~@privileged SystemCallFilter=~@resources
)
units=(receiptd.service receiptd-console.service)
for unit in "${units[@]}"; do
    for directive in "${required[@]}"; do
        if ! grep -qxF -- "$directive" "$unit"; then
            echo "check-unit: deploy/$unit lacks $directive" >&2
            exit 1
        fi
    done
done

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "check-unit: systemd-analyze not available; skipping the unit check" >&2
    exit 0
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$scratch/receiptd"
chmod +x "$scratch/receiptd"
for unit in "${units[@]}"; do
    sed "s#/usr/local/bin/receiptd#$scratch/receiptd#" "$unit" >"$scratch/$unit"
    if ! output=$(systemd-analyze verify --man=no "$scratch/$unit" 2>&1) || [[ -n "$output" ]]; then
        echo "check-unit: systemd-analyze verify found problems in deploy/$unit:" >&2
        echo "$output" >&2
        exit 1
    fi
    echo "check-unit: deploy/$unit verified"
done

#!/usr/bin/env bash
# compare.sh BASELINE CURRENT: 0 when CURRENT (an abidw description) keeps every function, type and
# struct layout of BASELINE; 1 with abidiff's report otherwise; 2 if abidiff itself failed.
#
# abidiff's exit status is a bit set: 1 error, 2 usage, 4 ABIDIFF_ABI_CHANGE (anything differs, an added
# function included), 8 ABIDIFF_ABI_INCOMPATIBLE_CHANGE (a removed or re-versioned symbol). Bit 8 alone
# is not enough: a reordered, retyped or appended struct field, or a changed parameter type, is reported
# with bit 4 only. So the comparison runs with --no-added-syms, which leaves additions out of the report
# and of the status: then any status but 0 is a change a built caller could notice, and fails.
# (A suppression for fields appended to the struct_size structs, `has_data_member_inserted_at = end`,
# was tried and dropped: libabigail 2.2 then also hid a reordered and a retyped field of the same struct.)
set -uo pipefail
baseline=${1:?usage: compare.sh BASELINE CURRENT}
current=${2:?usage: compare.sh BASELINE CURRENT}

report=$(abidiff --no-added-syms "$baseline" "$current"); status=$?
if (( status & 3 )); then
    echo "$report"; echo "abidiff failed (exit $status)"; exit 2
fi
if (( status != 0 )); then
    echo "$report"
    (( status & 8 )) && echo "incompatible: a function was removed or its symbol version changed"
    echo "changed: the ABI above differs from $baseline (exit $status)"
    exit 1
fi
# Additions are allowed; say which, for the log.
added=$(abidiff "$baseline" "$current" | sed -n "s/^  \[A\] 'function \(.*\)'.*/\1/p")
[ -z "$added" ] || { echo "added (allowed):"; echo "$added" | sed 's/^/  /'; }
exit 0

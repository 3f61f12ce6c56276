#!/usr/bin/env bash
# The nightly workflow's last job, when a job before it failed: opens one issue labelled `nightly-failure`, or, when
# one is open already, adds a comment to it, so a run of failing nights makes one thread, not one issue per night.
# Uses the GitHub CLI (gh) with GH_TOKEN; reads from the workflow:
#   GITHUB_REPOSITORY, GITHUB_SERVER_URL, GITHUB_RUN_ID (set by Actions)   RESULTS: the needs context as JSON
#   scripts/nightly/report-failure.sh            (--dry-run: print what it would post)
set -euo pipefail
dry=0
[ "${1:-}" = --dry-run ] && dry=1
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY}
run_url="${GITHUB_SERVER_URL:-https://github.com}/$repo/actions/runs/${GITHUB_RUN_ID:?GITHUB_RUN_ID}"
label=nightly-failure
failed=$(python3 -c 'import json, os
needs = json.loads(os.environ.get("RESULTS") or "{}")
print(", ".join(k + " (" + str(v.get("result")) + ")" for k, v in sorted(needs.items()) if v.get("result") != "success"))')
body="The nightly run of $(date -u +%Y-%m-%d) failed: ${failed:-see the run}.

Run, logs and artifacts (crash inputs and their minimized copies, benchmark charts): $run_url"
if [ "$dry" = 1 ]; then printf '%s\n' "$body"; exit 0; fi
number=$(gh issue list --repo "$repo" --state open --label "$label" --json number --jq '.[0].number // empty')
if [ -n "$number" ]; then
    gh issue comment "$number" --repo "$repo" --body "$body"
    echo "report-failure: commented on #$number"
else
    gh label create "$label" --repo "$repo" --color B60205 --description "The scheduled nightly workflow failed" 2>/dev/null || true
    gh issue create --repo "$repo" --title "Nightly run failing" --label "$label" --body "$body"
fi

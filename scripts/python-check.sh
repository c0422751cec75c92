#!/usr/bin/env bash
# The Python SDK's checks (CI runs them after npm test; scripts/setup-python.sh installs what they
# need): `pip install ./python` offline with Debian's build backend into a virtual environment, the
# README's first Python program run as written with that install against a real server, then the
# pytest suite against real servers (python/tests). Any failure, or pytest collecting no test,
# exits non-zero. Needs dist/ (npm ci builds it).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=/usr/bin/python3
work="$(mktemp -d)"
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" || { echo "python-check: the server did not exit cleanly" >&2; return 1; }
    server_pid=""
  fi
}
cleanup() {
  stop_server || true
  rm -rf "$work" python/build python/*.egg-info
}
trap cleanup EXIT

echo "python-check: pip install ./python into a venv (offline, Debian's setuptools)"
"$PYTHON" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --no-build-isolation ./python
# The installed copy, not the source tree: run from elsewhere.
(cd "$work" && "$work/venv/bin/python" -c '
import pathlib, sys, pagewire
where = pathlib.Path(pagewire.__file__).resolve()
assert where.is_relative_to(pathlib.Path(sys.prefix).resolve()), where
assert (where.parent / "py.typed").exists()
print("python-check: installed pagewire", pagewire.__version__, "in", sys.prefix)
')

echo "python-check: the README's first Python program"
node dist/src/main.js --port 0 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 1 300); do
  if grep -q '^pagewire listening on ' "$work/server.out"; then break; fi
  sleep 0.1
done
url="$(sed -n 's/^pagewire listening on //p' "$work/server.out")"
[ -n "$url" ] || { echo "python-check: the server did not start" >&2; cat "$work/server.err" >&2; exit 1; }
"$PYTHON" - "$work" <<'PY'
import pathlib, re, sys
readme = pathlib.Path("README.md").read_text()
code = re.search(r"<!-- example:python:start -->\n```python\n(.*?)```\n<!-- example:python:end -->", readme, re.S)
printed = re.search(r"<!-- example:python-output:start -->\n```\n(.*?)```\n<!-- example:python-output:end -->", readme, re.S)
assert code and printed, "README.md has the Python example and its output between their markers"
pathlib.Path(sys.argv[1], "first.py").write_text(code.group(1))
pathlib.Path(sys.argv[1], "expected.txt").write_text(printed.group(1))
PY
(cd "$work" && PAGEWIRE_URL="$url" "$work/venv/bin/python" first.py >"$work/printed.txt")
if ! diff -u "$work/expected.txt" "$work/printed.txt"; then
  echo "python-check: the README's Python program did not print what the README says" >&2
  exit 1
fi
stop_server

echo "python-check: pytest"
status=0
"$PYTHON" -m pytest python -q -ra || status=$?
if [ "$status" -eq 5 ]; then echo "python-check: pytest collected no test" >&2; exit 1; fi
exit "$status"

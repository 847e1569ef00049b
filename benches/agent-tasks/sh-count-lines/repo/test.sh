#!/bin/sh
set -eu
printf 'one two\nthree\n' > /tmp/kotef-bench-count.txt
got=$(sh count.sh /tmp/kotef-bench-count.txt)
if [ "$got" = "2" ]; then
  echo "1 passed, 0 failed"
else
  echo "expected 2 lines, got $got" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

#!/bin/sh
# Prints the number of lines of the file $1.
set -eu
wc -w < "$1" | tr -d ' '

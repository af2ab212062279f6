#!/usr/bin/env bash
# The tool that assembles OCI image archives from layer directories (bundle/mkimage).
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
(cd "$RECIPES/../mkimage" && CGO_ENABLED=0 go build -trimpath -o "$out/mkimage" .)

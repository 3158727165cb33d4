#!/usr/bin/with-contenv sh
# shellcheck shell=sh
# The add-on's entry point (the image's CMD). Runs the memory server as the add-on:
# options from /data/options.json, memories in /data/memories, listening on port 8099
# for ingress and the integration; once it listens it announces itself to Home
# Assistant (Supervisor discovery, with SUPERVISOR_TOKEN, which with-contenv provides).
# Arguments go to `assist-memory serve`: the tests point it at a temporary folder.
set -eu
exec assist-memory serve --addon "$@"

# go-toolchain.sh — sourced by every script that runs the go command:
# go.mod's toolchain line names Go 1.27.3, which the machine's own Go fetches from the module
# proxy when told to (ADR-033; the Makefile and .ci/run export the same).
export GOTOOLCHAIN=go1.27.3

#!/usr/bin/env bash
# Regenerates the Swift code of envoy_ext_authz.proto into Sources/JWTKernelExtAuthzProto/ (committed: the plugin
# takes minutes to build, so CI never builds it):
#   Protos/generate.sh PLUGIN_DIR
# PLUGIN_DIR holds protoc-gen-swift (apple/swift-protobuf 1.39.0), e.g. a debug build of swift-protobuf
# (swift build --product protoc-gen-swift) from the package mirror; protoc is Debian's protobuf-compiler (3.21).
# Only the messages are generated: the agent serves the one unary method itself (ExtAuthzRoute, docs/ENVOY.md), so
# no gRPC service code (protoc-gen-grpc-swift) is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
plugins=$(cd "${1:?usage: generate.sh PLUGIN_DIR}" && pwd)
out=Sources/JWTKernelExtAuthzProto
mkdir -p "$out"
protoc --proto_path=Protos \
    --plugin=protoc-gen-swift="$plugins/protoc-gen-swift" --swift_out="$out" --swift_opt=Visibility=Public \
    envoy_ext_authz.proto
echo "generated $(ls "$out")"

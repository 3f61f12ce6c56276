#!/usr/bin/env bash
# Regenerates the Swift code of envoy_ext_authz.proto into Sources/JWTKernelExtAuthzProto/ (committed: the plugins
# take ~10 minutes to build, so CI never builds them):
#   Protos/generate.sh PLUGIN_DIR
# PLUGIN_DIR holds protoc-gen-swift (apple/swift-protobuf 1.39.0) and protoc-gen-grpc-swift-2
# (grpc/grpc-swift-protobuf 2.4.1), e.g. a debug build of grpc-swift-protobuf (swift build --product
# protoc-gen-grpc-swift-2, then --product protoc-gen-swift) from the package mirror; protoc is Debian's
# protobuf-compiler (3.21).
set -euo pipefail
cd "$(dirname "$0")/.."
plugins=$(cd "${1:?usage: generate.sh PLUGIN_DIR}" && pwd)
out=Sources/JWTKernelExtAuthzProto
mkdir -p "$out"
protoc --proto_path=Protos \
    --plugin=protoc-gen-swift="$plugins/protoc-gen-swift" --swift_out="$out" --swift_opt=Visibility=Public \
    --plugin=protoc-gen-grpc-swift="$plugins/protoc-gen-grpc-swift-2" --grpc-swift_out="$out" \
    --grpc-swift_opt=Visibility=Public,Client=false,Server=true \
    envoy_ext_authz.proto
echo "generated $(ls "$out")"

#!/bin/sh
# Build the C++ bot into DIST (default: dist/ here), the folder to submit: the program
# and, in DIST/lib, the shared libraries it needs but the C library's own (it finds them,
# and they find each other, through its RPATH; a RUNPATH would serve only its direct
# dependencies).   ./build.sh [DIST]
# Needs g++, pkg-config, protoc and gRPC for C++ (Debian: libgrpc++-dev and
# protobuf-compiler-grpc).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dist=${1:-"$here/dist"}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
rm -rf "$dist"
mkdir -p "$dist/lib"
protoc -I "$here" --cpp_out="$build" --grpc_out="$build" \
    --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" truco/v1/bot.proto
# shellcheck disable=SC2046 # pkg-config's flags are words
g++ -O2 -std=c++17 -I "$build" -o "$dist/bot" "$here/bot.cc" \
    "$build/truco/v1/bot.pb.cc" "$build/truco/v1/bot.grpc.pb.cc" \
    $(pkg-config --cflags --libs grpc++ protobuf) -Wl,--disable-new-dtags,-rpath,'$ORIGIN/lib'
ldd "$dist/bot" | awk '/=> \// { print $3 }' \
    | grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so' \
    | xargs -r cp -L -t "$dist/lib"
echo "built $dist: submit it with  arena bot submit NAME $dist --runtime exec --entry ./bot"

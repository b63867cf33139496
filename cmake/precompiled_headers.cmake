# Precompiled headers: the standard library, Abseil, protobuf, gRPC and RocksDB headers that
# nearly every translation unit includes are parsed once per build, not once per unity batch.
# A cold build takes 12 % less time without ccache, 6 % less through an empty ccache (a miss
# preprocesses the whole text first either way); most of the gain is the tests' header
# (docs/benchmarks.md, "Build and tests").
#
# Two headers are built: one for the libraries and programs, one for the tests that adds
# GoogleTest (its headers test GTEST_HAS_PTHREAD, which only the targets linking it define).
# Every other target reuses one of them (REUSE_FROM), so each is compiled once. A precompiled
# header is used only where the macros it tests are defined as they were when it was built:
# -Werror=invalid-pch turns a silent fallback (a target given the wrong one) into a build
# error. Headers whose macros differ between targets stay out: spdlog and fmt (SPDLOG_*,
# FMT_SHARED), cpp-httplib (CPPHTTPLIB_*).
#
# ccache caches these compiles only with sloppiness pch_defines,time_macros (set where the
# launcher is, CMakeLists.txt). Off with -DSTRATA_PRECOMPILED_HEADERS=OFF, and under
# STRATA_LIBFUZZER (clang's sanitizers define other macros).

set(STRATA_PRECOMPILED_HEADERS
  <algorithm> <array> <atomic> <bit> <charconv> <chrono> <cmath> <condition_variable>
  <cstdint> <cstring> <deque> <filesystem> <fstream> <functional> <future> <iostream>
  <limits> <map> <memory> <mutex> <optional> <random> <set> <sstream> <string>
  <string_view> <thread> <tuple> <unordered_map> <utility> <variant> <vector>
  <absl/container/flat_hash_map.h> <absl/container/flat_hash_set.h>
  <absl/container/inlined_vector.h> <absl/status/status.h> <absl/status/statusor.h>
  <absl/strings/ascii.h> <absl/strings/str_cat.h> <absl/strings/str_join.h>
  <absl/strings/str_split.h> <absl/synchronization/mutex.h>
  <absl/synchronization/notification.h> <absl/time/time.h> <absl/types/span.h>
  <google/protobuf/arena.h> <google/protobuf/generated_message_reflection.h>
  <google/protobuf/generated_message_util.h> <google/protobuf/io/coded_stream.h>
  <google/protobuf/message.h> <google/protobuf/repeated_field.h>
  <grpcpp/grpcpp.h> <grpcpp/generic/async_generic_service.h>
  <grpcpp/impl/codegen/proto_utils.h> <grpcpp/support/async_stream.h>
  <grpcpp/support/async_unary_call.h> <grpcpp/support/client_callback.h>
  <grpcpp/support/method_handler.h> <grpcpp/support/server_callback.h>
  <grpcpp/support/sync_stream.h>
  <rocksdb/db.h> <rocksdb/write_batch.h>)

# What the hosts link, for the headers' include paths and compile definitions.
set(STRATA_PRECOMPILED_HEADER_LIBRARIES absl::status absl::statusor absl::synchronization
  absl::flat_hash_map protobuf::libprotobuf gRPC::grpc++ RocksDB::rocksdb)

set(STRATA_TEST_PRECOMPILED_HEADERS ${STRATA_PRECOMPILED_HEADERS}
  <gmock/gmock.h> <gtest/gtest.h>)

# A target that compiles the header `headers` for others to reuse, with the compile
# definitions of what it links (`libraries`).
function(strata_precompiled_header_host target headers libraries)
  add_library(${target} OBJECT "${CMAKE_SOURCE_DIR}/cmake/precompiled_headers.cc")
  target_link_libraries(${target} PRIVATE ${libraries})
  target_precompile_headers(${target} PRIVATE ${headers})
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Werror=invalid-pch>)
endfunction()

# Every C++ target defined in `directory` and the folders under it reuses `host`'s header;
# with `test_host`, the targets that link GoogleTest reuse that one instead. Targets built
# with sanitizers (the block decoder's fuzz driver) define macros the headers test: they
# parse the headers themselves.
function(strata_reuse_precompiled_headers directory host test_host)
  get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|EXECUTABLE|OBJECT_LIBRARY)$"
       OR target STREQUAL host OR target STREQUAL test_host)
      continue()
    endif()
    get_target_property(options ${target} COMPILE_OPTIONS)
    if(options MATCHES "-fsanitize")
      continue()
    endif()
    set(from ${host})
    if(test_host)
      get_target_property(links ${target} LINK_LIBRARIES)
      if(links MATCHES "GTest::|strata_test_support|strata_sql_logic")
        set(from ${test_host})
      endif()
    endif()
    target_precompile_headers(${target} REUSE_FROM ${from})
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Werror=invalid-pch>)
  endforeach()
  get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    strata_reuse_precompiled_headers("${subdirectory}" "${host}" "${test_host}")
  endforeach()
endfunction()

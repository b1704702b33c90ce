# bench/bench.cmake - benchmark targets (included by CMakeLists.txt when
# BLOOMKIT_BUILD_BENCH is on).
#
#   bloomkit_compare  bench/compare.cpp: bloomkit vs libbloom vs std::unordered_set
#                     vs the memory-limit kernel, one process, one run
#   bloomkit_micro    bench/micro.cpp: Google Benchmark micro benchmarks of the
#                     kernels, the dispatch and the prefetch window
find_path(LIBBLOOM_INCLUDE_DIR bloom.h)
find_library(LIBBLOOM_LIBRARY bloom)
if(NOT LIBBLOOM_INCLUDE_DIR OR NOT LIBBLOOM_LIBRARY)
  message(FATAL_ERROR "libbloom not found: install Debian's libbloom-dev (./bloomkit.sh setup)")
endif()

add_executable(bloomkit_compare ${PROJECT_SOURCE_DIR}/bench/compare.cpp)
target_include_directories(bloomkit_compare PRIVATE ${PROJECT_SOURCE_DIR}/internal ${LIBBLOOM_INCLUDE_DIR})
target_link_libraries(bloomkit_compare PRIVATE bloomkit::bloomkit bloomkit_warnings ${LIBBLOOM_LIBRARY})

find_package(benchmark REQUIRED)
add_executable(bloomkit_micro ${PROJECT_SOURCE_DIR}/bench/micro.cpp)
target_include_directories(bloomkit_micro PRIVATE ${PROJECT_SOURCE_DIR}/internal)
target_link_libraries(bloomkit_micro PRIVATE bloomkit::bloomkit bloomkit_warnings benchmark::benchmark)

# bloomkit_static_bench  bench/static_bench.cpp: binary fuse and Ribbon beside
#                        split_block_bloom (bits/key, FPR, build and lookup ns);
#                        --build KIND N builds one filter for a peak-RSS check
add_executable(bloomkit_static_bench ${PROJECT_SOURCE_DIR}/bench/static_bench.cpp)
target_include_directories(bloomkit_static_bench PRIVATE ${PROJECT_SOURCE_DIR}/internal)
target_link_libraries(bloomkit_static_bench PRIVATE bloomkit::bloomkit bloomkit_warnings)

# bloomkit_concurrent_bench  bench/concurrent.cpp: insert_many vs
#                            insert_many_concurrent (1 and 2 threads) vs
#                            insert_parallel (1 and 2 threads)
add_executable(bloomkit_concurrent_bench ${PROJECT_SOURCE_DIR}/bench/concurrent.cpp)
target_link_libraries(bloomkit_concurrent_bench PRIVATE bloomkit::bloomkit bloomkit_warnings benchmark::benchmark)

# bloomkit_jvm_bench  bench/jvm_formats.cpp: spark_bloom and guava_bloom lookups (against
#                     the JVM's own mightContain: tests/jvm Harness bench) and bloomkit's
#                     kinds in the same memory (FPR and ns)
add_executable(bloomkit_jvm_bench ${PROJECT_SOURCE_DIR}/bench/jvm_formats.cpp)
target_link_libraries(bloomkit_jvm_bench PRIVATE bloomkit::bloomkit bloomkit_warnings)

# bloomkit_kinds_bench  bench/kinds_bench.cpp: cuckoo_filter vs counting_bloom
#                       (bits/key, FPR, insert/lookup/remove ns),
#                       age_partitioned_bloom, k-mers/s vs the plain u64 path
add_executable(bloomkit_kinds_bench ${PROJECT_SOURCE_DIR}/bench/kinds_bench.cpp)
target_link_libraries(bloomkit_kinds_bench PRIVATE bloomkit::bloomkit bloomkit_warnings)

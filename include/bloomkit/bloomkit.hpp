// bloomkit/bloomkit.hpp - umbrella header: every public bloomkit header.
#pragma once

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/parallel_build.hpp"
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/scalable_bloom.hpp"
#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/ribbon.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/kmer.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/parquet.hpp"

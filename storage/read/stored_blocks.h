// The magnetic store's blocks as its two column families hold them: each
// block's header in `cold_header` and its bodies in `cold`, under the same
// block key (format::SplitBlock; docs/format/block.md, "Stored in two
// parts"). Blocks stored whole by older servers read as they are. Every
// reader or writer of a whole block goes through here; the scans read the
// two families side by side and join them themselves.
// Thread-safety: as the Store's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"
#include "storage/blocks/block.h"
#include "storage/kv/store.h"

namespace strata {

// The whole block under `block_key`, or nullopt when there is none.
// DATA_LOSS when its bodies are stored without their header.
absl::StatusOr<std::optional<std::string>> ReadBlock(const Store& store,
                                                     const rocksdb::ReadOptions& options,
                                                     std::string_view block_key);
// The block of the `cold` value read for it and the `cold_header` value
// (nullopt when the key has none), as its parts: no copy.
absl::StatusOr<format::BlockView> StoredBlockView(std::optional<std::string_view> header,
                                                  std::string_view stored);
// The whole block from the `cold` value read for it and the `cold_header`
// value (nullopt when the key has none): `stored` itself when stored whole,
// else the two joined in `*buffer`.
absl::StatusOr<std::string_view> JoinedBlock(std::optional<std::string_view> header,
                                             std::string_view stored, std::string* buffer);
// Adds the puts of `block`'s two parts to `batch`.
absl::Status PutBlock(const Store& store, std::string_view block_key, std::string_view block,
                      rocksdb::WriteBatch* batch);
void DeleteBlock(const Store& store, std::string_view block_key, rocksdb::WriteBatch* batch);

}  // namespace strata

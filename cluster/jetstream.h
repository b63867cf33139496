// JetStream: the part of NATS JetStream the cluster's shard logs use (docs/cluster.md),
// over Debian's C client (libnats): one file-backed stream per shard replicated on the NATS
// servers, publishes fenced by the stream-wide expected last sequence and deduplicated by a
// message id, and an ordered consumer that reads a stream from a sequence on.
//
// Thread-safety: Publish, LastSequence, Bounds, Trim and EnsureStream may be called from any
// thread; a Reader is used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cluster/cluster_options.h"

struct __natsConnection;
struct __jsCtx;
struct __natsSubscription;

namespace strata::cluster {

struct PublishAck {
  uint64_t sequence = 0;
  bool duplicate = false;  // the message id was published before: `sequence` is the first's
};

// A stream's first and last sequences: a trimmed stream starts past 1; an empty one has
// first = last + 1 (0 and 0 when nothing was ever published).
struct LogBounds {
  uint64_t first = 0;
  uint64_t last = 0;
};

// An entry as a Reader learns of it: where it is and how large, not its bytes (a replica
// applies the stream leader's copy, which it fetches anyway: replica.h).
struct LogMessage {
  uint64_t sequence = 0;
  size_t size = 0;
};

class JetStream {
 public:
  // Connects to the servers `urls` ("nats://host:port" each), over TLS when `tls` is
  // enabled and as `login`, and checks JetStream is enabled: UNAVAILABLE or
  // FAILED_PRECONDITION with one line saying what to change.
  static absl::StatusOr<std::unique_ptr<JetStream>> Connect(const std::vector<std::string>& urls,
                                                            std::string_view client_name,
                                                            std::chrono::milliseconds timeout,
                                                            const ServiceTls& tls = {},
                                                            const NatsLogin& login = {});
  ~JetStream();

  // Creates the stream `name` on `subject` with `replicas` replicas if it does not exist
  // (file storage, no age limit, discard new, a 2-minute duplicate window); a stream that
  // exists is fine. Unavailable when NATS does not answer within `timeout`: asking again is
  // safe.
  absl::Status EnsureStream(const std::string& name, const std::string& subject, int replicas,
                            std::chrono::milliseconds timeout);
  // The largest message the NATS server takes (its max_payload, 1 MB unless configured).
  size_t max_payload() const;
  // Publishes `data` to `subject` if the stream's last sequence is `expected_last`:
  // FAILED_PRECONDITION (fenced) when it is not, UNAVAILABLE when the outcome is unknown
  // (retry with the same `msg_id`: a publish that did commit answers as a duplicate),
  // RESOURCE_EXHAUSTED (nothing sent) when `data` is over max_payload().
  // `expected_last` 0 expects an empty stream (the C client reads ExpectLastSeq 0 as none:
  // the subject's no-message expectation is used, one subject per stream).
  absl::StatusOr<PublishAck> Publish(const std::string& subject, std::string_view data,
                                     uint64_t expected_last, const std::string& msg_id,
                                     std::chrono::milliseconds timeout);
  // Entry `sequence` of the stream as its leader holds it (STREAM.MSG.GET, answered by the
  // stream's leader), or nullopt when the stream has none there.
  absl::StatusOr<std::optional<std::string>> LeaderCopy(const std::string& stream,
                                                        uint64_t sequence,
                                                        std::chrono::milliseconds timeout);
  // The stream's last sequence (0 when empty), as its leader knows it.
  absl::StatusOr<uint64_t> LastSequence(const std::string& stream,
                                        std::chrono::milliseconds timeout);
  // Its first and last sequences.
  absl::StatusOr<LogBounds> Bounds(const std::string& stream, std::chrono::milliseconds timeout);
  // Deletes the stream's entries below `keep_from` (JetStream's purge up to a sequence; the
  // sequences go on from where they were). Nothing for `keep_from` 0 or 1.
  absl::Status Trim(const std::string& stream, uint64_t keep_from,
                    std::chrono::milliseconds timeout);

  // Reads a stream in order from a sequence on (an ordered consumer: no state on the server
  // beyond the subscription, recreated by the client after a NATS failover). Headers only:
  // NATS sends each entry's sequence and size, not its bytes again.
  class Reader {
   public:
    ~Reader();
    // The next message, or nullopt after `wait` without one (or when the message is one
    // delivered before). A message past the expected next sequence is OUT_OF_RANGE: the
    // log was purged under the reader, or its NATS server lacks entries.
    absl::StatusOr<std::optional<LogMessage>> Next(std::chrono::milliseconds wait);

   private:
    friend class JetStream;
    Reader() = default;
    __natsSubscription* sub_ = nullptr;
    uint64_t next_ = 0;
  };
  absl::StatusOr<std::unique_ptr<Reader>> Read(const std::string& stream,
                                               const std::string& subject, uint64_t from);

  // Plain NATS, outside JetStream: a message nobody stores (lost if no one listens, or NATS
  // is down), and a subscription calling `on_message` on the client's thread until the
  // Listening ends (it waits for a call under way). The replicas' apply confirmations
  // (--replica-ack majority) use them.
  absl::Status Announce(const std::string& subject, std::string_view data);
  class Listening {
   public:
    ~Listening();

   private:
    friend class JetStream;
    Listening() = default;
    std::function<void(std::string_view)> on_message_;
    __natsSubscription* sub_ = nullptr;
  };
  absl::StatusOr<std::unique_ptr<Listening>> Listen(
      const std::string& subject, std::function<void(std::string_view data)> on_message);

 private:
  JetStream() = default;
  std::string urls_;
  __natsConnection* conn_ = nullptr;
  __jsCtx* js_ = nullptr;
};

}  // namespace strata::cluster

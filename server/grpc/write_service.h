// WriteService handler: adapts WriteRecords and BulkWriteRecords to the
// ingest door (server/runner/ingest.h).
#pragma once

#include "server/grpc/unary.h"
#include "server/runner/ingest.h"
#include "strata/v1/write.grpc.pb.h"

namespace strata {

class WriteService final
    : public v1::WriteService::WithRawCallbackMethod_WriteRecords<
          v1::WriteService::WithRawCallbackMethod_BulkWriteRecords<v1::WriteService::Service>> {
 public:
  // The arguments must outlive the service.
  WriteService(Ingest* ingest, Authenticator* auth) : ingest_(*ingest), auth_(*auth) {}

  // Served without blocking: the request is parsed and prepared on gRPC's
  // thread, and the call finished by the writer once its group is committed
  // (storage/write/writer.h). Blocked in a write's sync, gRPC's callback threads
  // (one per core) held up every other call and kept groups small.
  grpc::ServerUnaryReactor* WriteRecords(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* in,
                                         grpc::ByteBuffer* out) override {
    return Write(context, in, out, kMaxRecordsPerWrite);
  }
  grpc::ServerUnaryReactor* BulkWriteRecords(grpc::CallbackServerContext* context,
                                             const grpc::ByteBuffer* in,
                                             grpc::ByteBuffer* out) override {
    return Write(context, in, out, kMaxRecordsPerBulkWrite);
  }

 private:
  // Either call: a WriteRecordsRequest of at most `max_records` records.
  grpc::ServerUnaryReactor* Write(grpc::CallbackServerContext* context, const grpc::ByteBuffer* in,
                                  grpc::ByteBuffer* out, int max_records);

  Ingest& ingest_;
  Authenticator& auth_;
};

}  // namespace strata

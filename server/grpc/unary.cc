#include "server/grpc/unary.h"

#include "common/strings.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"

namespace strata {

absl::Status ParseRequest(const grpc::ByteBuffer& bytes, google::protobuf::Message* message) {
  grpc::ByteBuffer copy(bytes);  // the reader consumes its buffer
  grpc::ProtoBufferReader reader(&copy);
  if (!reader.status().ok() || !message->ParseFromZeroCopyStream(&reader)) {
    return absl::InvalidArgumentError(
        StrCat("could not parse request: the bytes are not a ", message->GetTypeName(),
               " (strings must be valid UTF-8); generate the client from proto/strata/v1"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Principal>> AuthenticateCall(
    Authenticator& auth, const grpc::ServerContextBase& context) {
  if (!auth.enabled()) return auth.Authenticate({}, "");
  std::vector<std::string_view> authorization;
  const auto range = context.client_metadata().equal_range("authorization");
  for (auto it = range.first; it != range.second; ++it) {
    authorization.emplace_back(it->second.data(), it->second.size());
  }
  return auth.Authenticate(authorization, context.peer());
}

absl::StatusOr<std::shared_ptr<const Principal>> StartUnary(grpc::CallbackServerContext* context,
                                                            const grpc::ByteBuffer* in,
                                                            Authenticator& auth,
                                                            google::protobuf::Message* request) {
  absl::StatusOr<std::shared_ptr<const Principal>> caller = AuthenticateCall(auth, *context);
  if (!caller.ok()) return caller.status();
  if (absl::Status parsed = ParseRequest(*in, request); !parsed.ok()) return parsed;
  return caller;
}

absl::Status SerializeResponse(const google::protobuf::Message& message, grpc::ByteBuffer* bytes) {
  bool own = false;
  grpc::Status status =
      grpc::SerializationTraits<google::protobuf::Message>::Serialize(message, bytes, &own);
  if (!status.ok()) return absl::InternalError("could not serialize the response");
  return absl::OkStatus();
}

}  // namespace strata

// The contract loaded at run time from ../../protos/: the gRPC services (proto-loader) and
// the message codecs (protobufjs) for the bytes that travel inside messages: DealEvent,
// PrivateDealEvent, and the google.rpc.Status of a refusal (protos/google/rpc/).
"use strict";

const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const protobuf = require("protobufjs");

const PROTOS = path.resolve(__dirname, "..", "..", "protos");
const FILES = ["lobby.proto", "table.proto", "rules_service.proto"].map((f) => `scala40/v1/${f}`);
// Field names as in the .proto files; 64-bit numbers (seq, totals) as JS numbers; unset
// scalars as their defaults; a oneof's chosen field named in a virtual field.
const LOADER_OPTIONS = {
  keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [PROTOS],
};

const definition = protoLoader.loadSync(FILES, LOADER_OPTIONS);
const scala40 = grpc.loadPackageDefinition(definition).scala40.v1;

// @grpc/proto-loader decodes only the services' own messages: the bytes fields that carry
// a serialized message (a DealEvent, a PrivateDealEvent, the google.rpc.Status of a refusal
// in its trailer) need protobufjs, from the same files. google.rpc's Status, ErrorInfo and
// LocalizedMessage come from protos/google/rpc/ (googleapis, Apache-2.0); their imports of
// google/protobuf/any.proto and duration.proto are well-known types protobufjs carries.
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => path.join(PROTOS, target);
root.loadSync([...FILES, "google/rpc/status.proto", "google/rpc/error_details.proto"], { keepCase: true });

const TO_OBJECT = { longs: Number, enums: String, bytes: Buffer, defaults: true, oneofs: true };
const DealEvent = root.lookupType("scala40.v1.DealEvent");
const PrivateDealEvent = root.lookupType("scala40.v1.PrivateDealEvent");
const Status = root.lookupType("google.rpc.Status");
const ErrorInfo = root.lookupType("google.rpc.ErrorInfo");
const LocalizedMessage = root.lookupType("google.rpc.LocalizedMessage");

const decode = (type, bytes) => type.toObject(type.decode(bytes), TO_OBJECT);
const decodeDealEvent = (bytes) => decode(DealEvent, bytes);
const decodePrivateEvent = (bytes) => decode(PrivateDealEvent, bytes);
const encodePrivateEvent = (object) => Buffer.from(PrivateDealEvent.encode(PrivateDealEvent.fromObject(object)).finish());

// What a refusal says: its code, the ErrorInfo reason and metadata (rule, sentence …), and
// the localized message when there is one. The details ride in the grpc-status-details-bin
// trailer, which grpc-js hands over in error.metadata.
// A move refused on the seat's stream (PROTOCOL.md "The seat's stream") carries the same
// google.rpc.Status in its answer (SeatAnswer.refused), already decoded: error.status.
function refusal(error) {
  const out = { code: grpc.status[error.code] || String(error.code), reason: "", metadata: {},
    message: error.details || error.message };
  const raw = !error.status && error.metadata && error.metadata.get("grpc-status-details-bin")[0];
  if (!raw && !error.status) return out;
  for (const detail of (error.status || Status.decode(raw)).details) {
    if (detail.type_url.endsWith("/google.rpc.ErrorInfo")) {
      const info = ErrorInfo.toObject(ErrorInfo.decode(detail.value), TO_OBJECT);
      out.reason = info.reason;
      out.metadata = info.metadata || {};
    } else if (detail.type_url.endsWith("/google.rpc.LocalizedMessage")) {
      out.localized = LocalizedMessage.decode(detail.value).message;
    }
  }
  return out;
}

module.exports = { grpc, scala40, decodeDealEvent, decodePrivateEvent, encodePrivateEvent, refusal };

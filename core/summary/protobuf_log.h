#pragma once
// protobuf's own log lines (invalid UTF-8 in a proto2 string field of a damaged or foreign
// summary file, for instance) go to the project's logger at DEBUG (module IMPORTER) instead of
// stderr, where the CLI's output and the studio's console would fill with them. Process-wide
// (protobuf has one handler): the checkpoint and ONNX readers' lines go the same way.
namespace ts::summary {

/// Installs the handler once; cheap to call before every parse.
void routeProtobufLog();

}  // namespace ts::summary

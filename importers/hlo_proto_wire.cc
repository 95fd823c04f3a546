// HLO proto import, bytes: a wire-level scan that tells what a file that does not decode
// holds (a truncated module, or no HLO proto), and gzip.
#include <google/protobuf/io/coded_stream.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "importers/hlo_proto.h"
#include "importers/hlo_proto_internal.h"

namespace fusebox::importers {

namespace hlo_proto_internal {

namespace {

// ---------------------------------------------------------------------------
// Wire-level scan
// ---------------------------------------------------------------------------

// One field of a message as the wire format lays it out.
struct WireField {
  uint32_t number = 0;
  int wire_type = 0;
  size_t start = 0;          // offset of the tag
  size_t payload_begin = 0;  // for length-delimited fields
  size_t payload_end = 0;    // declared end; may lie past the data when truncated
};

struct WireScan {
  std::vector<WireField> fields;  // complete fields, plus a last incomplete one if truncated
  bool truncated = false;         // the data ends inside the last field
  bool corrupt = false;           // bytes that are not protobuf wire format
  size_t stop = 0;                // where scanning stopped
};

// Walks the fields of one message in data[begin, end) without interpreting them.
WireScan ScanFields(std::string_view data, size_t begin, size_t end) {
  WireScan scan;
  const auto* base = reinterpret_cast<const uint8_t*>(data.data()) + begin;
  int size = static_cast<int>(end - begin);
  google::protobuf::io::CodedInputStream in(base, size);
  // A varint that cannot be read with fewer than 10 bytes left is cut, not corrupt.
  auto cut_or_corrupt = [&](size_t at) {
    scan.stop = at;
    if (end - at < 10) {
      scan.truncated = true;
    } else {
      scan.corrupt = true;
    }
  };
  while (true) {
    size_t at = begin + static_cast<size_t>(in.CurrentPosition());
    if (at == end) {
      scan.stop = at;
      return scan;
    }
    uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (data[at] == 0) {  // field number 0 does not exist
        scan.corrupt = true;
        scan.stop = at;
      } else {
        cut_or_corrupt(at);
      }
      return scan;
    }
    WireField f;
    f.number = tag >> 3;
    f.wire_type = static_cast<int>(tag & 7);
    f.start = at;
    bool ok = true;
    switch (f.wire_type) {
      case 0: {
        uint64_t v;
        ok = in.ReadVarint64(&v);
        if (!ok) cut_or_corrupt(at);
        break;
      }
      case 1:
      case 5: {
        int width = f.wire_type == 1 ? 8 : 4;
        ok = in.Skip(width);
        if (!ok) {
          scan.truncated = true;
          scan.stop = at;
        }
        break;
      }
      case 2: {
        uint32_t length;
        if (!in.ReadVarint32(&length)) {
          ok = false;
          cut_or_corrupt(at);
          break;
        }
        f.payload_begin = begin + static_cast<size_t>(in.CurrentPosition());
        f.payload_end = f.payload_begin + length;
        if (f.payload_end > end) {
          ok = false;
          scan.truncated = true;
          scan.stop = at;
          scan.fields.push_back(f);
          return scan;
        }
        in.Skip(static_cast<int>(length));
        break;
      }
      default:
        ok = false;
        scan.corrupt = true;
        scan.stop = at;
        break;
    }
    if (!ok) {
      if (scan.truncated) {
        f.payload_end = end + 1;
        scan.fields.push_back(f);
      }
      return scan;
    }
    f.payload_end = std::max(f.payload_end, begin + static_cast<size_t>(in.CurrentPosition()));
    scan.fields.push_back(f);
  }
}

bool LooksLikeName(std::string_view data, const WireField& f) {
  if (f.wire_type != 2 || f.payload_end > data.size() || f.payload_end == f.payload_begin)
    return false;
  for (size_t i = f.payload_begin; i < f.payload_end; ++i) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

}  // namespace

// Explains why `bytes` did not decode: a truncated module (with what survives) or
// bytes that are not an HLO proto.
Status DiagnoseUndecodable(std::string_view bytes, const std::string& filename) {
  std::string total = std::to_string(bytes.size());
  WireScan top = ScanFields(bytes, 0, bytes.size());
  if (top.corrupt) {
    return InvalidArgument(filename + ": not an HLO proto (bytes at offset " +
                           std::to_string(top.stop) + " are not protobuf wire format)");
  }
  // Find the module: the top level (HloModuleProto) or field 1 of it, once (HloProto)
  // or twice (HloSnapshot). A module level starts with its name and lists computations
  // as field 3.
  const char* wrappers[] = {"", "HloProto", "HloSnapshot"};
  size_t begin = 0, end = bytes.size();
  WireScan level = top;
  for (int depth = 0; depth < 3; ++depth) {
    bool has_name = !level.fields.empty() && level.fields[0].number == 1 &&
                    LooksLikeName(bytes, level.fields[0]);
    int complete = 0;
    const WireField* last_complete = nullptr;
    const WireField* cut = nullptr;
    for (const WireField& f : level.fields) {
      if (f.number != 3 || f.wire_type != 2) continue;
      if (f.payload_end <= end) {
        ++complete;
        last_complete = &f;
      } else {
        cut = &f;
      }
    }
    if (has_name && (complete > 0 || cut != nullptr) && level.truncated) {
      std::string msg = filename + ": truncated HLO proto: decoding stopped at byte " +
                        std::to_string(level.stop) + " of " + total;
      if (cut != nullptr) {
        msg += " inside computation " + std::to_string(complete + 1) + " (it needs " +
               std::to_string(cut->payload_end - cut->payload_begin) + " bytes, " +
               std::to_string(end - cut->payload_begin) + " remain); " + std::to_string(complete) +
               " of the computations are complete";
      } else {
        msg += "; all " + std::to_string(complete) +
               " computations are complete, a later field of the module is cut";
      }
      if (last_complete != nullptr) {
        px::HloComputationProto comp;
        if (comp.ParseFromArray(
                bytes.data() + last_complete->payload_begin,
                static_cast<int>(last_complete->payload_end - last_complete->payload_begin))) {
          msg += " (the last is %" + comp.name() + ", " + std::to_string(comp.instructions_size()) +
                 " instructions)";
        }
      }
      if (cut != nullptr) msg += "; the module cannot be loaded without the rest";
      return InvalidArgument(msg);
    }
    if (has_name && !level.truncated && depth > 0) {
      // The module is whole; what follows it in the wrapper is cut.
      return InvalidArgument(filename + ": truncated " + wrappers[depth] +
                             ": decoding stopped at byte " + std::to_string(top.stop) + " of " +
                             total + "; the module is complete but the data after it is cut");
    }
    // Descend into field 1 when it is the (last, cut) wrapper field.
    if (level.fields.empty()) break;
    WireField inner = level.fields.front();  // a copy: `level` is replaced below
    if (inner.number != 1 || inner.wire_type != 2) break;
    begin = inner.payload_begin;
    end = std::min(inner.payload_end, bytes.size());
    level = ScanFields(bytes, begin, end);
    if (level.corrupt) break;
    if (!level.truncated && inner.payload_end > bytes.size()) level.truncated = true;
  }
  if (top.truncated) {
    return InvalidArgument(
        filename + ": not an HLO proto (protobuf data ends inside a field at byte " +
        std::to_string(top.stop) + " of " + total + ", and no HLO module was found before it)");
  }
  return InvalidArgument(filename +
                         ": not an HLO proto (it decodes as protobuf but holds no HLO module with "
                         "computations)");
}

}  // namespace hlo_proto_internal

// ---------------------------------------------------------------------------
// gzip
// ---------------------------------------------------------------------------

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

StatusOr<std::string> Gunzip(std::string_view bytes, const std::string& filename,
                             int64_t max_bytes) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return Internal(filename + ": cannot initialize zlib");
  std::string out;
  char buffer[1 << 16];
  size_t offset = 0;
  Status status;
  bool ended = false;
  while (true) {
    if (zs.avail_in == 0 && offset < bytes.size()) {
      size_t chunk = std::min<size_t>(bytes.size() - offset, 1u << 30);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + offset));
      zs.avail_in = static_cast<uInt>(chunk);
      offset += chunk;
    }
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof buffer;
    int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - zs.avail_out);
    if (static_cast<int64_t>(out.size()) > max_bytes) {
      status = InvalidArgument(filename + ": gzip data inflates to more than " +
                               std::to_string(max_bytes) + " bytes; refusing");
      break;
    }
    if (rc == Z_STREAM_END) {
      ended = true;
      // Concatenated gzip members (as `cat a.gz b.gz` makes) continue the stream.
      if (zs.avail_in == 0 && offset >= bytes.size()) break;
      if (inflateReset(&zs) != Z_OK) {
        status = InvalidArgument(filename + ": bad gzip stream after byte " +
                                 std::to_string(zs.total_in));
        break;
      }
      ended = false;
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && offset >= bytes.size()) {
      status = InvalidArgument(filename + ": gzip stream ends early (truncated .gz file?) after " +
                               std::to_string(out.size()) + " uncompressed bytes");
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      status = InvalidArgument(filename + ": bad gzip stream (zlib: " +
                               (zs.msg ? zs.msg : "error " + std::to_string(rc)) + ")");
      break;
    }
  }
  inflateEnd(&zs);
  if (!status.ok()) return status;
  if (!ended) return InvalidArgument(filename + ": gzip stream ends early (truncated .gz file?)");
  return out;
}

}  // namespace fusebox::importers

// Opcode names, arities and categories.
#include "compiler/ir/opcode.h"

#include <string>
#include <unordered_map>

namespace fusebox {

namespace {
struct OpcodeInfo {
  std::string_view name;
  int arity;
};
constexpr OpcodeInfo kOpcodes[] = {
#define FUSEBOX_OPCODE_INFO(e, name, arity) {name, arity},
    FUSEBOX_OPCODES(FUSEBOX_OPCODE_INFO)
#undef FUSEBOX_OPCODE_INFO
};
}  // namespace

std::string_view OpcodeName(Opcode opcode) { return kOpcodes[static_cast<int>(opcode)].name; }

std::optional<Opcode> ParseOpcode(std::string_view name) {
  static const auto* kByName = [] {
    auto* map = new std::unordered_map<std::string_view, Opcode>();
    for (int i = 0; i < kOpcodeCount; ++i) (*map)[kOpcodes[i].name] = static_cast<Opcode>(i);
    return map;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

int OpcodeArity(Opcode opcode) { return kOpcodes[static_cast<int>(opcode)].arity; }

bool IsElementwiseUnary(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAbs: case Opcode::kAcos: case Opcode::kAcosh: case Opcode::kAsin:
    case Opcode::kAsinh: case Opcode::kAtan: case Opcode::kAtanh: case Opcode::kCbrt:
    case Opcode::kCeil: case Opcode::kClz: case Opcode::kConvert: case Opcode::kBitcastConvert:
    case Opcode::kCopy: case Opcode::kCos: case Opcode::kCosh: case Opcode::kErf:
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kFloor: case Opcode::kImag:
    case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kNegate: case Opcode::kNot: case Opcode::kPopulationCount: case Opcode::kReal:
    case Opcode::kReducePrecision: case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven: case Opcode::kRsqrt: case Opcode::kSign: case Opcode::kSin:
    case Opcode::kSinh: case Opcode::kSqrt: case Opcode::kTan: case Opcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAdd: case Opcode::kAnd: case Opcode::kAtan2: case Opcode::kCompare:
    case Opcode::kComplex: case Opcode::kDivide: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kMulhi: case Opcode::kMultiply: case Opcode::kOr: case Opcode::kPower:
    case Opcode::kRemainder: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kSubtract: case Opcode::kXor:
    case Opcode::kStochasticConvert:
      return true;
    default:
      return false;
  }
}

bool IsElementwise(Opcode opcode) {
  return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) || opcode == Opcode::kSelect ||
         opcode == Opcode::kClamp;
}

bool IsCommutative(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMulhi: case Opcode::kMaximum:
    case Opcode::kMinimum: case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsCollective(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAllGather: case Opcode::kAllGatherStart: case Opcode::kAllReduce:
    case Opcode::kAllReduceStart: case Opcode::kAllToAll: case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute: case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectiveReduce: case Opcode::kRaggedAllToAll: case Opcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

bool IsAsync(Opcode opcode) {
  return opcode == Opcode::kAsyncStart || opcode == Opcode::kAsyncUpdate ||
         opcode == Opcode::kAsyncDone;
}

}  // namespace fusebox

// Access to an instruction's backend_config as JSON. The text is always kept verbatim
// on the instruction; this parses it when it is JSON (XLA writes JSON objects for GPU
// and CPU configs; some tools write plain strings).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

// The parsed JSON object, or nullopt when there is no backend_config or it is not JSON.
std::optional<nlohmann::json> BackendConfigJson(const Instruction& instruction);

// True when the instruction has a backend_config that is not valid JSON (for warnings).
bool HasNonJsonBackendConfig(const Instruction& instruction);

// Typed-FFI custom calls (jax's LAPACK and cuSOLVER calls) carry MLIR attributes in
// backend_config: `{diag = 85 : ui8, side = 76 : ui8, lower = true}`. Each name's value
// text without its type ("85", "true"); nullopt when there is no backend_config or it is
// not such a dictionary.
std::optional<std::map<std::string, std::string>> FfiAttributes(const Instruction& instruction);

// XLA writes its configs from protos: int64 fields as strings ("1"), doubles as numbers.
// The integer list at `key` of `object` (empty when absent), its items strings or numbers;
// an error naming the key when it is something else.
StatusOr<std::vector<int64_t>> JsonIntegerList(const nlohmann::json& object, const char* key);
// The number at `key` (a number or a numeric string), or `fallback` when absent or neither.
double JsonNumberOr(const nlohmann::json& object, const char* key, double fallback);
// The string at `key`, or `fallback` when absent or not a string.
std::string JsonStringOr(const nlohmann::json& object, const char* key, const std::string& fallback);
// The boolean at `key`, or `fallback` when absent or not a boolean.
bool JsonBoolOr(const nlohmann::json& object, const char* key, bool fallback);

}  // namespace fusebox

// Access to an instruction's backend_config as JSON. The text is always kept verbatim
// on the instruction; this parses it when it is JSON (XLA writes JSON objects for GPU
// and CPU configs; some tools write plain strings).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "compiler/ir/instruction.h"

namespace fusebox {

// The parsed JSON object, or nullopt when there is no backend_config or it is not JSON.
std::optional<nlohmann::json> BackendConfigJson(const Instruction& instruction);

// True when the instruction has a backend_config that is not valid JSON (for warnings).
bool HasNonJsonBackendConfig(const Instruction& instruction);

}  // namespace fusebox

// backend_config JSON parsing (nlohmann::json, without exceptions).
#include "compiler/ir/backend_config.h"

namespace fusebox {

std::optional<nlohmann::json> BackendConfigJson(const Instruction& instruction) {
  const InstructionAttributes& a = instruction.attrs();
  if (!a.has_backend_config || a.backend_config.empty()) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(a.backend_config, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

bool HasNonJsonBackendConfig(const Instruction& instruction) {
  const InstructionAttributes& a = instruction.attrs();
  if (!a.has_backend_config || a.backend_config.empty()) return false;
  return !nlohmann::json::accept(a.backend_config);
}

}  // namespace fusebox

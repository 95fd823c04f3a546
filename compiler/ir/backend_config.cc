// backend_config JSON parsing (nlohmann::json, without exceptions).
#include "compiler/ir/backend_config.h"

#include <cstdlib>

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

StatusOr<std::vector<int64_t>> JsonIntegerList(const nlohmann::json& object, const char* key) {
  std::vector<int64_t> out;
  if (!object.is_object() || !object.contains(key)) return out;
  const nlohmann::json& list = object.at(key);
  if (!list.is_array()) return InvalidArgument(std::string(key) + " is not a list");
  for (const nlohmann::json& item : list) {
    if (item.is_number_integer()) {
      out.push_back(item.get<int64_t>());
    } else if (item.is_string()) {
      const std::string text = item.get<std::string>();
      char* end = nullptr;
      const long long value = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0') return InvalidArgument(std::string(key) + " holds '" + text + "', not a number");
      out.push_back(value);
    } else {
      return InvalidArgument(std::string(key) + " holds something that is not an integer");
    }
  }
  return out;
}

double JsonNumberOr(const nlohmann::json& object, const char* key, double fallback) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  const nlohmann::json& value = object.at(key);
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    return text.empty() || *end != '\0' ? fallback : parsed;
  }
  return fallback;
}

std::string JsonStringOr(const nlohmann::json& object, const char* key, const std::string& fallback) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_string()) return fallback;
  return object.at(key).get<std::string>();
}

bool JsonBoolOr(const nlohmann::json& object, const char* key, bool fallback) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_boolean()) return fallback;
  return object.at(key).get<bool>();
}

}  // namespace fusebox

// backend_config JSON parsing (nlohmann::json, without exceptions).
#include "compiler/ir/backend_config.h"

#include <cctype>
#include <cstdlib>
#include <string_view>

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

namespace {

std::string Trim(std::string_view text) {
  size_t a = 0, b = text.size();
  while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
  return std::string(text.substr(a, b - a));
}

// `text` split at `separator` where no bracket or quote is open.
std::vector<std::string_view> SplitTopLevel(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '{' || c == '[' || c == '(' || c == '<') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ')' || c == '>') {
      --depth;
    } else if (c == separator && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

std::optional<std::map<std::string, std::string>> FfiAttributes(const Instruction& instruction) {
  const InstructionAttributes& a = instruction.attrs();
  if (!a.has_backend_config) return std::nullopt;
  std::string text = Trim(a.backend_config);
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') text = Trim(std::string_view(text).substr(1, text.size() - 2));
  std::map<std::string, std::string> attributes;
  if (text.empty()) return attributes;
  for (std::string_view item : SplitTopLevel(text, ',')) {
    const std::vector<std::string_view> sides = SplitTopLevel(item, '=');
    if (sides.size() != 2) return std::nullopt;
    const std::string name = Trim(sides[0]);
    if (name.empty() || name.find_first_of(" \t\"{}:") != std::string::npos) return std::nullopt;
    const std::vector<std::string_view> typed = SplitTopLevel(sides[1], ':');
    const std::string value = Trim(typed[0]);
    if (value.empty()) return std::nullopt;
    attributes[name] = value;
  }
  return attributes;
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

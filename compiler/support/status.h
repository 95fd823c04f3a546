// Errors as values: Status and StatusOr<T>. Fusebox never throws across library
// boundaries and never aborts on user input; every failure is a message a user can act on.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fusebox {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad user input (malformed file, bad flag)
  kNotFound,
  kUnimplemented,
  kUnavailable,  // a missing tool or device (no ptxas, no GPU)
  kInternal,     // a Fusebox bug
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prepends context, e.g. "while parsing foo.hlo: ".
  Status WithPrefix(const std::string& prefix) const {
    if (ok()) return *this;
    return Status(code_, prefix + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(StatusCode::kNotFound, std::move(message));
}
inline Status Unimplemented(std::string message) {
  return Status(StatusCode::kUnimplemented, std::move(message));
}
inline Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}
// Work stopped because its caller cancelled it (a cancel flag seen set): not a failure
// of the input, and not worth remembering as the outcome of the work.
inline Status Cancelled() { return Status(StatusCode::kUnavailable, "cancelled"); }
inline bool IsCancelled(const Status& status) {
  // Callers may put where it stopped in front ("12:3: %w (while): cancelled").
  const std::string& m = status.message();
  return status.code() == StatusCode::kUnavailable &&
         (m == "cancelled" || (m.size() > 11 && m.compare(m.size() - 11, 11, ": cancelled") == 0));
}

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "StatusOr built from an OK status");
    if (status_.ok()) status_ = Internal("StatusOr built from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace fusebox

#define FUSEBOX_CONCAT_INNER(a, b) a##b
#define FUSEBOX_CONCAT(a, b) FUSEBOX_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)              \
  do {                                     \
    ::fusebox::Status _st = (expr);        \
    if (!_st.ok()) return _st;             \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(FUSEBOX_CONCAT(_status_or_, __LINE__), lhs, expr)

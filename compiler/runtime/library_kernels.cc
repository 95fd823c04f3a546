// Library kernels of the CPU runtime: the comparator-driven stable sort here; dot
// (library_kernels_dot.cc) and convolution (library_kernels_conv.cc) apart, on the
// shared machinery of library_kernels_internal.h. See the header for the contract.
#include "compiler/runtime/library_kernels.h"
#include "compiler/runtime/library_kernels_internal.h"

namespace fusebox::runtime::library {

namespace {
thread_local ParallelRunner* current_runner = nullptr;
}  // namespace

ParallelRunner* TakeParallelRunner() { return std::exchange(current_runner, nullptr); }
void ReturnParallelRunner(ParallelRunner* runner) { current_runner = runner; }
bool HasParallelRunner() { return current_runner != nullptr; }

}  // namespace fusebox::runtime::library

namespace fusebox::runtime::library {
namespace {

// ===========================================================================
// sort
// ===========================================================================

// Stable merge sort of the positions a[0, n) by less(x, y), with `tmp` of n slots:
// insertion-sorted runs of 16 merged bottom-up. Every index stays in range whatever the
// comparator answers.
template <typename Less>
void StableSort(int64_t* a, int64_t* tmp, int64_t n, Less&& less) {
  constexpr int64_t kRun = 16;
  for (int64_t lo = 0; lo < n; lo += kRun) {
    const int64_t hi = std::min(n, lo + kRun);
    for (int64_t i = lo + 1; i < hi; ++i) {
      const int64_t v = a[i];
      int64_t j = i;
      for (; j > lo && less(v, a[j - 1]); --j) a[j] = a[j - 1];
      a[j] = v;
    }
  }
  int64_t* src = a;
  int64_t* dst = tmp;
  for (int64_t width = kRun; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(n, lo + width);
      const int64_t hi = std::min(n, lo + 2 * width);
      int64_t i = lo, j = mid, k = lo;
      if (mid < hi && !less(src[mid], src[mid - 1])) {  // already in order
        std::copy(src + lo, src + hi, dst + lo);
        continue;
      }
      while (i < mid && j < hi) dst[k++] = less(src[j], src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
}

struct SortPlan {
  std::vector<int64_t> dims;
  int64_t axis = 0;
  std::vector<std::vector<int64_t>> strides;  // per operand
  std::vector<int64_t> bytes;                 // per operand
};

Status PlanSort(const Instruction& sort, SortPlan* p) {
  if (sort.opcode() != Opcode::kSort) return Invalid(sort, "not a sort");
  const int64_t n = sort.operand_count();
  if (n == 0) return Invalid(sort, "expects at least one operand");
  const Shape& result = sort.shape();
  if (result.IsTuple() ? result.tuple_size() != n : n != 1) {
    return Invalid(
        sort, "result shape " + result.ToString() + " does not match " + Str(n) + " operand(s)");
  }
  p->dims = sort.operand(0)->shape().dimensions();
  for (int64_t k = 0; k < n; ++k) {
    const Shape& operand = sort.operand(k)->shape();
    const Shape& buffer = result.IsTuple() ? result.tuple_shapes(k) : result;
    const std::string what = "operand " + Str(k);
    if (!operand.IsArray() || !buffer.IsArray() ||
        operand.element_type() != buffer.element_type()) {
      return Invalid(sort, what + " and its result must be arrays of one element type");
    }
    if (operand.dimensions() != p->dims || buffer.dimensions() != p->dims) {
      return Invalid(sort, what + " must have dimensions " + DimsText(p->dims));
    }
    std::vector<int64_t> strides;
    RETURN_IF_ERROR(DenseStrides(sort, buffer, what, &strides));
    p->strides.push_back(std::move(strides));
    p->bytes.push_back(ByteWidth(buffer.element_type()));
    if (p->bytes.back() <= 0)
      return Unsupported(sort, "element type " + TypeName(buffer.element_type()));
  }
  const std::vector<int64_t>& dimensions = sort.dimensions();
  if (dimensions.size() != 1 || dimensions[0] < 0 ||
      dimensions[0] >= static_cast<int64_t>(p->dims.size())) {
    return Invalid(sort, "dimensions= must name one dimension of the operands");
  }
  p->axis = dimensions[0];
  return Status::Ok();
}

}  // namespace
}  // namespace fusebox::runtime::library

namespace fusebox::runtime {

ScopedParallelRunner::ScopedParallelRunner(ParallelRunner* runner)
    : previous_(library::TakeParallelRunner()) {
  library::ReturnParallelRunner(runner);
}

ScopedParallelRunner::~ScopedParallelRunner() { library::ReturnParallelRunner(previous_); }

using namespace runtime::library;  // NOLINT: the library kernels' shared machinery

bool CanRunSort(const Instruction& sort, std::string* why) {
  SortPlan plan;
  const Status status = PlanSort(sort, &plan);
  if (!status.ok() && why != nullptr) *why = status.message();
  return status.ok();
}

Status RunSort(const Instruction& sort, const std::vector<void*>& operands,
               SortComparator comparator, void* context) {
  SortPlan p;
  RETURN_IF_ERROR(PlanSort(sort, &p));
  const size_t n = p.strides.size();
  if (operands.size() != n) {
    return Invalid(sort, "got " + Str(static_cast<int64_t>(operands.size())) + " buffers for " +
                             Str(static_cast<int64_t>(n)) + " operands");
  }
  if (comparator == nullptr) return Invalid(sort, "no comparator");
  const int64_t len = p.dims[p.axis];
  if (Product(p.dims) == 0 || len <= 1) return Status::Ok();
  for (void* buffer : operands) {
    if (buffer == nullptr) return Invalid(sort, "null buffer");
  }
  try {
    std::vector<int64_t> perm(static_cast<size_t>(len)), tmp(static_cast<size_t>(len));
    std::vector<const void*> args(2 * n);
    const int64_t max_bytes = *std::max_element(p.bytes.begin(), p.bytes.end());
    std::vector<uint8_t> row(static_cast<size_t>(len * max_bytes));
    std::vector<uint8_t*> base(n);
    std::vector<int64_t> step(n);  // bytes between consecutive elements of a row
    for (size_t k = 0; k < n; ++k) step[k] = p.strides[k][p.axis] * p.bytes[k];

    // Every row: all dimensions but the axis, with one offset per operand.
    std::vector<int64_t> outer;
    for (size_t d = 0; d < p.dims.size(); ++d) {
      if (static_cast<int64_t>(d) != p.axis) outer.push_back(static_cast<int64_t>(d));
    }
    std::vector<int64_t> index(outer.size(), 0);
    auto less = [&](int64_t a, int64_t b) {
      for (size_t k = 0; k < n; ++k) {
        args[2 * k] = base[k] + a * step[k];
        args[2 * k + 1] = base[k] + b * step[k];
      }
      return comparator(args.data(), context);
    };
    while (true) {
      for (size_t k = 0; k < n; ++k) {
        int64_t offset = 0;
        for (size_t i = 0; i < outer.size(); ++i) offset += index[i] * p.strides[k][outer[i]];
        base[k] = static_cast<uint8_t*>(operands[k]) + offset * p.bytes[k];
      }
      std::iota(perm.begin(), perm.end(), 0);
      StableSort(perm.data(), tmp.data(), len, less);
      for (size_t k = 0; k < n; ++k) {
        const int64_t b = p.bytes[k];
        for (int64_t j = 0; j < len; ++j) std::memcpy(&row[j * b], base[k] + perm[j] * step[k], b);
        for (int64_t j = 0; j < len; ++j) std::memcpy(base[k] + j * step[k], &row[j * b], b);
      }
      int64_t d = static_cast<int64_t>(outer.size()) - 1;
      for (; d >= 0; --d) {
        if (++index[d] < p.dims[outer[d]]) break;
        index[d] = 0;
      }
      if (d < 0) break;
    }
  } catch (const std::bad_alloc&) {
    return OutOfMemory(sort);
  }
  return Status::Ok();
}

}  // namespace fusebox::runtime

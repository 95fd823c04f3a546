// cuBLASLt through dlopen: the entry points the epilogue gemms need, resolved by name, with
// the enum values and the heuristic result's layout kept here (checked against cublasLt.h
// when the headers are there at build time).
#include "compiler/runtime/cublas_lt.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/runtime/cuda_library_loader.h"

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#include <cublasLt.h>
#endif

namespace fusebox::runtime {
namespace {

// cublasOperation_t (the type codes are in cuda_library_loader.cc).
constexpr int kOpN = 0, kOpT = 1;
// cublasLtMatmulDescAttributes_t, cublasLtMatrixLayoutAttribute_t,
// cublasLtMatmulPreferenceAttributes_t, cublasLtEpilogue_t.
constexpr int kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7, kDescBiasPointer = 8, kDescAuxPointer = 11,
              kDescAuxLd = 12, kDescAuxBatchStride = 13;
constexpr int kLayoutBatchCount = 5, kLayoutStridedBatchOffset = 6;
constexpr int kPrefMaxWorkspaceBytes = 1, kPrefMinAlignmentA = 5, kPrefMinAlignmentB = 6, kPrefMinAlignmentC = 7,
              kPrefMinAlignmentD = 8;
constexpr uint32_t kEpilogueDefault = 1, kEpilogueRelu = 2, kEpilogueBias = 4, kEpilogueReluBias = 6,
                   kEpilogueGelu = 32, kEpilogueGeluBias = 36, kEpilogueGeluAux = 160, kEpilogueGeluAuxBias = 164;

// What cuBLASLt assumes of a pointer unless told, and what the executable's buffers keep
// (gpu_executable.cc's kDeviceAlignment; cuMemAlloc's is larger).
constexpr int64_t kCublasLtAssumedAlignment = 256;

// cublasLtMatmulHeuristicResult_t.
struct HeuristicResult {
  uint64_t algo[8];
  size_t workspace_size;
  int state;
  float waves_count;
  int reserved[4];
};

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
static_assert(kOpN == CUBLAS_OP_N && kOpT == CUBLAS_OP_T);
static_assert(kDescTransA == CUBLASLT_MATMUL_DESC_TRANSA && kDescTransB == CUBLASLT_MATMUL_DESC_TRANSB &&
              kDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE && kDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(kDescAuxPointer == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER &&
              kDescAuxLd == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD &&
              kDescAuxBatchStride == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE);
static_assert(kLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT &&
              kLayoutStridedBatchOffset == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(kPrefMaxWorkspaceBytes == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(kPrefMinAlignmentA == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES &&
              kPrefMinAlignmentB == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES &&
              kPrefMinAlignmentC == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES &&
              kPrefMinAlignmentD == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
static_assert(kEpilogueDefault == CUBLASLT_EPILOGUE_DEFAULT && kEpilogueRelu == CUBLASLT_EPILOGUE_RELU &&
              kEpilogueBias == CUBLASLT_EPILOGUE_BIAS && kEpilogueReluBias == CUBLASLT_EPILOGUE_RELU_BIAS &&
              kEpilogueGelu == CUBLASLT_EPILOGUE_GELU && kEpilogueGeluBias == CUBLASLT_EPILOGUE_GELU_BIAS &&
              kEpilogueGeluAux == CUBLASLT_EPILOGUE_GELU_AUX && kEpilogueGeluAuxBias == CUBLASLT_EPILOGUE_GELU_AUX_BIAS);
static_assert(sizeof(HeuristicResult) == sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(HeuristicResult, workspace_size) == offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(HeuristicResult, state) == offsetof(cublasLtMatmulHeuristicResult_t, state));
#endif

struct CublasLtApi {
  int (*create)(void**) = nullptr;
  int (*destroy)(void*) = nullptr;
  size_t (*get_version)() = nullptr;
  const char* (*status_string)(int) = nullptr;
  int (*desc_create)(void**, int, int) = nullptr;
  int (*desc_set)(void*, int, const void*, size_t) = nullptr;
  int (*desc_destroy)(void*) = nullptr;
  int (*layout_create)(void**, int, uint64_t, uint64_t, int64_t) = nullptr;
  int (*layout_set)(void*, int, const void*, size_t) = nullptr;
  int (*layout_destroy)(void*) = nullptr;
  int (*pref_create)(void**) = nullptr;
  int (*pref_set)(void*, int, const void*, size_t) = nullptr;
  int (*pref_destroy)(void*) = nullptr;
  int (*heuristic)(void*, void*, void*, void*, void*, void*, void*, int, HeuristicResult*, int*) = nullptr;
  int (*matmul)(void*, void*, const void*, const void*, void*, const void*, void*, const void*, const void*, void*,
                void*, void*, const void*, void*, size_t, void*) = nullptr;
  std::string library;
  Status status;
};

const CublasLtApi& Api() {
  static const CublasLtApi* api = [] {
    auto* a = new CublasLtApi();  // never freed: cuBLASLt stays loaded for the process
    std::string tried;
    void* library = OpenFirstLibrary({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so",
                                      "/usr/local/cuda/lib64/libcublasLt.so.13",
                                      "/usr/local/cuda/lib64/libcublasLt.so.12"},
                                     &a->library, &tried);
    if (library == nullptr) {
      a->status = Unavailable("cuBLASLt unavailable (libcublasLt.so.13 not found: " + tried +
                              "); --gpu-library=off runs Fusebox's own dot kernels");
      return a;
    }
    SymbolResolver symbols(library);
    symbols.Need("cublasLtCreate", &a->create);
    symbols.Need("cublasLtDestroy", &a->destroy);
    symbols.Need("cublasLtGetVersion", &a->get_version);
    symbols.Need("cublasLtMatmulDescCreate", &a->desc_create);
    symbols.Need("cublasLtMatmulDescSetAttribute", &a->desc_set);
    symbols.Need("cublasLtMatmulDescDestroy", &a->desc_destroy);
    symbols.Need("cublasLtMatrixLayoutCreate", &a->layout_create);
    symbols.Need("cublasLtMatrixLayoutSetAttribute", &a->layout_set);
    symbols.Need("cublasLtMatrixLayoutDestroy", &a->layout_destroy);
    symbols.Need("cublasLtMatmulPreferenceCreate", &a->pref_create);
    symbols.Need("cublasLtMatmulPreferenceSetAttribute", &a->pref_set);
    symbols.Need("cublasLtMatmulPreferenceDestroy", &a->pref_destroy);
    symbols.Need("cublasLtMatmulAlgoGetHeuristic", &a->heuristic);
    symbols.Need("cublasLtMatmul", &a->matmul);
    symbols.Optional("cublasLtGetStatusString", &a->status_string);
    if (!symbols.missing().empty())
      a->status = Unavailable("cuBLASLt unavailable (" + a->library + " lacks " + symbols.missing() + ")");
    return a;
  }();
  return *api;
}

Status LtError(const char* call, int code) {
  const CublasLtApi& api = Api();
  const char* name = api.status_string != nullptr ? api.status_string(code) : nullptr;
  return Internal(std::string(call) + ": " + (name != nullptr ? name : "cuBLASLt error") + " (" +
                  std::to_string(code) + ")");
}

#define FUSEBOX_CUBLASLT(call, expr)              \
  do {                                            \
    const int _rc = (expr);                       \
    if (_rc != 0) return LtError(call, _rc);      \
  } while (0)

uint32_t EpilogueCode(GemmEpilogue epilogue) {
  switch (epilogue) {
    case GemmEpilogue::kDefault:
      return kEpilogueDefault;
    case GemmEpilogue::kBias:
      return kEpilogueBias;
    case GemmEpilogue::kRelu:
      return kEpilogueRelu;
    case GemmEpilogue::kBiasRelu:
      return kEpilogueReluBias;
    case GemmEpilogue::kGelu:
      return kEpilogueGelu;
    case GemmEpilogue::kBiasGelu:
      return kEpilogueGeluBias;
    case GemmEpilogue::kGeluAux:
      return kEpilogueGeluAux;
    case GemmEpilogue::kBiasGeluAux:
      return kEpilogueGeluAuxBias;
  }
  return kEpilogueDefault;
}

// A column-major matrix layout: `rows` x `cols` with leading dimension `ld`, `batch`
// matrices `batch_stride` elements apart.
Status MakeLayout(void** layout, GemmDataType type, int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                  int64_t batch_stride) {
  const CublasLtApi& api = Api();
  FUSEBOX_CUBLASLT("cublasLtMatrixLayoutCreate", api.layout_create(layout, CudaDataTypeCode(type), static_cast<uint64_t>(rows),
                                                                   static_cast<uint64_t>(cols), ld));
  if (batch > 1) {
    const int32_t count = static_cast<int32_t>(batch);
    FUSEBOX_CUBLASLT("cublasLtMatrixLayoutSetAttribute",
                     api.layout_set(*layout, kLayoutBatchCount, &count, sizeof(count)));
    FUSEBOX_CUBLASLT("cublasLtMatrixLayoutSetAttribute",
                     api.layout_set(*layout, kLayoutStridedBatchOffset, &batch_stride, sizeof(batch_stride)));
  }
  return Status::Ok();
}

}  // namespace

Status CublasLtAvailable() { return Api().status; }

StatusOr<std::unique_ptr<CublasLt>> CublasLt::Create(CudaContext& context) {
  const CublasLtApi& api = Api();
  RETURN_IF_ERROR(api.status);
  std::unique_ptr<CublasLt> out(new CublasLt());
  ASSIGN_OR_RETURN(out->stream_, context.CurrentStream());
  out->context_ = &context;
  if (int rc = api.create(&out->handle_); rc != 0) {
    out->handle_ = nullptr;
    return LtError("cublasLtCreate", rc);
  }
  const size_t version = api.get_version();  // major * 10000 + minor * 100 + patch
  out->description_ = "cuBLASLt " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
                      "." + std::to_string(version % 100) + " (" + api.library + ")";
  return out;
}

CublasLt::~CublasLt() {
  if (handle_ != nullptr) Api().destroy(handle_);
}

CublasLt::Matmul::~Matmul() {
  const CublasLtApi& api = Api();
  for (void* layout : {a_, b_, c_}) {
    if (layout != nullptr) api.layout_destroy(layout);
  }
  if (desc_ != nullptr) api.desc_destroy(desc_);
}

StatusOr<std::unique_ptr<CublasLt::Matmul>> CublasLt::Prepare(const GemmPlan& plan, int64_t max_workspace) {
  const CublasLtApi& api = Api();
  RETURN_IF_ERROR(api.status);
  std::unique_ptr<Matmul> mm(new Matmul());
  mm->plan_ = plan;
  const int scale_type =
      CudaDataTypeCode(plan.compute == GemmComputeType::kF64 ? GemmDataType::kF64 : GemmDataType::kF32);
  FUSEBOX_CUBLASLT("cublasLtMatmulDescCreate", api.desc_create(&mm->desc_, CublasComputeTypeCode(plan.compute), scale_type));
  const int32_t trans_a = plan.a.transpose ? kOpT : kOpN, trans_b = plan.b.transpose ? kOpT : kOpN;
  const uint32_t epilogue = EpilogueCode(plan.epilogue);
  FUSEBOX_CUBLASLT("cublasLtMatmulDescSetAttribute", api.desc_set(mm->desc_, kDescTransA, &trans_a, sizeof(trans_a)));
  FUSEBOX_CUBLASLT("cublasLtMatmulDescSetAttribute", api.desc_set(mm->desc_, kDescTransB, &trans_b, sizeof(trans_b)));
  FUSEBOX_CUBLASLT("cublasLtMatmulDescSetAttribute",
                   api.desc_set(mm->desc_, kDescEpilogue, &epilogue, sizeof(epilogue)));
  if (GemmEpilogueHasAux(plan.epilogue)) {
    // The GELU's input is written laid out as D (the plan checked the multiples of 8).
    const int64_t aux_ld = plan.ldc, aux_stride = plan.c_batch_stride;
    FUSEBOX_CUBLASLT("cublasLtMatmulDescSetAttribute", api.desc_set(mm->desc_, kDescAuxLd, &aux_ld, sizeof(aux_ld)));
    if (plan.batch > 1) {
      FUSEBOX_CUBLASLT("cublasLtMatmulDescSetAttribute",
                       api.desc_set(mm->desc_, kDescAuxBatchStride, &aux_stride, sizeof(aux_stride)));
    }
  }
  // op(A) is m x k, op(B) k x n: stored transposed when the op is T.
  RETURN_IF_ERROR(MakeLayout(&mm->a_, plan.a.type, plan.a.transpose ? plan.k : plan.m,
                             plan.a.transpose ? plan.m : plan.k, plan.a.ld, plan.batch, plan.a.batch_stride));
  RETURN_IF_ERROR(MakeLayout(&mm->b_, plan.b.type, plan.b.transpose ? plan.n : plan.k,
                             plan.b.transpose ? plan.k : plan.n, plan.b.ld, plan.batch, plan.b.batch_stride));
  RETURN_IF_ERROR(MakeLayout(&mm->c_, plan.c_type, plan.m, plan.n, plan.ldc, plan.batch, plan.c_batch_stride));
  void* pref = nullptr;
  FUSEBOX_CUBLASLT("cublasLtMatmulPreferenceCreate", api.pref_create(&pref));
  const uint64_t limit = static_cast<uint64_t>(max_workspace);
  int rc = api.pref_set(pref, kPrefMaxWorkspaceBytes, &limit, sizeof(limit));
  // cuBLASLt assumes 256-byte aligned pointers unless told: the loops' calls start at
  // offsets that may keep less (the GELU's aux is laid out as D).
  const GemmCallAlignment align = GemmCallPointerAlignment(plan, kCublasLtAssumedAlignment);
  const uint32_t a_align = static_cast<uint32_t>(align.a), b_align = static_cast<uint32_t>(align.b),
                 c_align = static_cast<uint32_t>(align.c);
  if (rc == 0) rc = api.pref_set(pref, kPrefMinAlignmentA, &a_align, sizeof(a_align));
  if (rc == 0) rc = api.pref_set(pref, kPrefMinAlignmentB, &b_align, sizeof(b_align));
  if (rc == 0) rc = api.pref_set(pref, kPrefMinAlignmentC, &c_align, sizeof(c_align));
  if (rc == 0) rc = api.pref_set(pref, kPrefMinAlignmentD, &c_align, sizeof(c_align));
  // Autotuning times up to 32 of the heuristic's candidates (XLA asks for all; the small
  // products of training steps are where a split-K pair of kernels and a single kernel
  // differ most, and the first few are often all split-K); off, its first is enough.
  constexpr int kTunedCandidates = 32;
  std::vector<HeuristicResult> results(autotune_ ? kTunedCandidates : 1);
  int returned = 0;
  if (rc == 0) {
    rc = api.heuristic(handle_, mm->desc_, mm->a_, mm->b_, mm->c_, mm->c_, pref, static_cast<int>(results.size()),
                       results.data(), &returned);
  }
  api.pref_destroy(pref);
  if (rc != 0) return LtError("cublasLtMatmulAlgoGetHeuristic", rc);
  std::vector<Candidate> candidates;
  for (int i = 0; i < returned; ++i) {
    if (results[i].state != 0 || static_cast<int64_t>(results[i].workspace_size) > max_workspace) continue;
    Candidate c;
    for (int j = 0; j < 8; ++j) c.algo[j] = results[i].algo[j];
    c.workspace_bytes = static_cast<int64_t>(results[i].workspace_size);
    candidates.push_back(c);
  }
  if (!candidates.empty()) {
    int best = -1;
    if (autotune_ && candidates.size() > 1) {
      std::string key;
      if (cache_ != nullptr && context_ != nullptr) {
        const CudaDeviceInfo& device = context_->device();
        key = GemmAutotuneKey(AutotuneScope(description_, device.name, device.compute_major, device.compute_minor),
                              plan, max_workspace);
        best = CachedCandidate(*mm, key, candidates);
      }
      if (best < 0) {
        best = Autotune(*mm, candidates);
        if (best >= 0 && !key.empty()) {
          const Candidate& won = candidates[static_cast<size_t>(best)];
          AutotuneRecord record{{}, mm->tuning_.moved, mm->tuning_.text};
          for (uint64_t word : won.algo) record.numbers.push_back(word);
          record.numbers.push_back(static_cast<uint64_t>(won.workspace_bytes));
          (void)cache_->Insert(key, record);
        }
      }
    }
    const Candidate& chosen = candidates[static_cast<size_t>(std::max(best, 0))];
    for (int j = 0; j < 8; ++j) mm->algo_[j] = chosen.algo[j];
    mm->workspace_bytes_ = chosen.workspace_bytes;
    return mm;
  }
  return Unavailable("cuBLASLt has no algorithm for " + plan.ToString() + " within a workspace of " +
                     std::to_string(max_workspace) + " bytes");
}

namespace {

// Elements from a column-major matrix's first to its last (over the batch), plus one.
int64_t MatrixExtent(int64_t rows, int64_t cols, int64_t ld, int64_t batch, int64_t batch_stride) {
  return (batch - 1) * batch_stride + (cols - 1) * ld + rows;
}

}  // namespace

int CublasLt::CachedCandidate(Matmul& mm, const std::string& key, const std::vector<Candidate>& candidates) {
  std::optional<AutotuneRecord> hit = cache_->Find(key);
  if (!hit || hit->numbers.size() != 9) return -1;
  // The cached algorithm counts only while the heuristic still offers it (same words).
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!std::equal(candidates[i].algo, candidates[i].algo + 8, hit->numbers.begin())) continue;
    mm.tuning_ = {true, i != 0, true, hit->text + " (cached)"};
    return static_cast<int>(i);
  }
  return -1;
}

int CublasLt::Autotune(Matmul& mm, const std::vector<Candidate>& candidates) {
  const GemmPlan& plan = mm.plan_;
  if (context_ == nullptr || plan.empty) return -1;
  // One call of the plan (the loops repeat it at other offsets) on buffers of its shapes,
  // filled with 0x3c bytes (small normal numbers in f32, f16 and bf16).
  const int64_t a_bytes = MatrixExtent(plan.a.transpose ? plan.k : plan.m, plan.a.transpose ? plan.m : plan.k,
                                       plan.a.ld, plan.batch, plan.a.batch_stride) * GemmDataTypeBytes(plan.a.type);
  const int64_t b_bytes = MatrixExtent(plan.b.transpose ? plan.n : plan.k, plan.b.transpose ? plan.k : plan.n,
                                       plan.b.ld, plan.batch, plan.b.batch_stride) * GemmDataTypeBytes(plan.b.type);
  const int64_t c_bytes =
      MatrixExtent(plan.m, plan.n, plan.ldc, plan.batch, plan.c_batch_stride) * GemmDataTypeBytes(plan.c_type);
  int64_t workspace_bytes = 0;
  for (const Candidate& c : candidates) workspace_bytes = std::max(workspace_bytes, c.workspace_bytes);
  // A and B may be views of one operand (x times its transpose): both buffers hold either.
  const int64_t ab_bytes = std::max(a_bytes, b_bytes);
  StatusOr<std::vector<DeviceBuffer>> buffers = context_->AllocateFilled(
      {ab_bytes, ab_bytes, c_bytes, c_bytes, std::max(plan.m, plan.n) * GemmDataTypeBytes(plan.c_type),
       workspace_bytes},
      0x3c);
  if (!buffers.ok()) {
    mm.tuning_.text = "not autotuned (" + buffers.status().message() + ")";
    return -1;
  }
  const std::vector<DeviceBuffer>& held = *buffers;
  const DevicePtr a = held[0].ptr(), b = held[1].ptr(), d = held[2].ptr(), aux = held[3].ptr(),
                  bias = held[4].ptr(), workspace = held[5].ptr();
  // Run() takes the call's operands 0 and 1 and finds A and B among them.
  const DevicePtr lhs = plan.a.operand == 0 ? a : b, rhs = plan.a.operand == 0 ? b : a;
  const DevicePtr bias_ptr = plan.bias_operand >= 0 ? bias : 0;
  const DevicePtr aux_ptr = GemmEpilogueHasAux(plan.epilogue) ? aux : 0;
  GemmPlan one = plan;
  one.loops.clear();  // one call, as the loops' calls all are
  int best = -1;
  double best_ms = 0, first_ms = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (int j = 0; j < 8; ++j) mm.algo_[j] = candidates[i].algo[j];
    mm.workspace_bytes_ = candidates[i].workspace_bytes;
    std::swap(mm.plan_, one);
    auto call = [&] { return Run(mm, lhs, rhs, d, bias_ptr, workspace, aux_ptr); };
    Status warm = call();
    double ms = -1;
    if (warm.ok()) {
      for (int repeat = 0; repeat < 3; ++repeat) {
        StatusOr<double> t = context_->TimeOnStream(call);
        if (!t.ok()) {
          ms = -1;
          break;
        }
        ms = ms < 0 ? *t : std::min(ms, *t);
      }
    }
    std::swap(mm.plan_, one);
    if (ms < 0) continue;  // this algorithm failed here: not a candidate
    if (i == 0) first_ms = ms;
    if (best < 0 || ms < best_ms) {
      best = static_cast<int>(i);
      best_ms = ms;
    }
  }
  (void)context_->Synchronize();
  if (best < 0) {
    mm.tuning_.text = "not autotuned (no candidate ran)";
    return -1;
  }
  char line[160];
  std::snprintf(line, sizeof(line), "the heuristic's #%d of %zu, %.1f us", best + 1, candidates.size(), best_ms * 1e3);
  mm.tuning_ = {true, best != 0, false, line};
  if (best != 0 && first_ms >= 0) {
    std::snprintf(line, sizeof(line), "; its first %.1f us", first_ms * 1e3);
    mm.tuning_.text += line;
  }
  return best;
}

Status CublasLt::Run(const Matmul& matmul, DevicePtr lhs, DevicePtr rhs, DevicePtr out, DevicePtr bias,
                     DevicePtr workspace, DevicePtr aux) {
  const CublasLtApi& api = Api();
  RETURN_IF_ERROR(api.status);
  const GemmPlan& plan = matmul.plan_;
  if (plan.empty) return Status::Ok();
  const bool has_aux = GemmEpilogueHasAux(plan.epilogue);
  if (has_aux && aux == 0) return InvalidArgument("cuBLASLt: the GELU_AUX epilogue has no aux buffer");
  if (plan.bias_operand >= 0) {
    if (bias == 0) return InvalidArgument("cuBLASLt: the bias epilogue has no bias buffer");
    const void* pointer = reinterpret_cast<const void*>(bias);
    FUSEBOX_CUBLASLT("cublasLtMatmulDescSetAttribute",
                     api.desc_set(matmul.desc_, kDescBiasPointer, &pointer, sizeof(pointer)));
  }
  const DevicePtr a = plan.a.operand == 0 ? lhs : rhs;
  const DevicePtr b = plan.b.operand == 0 ? lhs : rhs;
  const double alpha64 = plan.alpha, beta64 = plan.beta;
  const float alpha32 = static_cast<float>(plan.alpha), beta32 = static_cast<float>(plan.beta);
  const bool f64 = plan.compute == GemmComputeType::kF64;
  const void* alpha = f64 ? static_cast<const void*>(&alpha64) : static_cast<const void*>(&alpha32);
  const void* beta = f64 ? static_cast<const void*>(&beta64) : static_cast<const void*>(&beta32);
  // One call per iteration of the plan's loops (one call when it has none).
  for (int64_t call = 0; call < plan.calls(); ++call) {
    const GemmPlan::Offsets at = plan.CallOffsets(call);
    const DevicePtr a_call = a + static_cast<DevicePtr>(at.a * GemmDataTypeBytes(plan.a.type));
    const DevicePtr b_call = b + static_cast<DevicePtr>(at.b * GemmDataTypeBytes(plan.b.type));
    const DevicePtr c_offset = static_cast<DevicePtr>(at.c * GemmDataTypeBytes(plan.c_type));
    void* d = reinterpret_cast<void*>(out + c_offset);
    if (has_aux) {  // the aux is laid out as D
      void* aux_call = reinterpret_cast<void*>(aux + c_offset);
      FUSEBOX_CUBLASLT("cublasLtMatmulDescSetAttribute",
                       api.desc_set(matmul.desc_, kDescAuxPointer, &aux_call, sizeof(aux_call)));
    }
    FUSEBOX_CUBLASLT("cublasLtMatmul",
                     api.matmul(handle_, matmul.desc_, alpha, reinterpret_cast<const void*>(a_call), matmul.a_,
                                reinterpret_cast<const void*>(b_call), matmul.b_, beta, d, matmul.c_, d, matmul.c_,
                                matmul.algo_, reinterpret_cast<void*>(workspace),
                                static_cast<size_t>(matmul.workspace_bytes_), stream_));
  }
  return Status::Ok();
}

#undef FUSEBOX_CUBLASLT

}  // namespace fusebox::runtime

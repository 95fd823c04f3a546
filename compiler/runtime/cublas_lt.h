// cuBLASLt, loaded at run time (dlopen of libcublasLt.so.13/.12, then the toolkit's
// /usr/local/cuda/lib64), for the gemm plans with an epilogue (compiler/ir/gemm_plan.h:
// XLA's __cublas$lt$matmul calls, and the dots gemm-rewriter fuses with their bias add
// and relu). One Matmul per call holds its operation and matrix descriptors and the
// algorithm cuBLASLt's heuristic ranks first among those whose workspace fits, made once
// when the executable is created; Run queues cublasLtMatmul with the bias pointer on the
// executable's stream. Plain gemms stay on cuBLAS (compiler/runtime/cublas.h). A machine
// without cuBLASLt gets "cuBLASLt unavailable (...)"; `--gpu-library=off` runs
// Fusebox's own kernels instead.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/gemm_plan.h"
#include "compiler/runtime/autotune_cache.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class CublasLt {
 public:
  static StatusOr<std::unique_ptr<CublasLt>> Create(CudaContext& context);
  ~CublasLt();
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  // One planned matmul: descriptors and the chosen algorithm.
  class Matmul {
   public:
    ~Matmul();
    Matmul(const Matmul&) = delete;
    Matmul& operator=(const Matmul&) = delete;
    int64_t workspace_bytes() const { return workspace_bytes_; }
    const GemmPlan& plan() const { return plan_; }
    // What autotuning chose ("the heuristic's #3 of 32, 2.1 us; its first 4.4 us"), or why
    // it did not run; empty when it was off or had one candidate.
    const AlgorithmTuning& tuning() const { return tuning_; }

   private:
    friend class CublasLt;
    Matmul() = default;
    GemmPlan plan_;
    void* desc_ = nullptr;  // cublasLtMatmulDesc_t
    void* a_ = nullptr;     // cublasLtMatrixLayout_t of A, B and C (= D)
    void* b_ = nullptr;
    void* c_ = nullptr;
    uint64_t algo_[8] = {};  // cublasLtMatmulAlgo_t
    int64_t workspace_bytes_ = 0;
    AlgorithmTuning tuning_;
  };

  // Descriptors and an algorithm for `plan` (a workspace of at most `max_workspace` bytes).
  StatusOr<std::unique_ptr<Matmul>> Prepare(const GemmPlan& plan, int64_t max_workspace);
  // Queues D = epilogue(alpha * op(A) op(B) + beta * D + bias): `lhs`/`rhs` the call's
  // operands 0 and 1, `out` its value (holding c already when beta != 0), `bias` the bias
  // operand (0 without one), `workspace` workspace_bytes(), `aux` the call's second output
  // for the GELU_AUX epilogues (the GELU's input, laid out as `out`; 0 for the others).
  Status Run(const Matmul& matmul, DevicePtr lhs, DevicePtr rhs, DevicePtr out, DevicePtr bias, DevicePtr workspace,
             DevicePtr aux = 0);

  // "cuBLASLt 13.1.0 (libcublasLt.so.13)"
  const std::string& description() const { return description_; }

  // Autotuning (on by default): Prepare times each algorithm of the heuristic's ranking
  // (up to 32) whose workspace fits (one call of the plan on buffers of its shapes, after a warm-up,
  // best of three) and keeps the fastest, as XLA's autotuner does; off, the ranking's first.
  void set_autotune(bool on) { autotune_ = on; }
  // Where autotuning looks first and keeps what it chose (autotune_cache.h); the process's
  // cache by default, null for none (every call timed).
  void set_autotune_cache(AutotuneCache* cache) { cache_ = cache; }

 private:
  CublasLt() = default;
  struct Candidate {
    uint64_t algo[8];
    int64_t workspace_bytes;
  };
  // The index of the fastest of `candidates` for `mm` (its descriptors made), or -1 with
  // `mm.tuning_` saying why none was timed.
  int Autotune(Matmul& mm, const std::vector<Candidate>& candidates);
  // The candidate whose algorithm the cache holds for `key`, with `mm.tuning_` set from
  // it; -1 when the cache has none or cuBLASLt no longer offers it.
  int CachedCandidate(Matmul& mm, const std::string& key, const std::vector<Candidate>& candidates);
  CudaContext* context_ = nullptr;
  bool autotune_ = true;
  AutotuneCache* cache_ = &AutotuneCache::Process();
  void* handle_ = nullptr;  // cublasLtHandle_t
  void* stream_ = nullptr;  // the context's stream
  std::string description_;
};

// Whether cuBLASLt can be loaded here (no GPU needed); the message says why not.
Status CublasLtAvailable();

}  // namespace fusebox::runtime

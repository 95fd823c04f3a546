// cuFFT through dlopen: the entry points the GPU executable's Fourier transforms need,
// resolved by name, with cuFFT's enum values kept here (checked against cufft.h when the
// headers are there at build time).
#include "compiler/runtime/cufft.h"

#include <vector>

#include "compiler/runtime/cuda_library_loader.h"

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#include <cufft.h>
#endif

namespace fusebox::runtime {
namespace {

constexpr int kForward = -1, kInverse = 1;  // CUFFT_FORWARD, CUFFT_INVERSE

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
static_assert(kForward == CUFFT_FORWARD && kInverse == CUFFT_INVERSE);
static_assert(static_cast<int>(FftPlanType::kR2C) == CUFFT_R2C && static_cast<int>(FftPlanType::kC2R) == CUFFT_C2R &&
              static_cast<int>(FftPlanType::kC2C) == CUFFT_C2C && static_cast<int>(FftPlanType::kD2Z) == CUFFT_D2Z &&
              static_cast<int>(FftPlanType::kZ2D) == CUFFT_Z2D && static_cast<int>(FftPlanType::kZ2Z) == CUFFT_Z2Z);
#endif

using CreateFn = int (*)(int*);
using DestroyFn = int (*)(int);
using SetAutoAllocationFn = int (*)(int, int);
using MakePlanMany64Fn = int (*)(int, int, long long*, long long*, long long, long long, long long*, long long,
                                 long long, int, long long, size_t*);
using SetStreamFn = int (*)(int, void*);
using SetWorkAreaFn = int (*)(int, void*);
using GetVersionFn = int (*)(int*);
// cufftExecC2C/Z2Z take a direction; the real transforms do not.
using ExecWithDirectionFn = int (*)(int, void*, void*, int);
using ExecFn = int (*)(int, void*, void*);

struct CufftApi {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetAutoAllocationFn set_auto_allocation = nullptr;
  MakePlanMany64Fn make_plan_many64 = nullptr;
  SetStreamFn set_stream = nullptr;
  SetWorkAreaFn set_work_area = nullptr;
  GetVersionFn get_version = nullptr;
  ExecWithDirectionFn exec_c2c = nullptr, exec_z2z = nullptr;
  ExecFn exec_r2c = nullptr, exec_c2r = nullptr, exec_d2z = nullptr, exec_z2d = nullptr;
  std::string library;
  Status status;
};

const CufftApi& Api() {
  static const CufftApi* api = [] {
    auto* a = new CufftApi();  // never freed: cuFFT stays loaded for the process
    std::string tried;
    void* library = OpenFirstLibrary({"libcufft.so.12", "libcufft.so.11", "libcufft.so",
                                      "/usr/local/cuda/lib64/libcufft.so.12", "/usr/local/cuda/lib64/libcufft.so.11"},
                                     &a->library, &tried);
    if (library == nullptr) {
      a->status = Unavailable("cuFFT unavailable (libcufft.so.12 not found: " + tried +
                              "); --gpu-library=off runs the fft-expander's dots instead");
      return a;
    }
    SymbolResolver symbols(library);
    symbols.Need("cufftCreate", &a->create);
    symbols.Need("cufftDestroy", &a->destroy);
    symbols.Need("cufftSetAutoAllocation", &a->set_auto_allocation);
    symbols.Need("cufftMakePlanMany64", &a->make_plan_many64);
    symbols.Need("cufftSetStream", &a->set_stream);
    symbols.Need("cufftSetWorkArea", &a->set_work_area);
    symbols.Need("cufftGetVersion", &a->get_version);
    symbols.Need("cufftExecC2C", &a->exec_c2c);
    symbols.Need("cufftExecZ2Z", &a->exec_z2z);
    symbols.Need("cufftExecR2C", &a->exec_r2c);
    symbols.Need("cufftExecC2R", &a->exec_c2r);
    symbols.Need("cufftExecD2Z", &a->exec_d2z);
    symbols.Need("cufftExecZ2D", &a->exec_z2d);
    if (!symbols.missing().empty())
      a->status = Unavailable("cuFFT unavailable (" + a->library + " lacks " + symbols.missing() + ")");
    return a;
  }();
  return *api;
}

// cufftResult's names (cufft.h), for messages.
std::string ResultName(int code) {
  switch (code) {
    case 0x1: return "CUFFT_INVALID_PLAN";
    case 0x2: return "CUFFT_ALLOC_FAILED";
    case 0x3: return "CUFFT_INVALID_TYPE";
    case 0x4: return "CUFFT_INVALID_VALUE";
    case 0x5: return "CUFFT_INTERNAL_ERROR";
    case 0x6: return "CUFFT_EXEC_FAILED";
    case 0x7: return "CUFFT_SETUP_FAILED";
    case 0x8: return "CUFFT_INVALID_SIZE";
    case 0x9: return "CUFFT_UNALIGNED_DATA";
    case 0xB: return "CUFFT_INVALID_DEVICE";
    case 0xD: return "CUFFT_NO_WORKSPACE";
    case 0xE: return "CUFFT_NOT_IMPLEMENTED";
    case 0x10: return "CUFFT_NOT_SUPPORTED";
    default: return "cuFFT error";
  }
}

Status CufftError(const std::string& call, int code) {
  return Internal(call + ": " + ResultName(code) + " (" + std::to_string(code) + ")");
}

}  // namespace

Status CufftAvailable() { return Api().status; }

StatusOr<std::unique_ptr<Cufft>> Cufft::Create(CudaContext& context) {
  const CufftApi& api = Api();
  RETURN_IF_ERROR(api.status);
  ASSIGN_OR_RETURN(void* stream, context.CurrentStream());
  std::unique_ptr<Cufft> out(new Cufft());
  out->stream_ = stream;
  int version = 0;
  if (int rc = api.get_version(&version); rc != 0) return CufftError("cufftGetVersion", rc);
  // cuFFT's version number: major * 1000 + minor * 100 + patch (12000 is 12.0.0).
  out->description_ = "cuFFT " + std::to_string(version / 1000) + "." + std::to_string(version / 100 % 10) + "." +
                      std::to_string(version % 100) + " (" + api.library + ")";
  return out;
}

Cufft::Plan::~Plan() {
  if (handle_ >= 0 && made_) Api().destroy(handle_);
}

StatusOr<std::unique_ptr<Cufft::Plan>> Cufft::Prepare(const FftPlan& fft) {
  const CufftApi& api = Api();
  RETURN_IF_ERROR(api.status);
  std::unique_ptr<Plan> plan(new Plan());
  plan->plan_ = fft;
  if (fft.empty) return plan;
  if (int rc = api.create(&plan->handle_); rc != 0) return CufftError("cufftCreate", rc);
  plan->made_ = true;
  // Fusebox allocates the work area (one for every plan, the largest), as XLA's thunk
  // hands cuFFT a scratch allocator.
  if (int rc = api.set_auto_allocation(plan->handle_, 0); rc != 0) return CufftError("cufftSetAutoAllocation", rc);
  std::vector<long long> n(fft.lengths.begin(), fft.lengths.end());
  std::vector<long long> in_embed(fft.input_embed.begin(), fft.input_embed.end());
  std::vector<long long> out_embed(fft.output_embed.begin(), fft.output_embed.end());
  size_t work = 0;
  if (int rc = api.make_plan_many64(plan->handle_, static_cast<int>(n.size()), n.data(), in_embed.data(), 1,
                                    fft.input_distance, out_embed.data(), 1, fft.output_distance,
                                    static_cast<int>(fft.type), fft.batch, &work);
      rc != 0) {
    return CufftError("cufftMakePlanMany64 (" + fft.ToString() + ")", rc);
  }
  plan->workspace_bytes_ = static_cast<int64_t>(work);
  if (int rc = api.set_stream(plan->handle_, stream_); rc != 0) return CufftError("cufftSetStream", rc);
  return plan;
}

Status Cufft::Run(const Plan& plan, DevicePtr input, DevicePtr output, DevicePtr workspace) {
  const CufftApi& api = Api();
  RETURN_IF_ERROR(api.status);
  const FftPlan& fft = plan.plan_;
  if (fft.empty) return Status::Ok();
  if (plan.workspace_bytes_ > 0) {
    if (workspace == 0) return Internal(fft.ToString() + ": no work area");
    if (int rc = api.set_work_area(plan.handle_, reinterpret_cast<void*>(workspace)); rc != 0) {
      return CufftError("cufftSetWorkArea", rc);
    }
  }
  void* in = reinterpret_cast<void*>(input);
  void* out = reinterpret_cast<void*>(output);
  const int direction = fft.inverse ? kInverse : kForward;
  int rc = 0;
  switch (fft.type) {
    case FftPlanType::kC2C: rc = api.exec_c2c(plan.handle_, in, out, direction); break;
    case FftPlanType::kZ2Z: rc = api.exec_z2z(plan.handle_, in, out, direction); break;
    case FftPlanType::kR2C: rc = api.exec_r2c(plan.handle_, in, out); break;
    case FftPlanType::kC2R: rc = api.exec_c2r(plan.handle_, in, out); break;
    case FftPlanType::kD2Z: rc = api.exec_d2z(plan.handle_, in, out); break;
    case FftPlanType::kZ2D: rc = api.exec_z2d(plan.handle_, in, out); break;
  }
  if (rc != 0) return CufftError(fft.ExecName(), rc);
  return Status::Ok();
}

}  // namespace fusebox::runtime

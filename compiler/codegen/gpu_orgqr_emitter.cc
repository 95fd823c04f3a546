// jaxlib's small batched orgqr as one launch: Q = H(0) H(1) ... H(k-1), each reflector
// H(i) = I - tau_i v_i v_iᵀ with v_i = (0, ..., 0, 1, a[i+1:, i]) from geqrf's lower part,
// for a batch of matrices up to 128 x 128 (OrgqrRunsAsKernel). A block takes one matrix
// and a thread one column of Q: it starts from that column of the identity and applies
// H(k-1) first, then H(k-2), ..., each as q -= tau_i v_i (v_iᵀ q). Columns never read one
// another, so there is no barrier and nothing in shared memory: the same work jaxlib's
// kernel does in the same shape, and one launch where cuSOLVER's orgqr takes a dozen per
// matrix.
//
// The call is the transposed one (library-call-lowering): its buffers hold a and Q
// column-major, a[r + c m] and q[r + c m] for the m x n matrix of a batch element, the taus
// k apart.
#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/ir/solver_plan.h"

namespace fusebox::codegen::gpu {

Status GpuKernelEmitter::EmitOrgqr(const Instruction& call, GpuKernel* kernel) {
  if (!OrgqrRunsAsKernel(call)) {
    return Internal(call.name() + ": not an orgqr call the GPU backend runs as its own kernel");
  }
  const Shape& a_shape = call.operand(0)->shape();
  const Shape& tau_shape = call.operand(1)->shape();
  const PrimitiveType type = a_shape.element_type();
  const int64_t rank = a_shape.rank();
  const int64_t n = a_shape.dimensions(rank - 2);  // Q's columns
  const int64_t m = a_shape.dimensions(rank - 1);  // its rows (the reflectors' length)
  const int64_t k = tau_shape.dimensions(tau_shape.rank() - 1);
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) batch *= a_shape.dimensions(d);
  kernel->kind_name = "orgqr(small batched)";
  kernel->bytes_read = ArrayBytes(a_shape) + ArrayBytes(tau_shape);
  kernel->bytes_written = ArrayBytes(call.shape());
  kernel->flops = batch * HouseholderProductFlops(m, n, k);

  const int64_t threads = (n + kWarp - 1) / kWarp * kWarp;
  GpuLaunch launch;
  launch.function = kernel->name + "_kernel";
  launch.grid = {batch, 1, 1};
  launch.block = {threads, 1, 1};
  Entry e = BeginEntry(call, launch.function, 3, 0, threads);
  llvm::IRBuilder<>& b = *e.b;
  llvm::Type* element = type == PrimitiveType::kF32 ? b.getFloatTy() : b.getDoubleTy();
  llvm::Value* matrix = BlockX(b);
  llvm::Value* column = ThreadX(b);
  // Element (r, c) of this batch element's m x n matrix in buffer `buffer` (a or q), and
  // this batch element's tau i.
  auto at = [&](int64_t buffer, llvm::Value* r, llvm::Value* c) {
    llvm::Value* offset = b.CreateAdd(b.CreateMul(matrix, b.getInt64(m * n)), b.CreateAdd(r, b.CreateMul(c, b.getInt64(m))));
    return b.CreateGEP(element, e.buffer(buffer), offset);
  };
  auto tau = [&](llvm::Value* i) {
    return b.CreateGEP(element, e.buffer(1), b.CreateAdd(b.CreateMul(matrix, b.getInt64(k)), i));
  };
  llvm::AllocaInst* w = b.CreateAlloca(element, nullptr, "w");
  If(e, b.CreateICmpULT(column, b.getInt64(n)), "orgqr_column", [&] {
    // This column of the identity.
    Loop(e, b.getInt64(m), "orgqr_identity", [&](llvm::Value* r) {
      llvm::Value* one = b.CreateSelect(b.CreateICmpEQ(r, column), llvm::ConstantFP::get(element, 1.0),
                                        llvm::ConstantFP::get(element, 0.0));
      b.CreateStore(one, at(2, r, column));
    });
    // The reflectors, last first.
    Loop(e, b.getInt64(k), "orgqr_reflector", [&](llvm::Value* step) {
      llvm::Value* i = b.CreateSub(b.getInt64(k - 1), step);
      llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
      llvm::Value* below = b.CreateSub(b.getInt64(m), next);  // the rows under the implicit 1
      // w = v_iᵀ q: the 1 at row i, then a's column i below it.
      b.CreateStore(b.CreateLoad(element, at(2, i, column)), w);
      Loop(e, below, "orgqr_dot", [&](llvm::Value* j) {
        llvm::Value* r = b.CreateAdd(next, j);
        llvm::Value* term = b.CreateFMul(b.CreateLoad(element, at(0, r, i)), b.CreateLoad(element, at(2, r, column)));
        b.CreateStore(b.CreateFAdd(b.CreateLoad(element, w), term), w);
      });
      // q -= (tau_i w) v_i.
      llvm::Value* scaled = b.CreateFMul(b.CreateLoad(element, tau(i)), b.CreateLoad(element, w));
      llvm::Value* top = at(2, i, column);
      b.CreateStore(b.CreateFSub(b.CreateLoad(element, top), scaled), top);
      Loop(e, below, "orgqr_update", [&](llvm::Value* j) {
        llvm::Value* r = b.CreateAdd(next, j);
        llvm::Value* q = at(2, r, column);
        llvm::Value* v = b.CreateLoad(element, at(0, r, i));
        b.CreateStore(b.CreateFSub(b.CreateLoad(element, q), b.CreateFMul(scaled, v)), q);
      });
    });
  });
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

}  // namespace fusebox::codegen::gpu

// The CPU kernel emitter's loops over loop atoms (PlanLoopAtoms, cpu_compiler_internal.h):
// the output's dimensions split as the kernel's reshapes need, and tiled transposes.
#include <llvm/IR/DerivedTypes.h>

#include <string>
#include <utility>
#include <vector>

#include "compiler/codegen/cpu_kernel_emitter.h"

namespace fusebox::codegen::cpu {

namespace {

constexpr int64_t kBlock = 8;  // the register transpose: kBlock x kBlock elements

// The output index at atom values `v`: each dimension a multiply-add of its atoms, whose
// factors the emitter is told (a reshape of the index then takes them apart for free).
IrIndex OutputIndex(ElementalEmitter& emitter, llvm::IRBuilder<>& b, const LoopAtoms& plan,
                    const std::vector<llvm::Value*>& v) {
  IrIndex index;
  for (const std::vector<int64_t>& dim : plan.output_dims) {
    llvm::Value* x = nullptr;
    std::vector<std::pair<llvm::Value*, int64_t>> parts;
    for (int64_t a : dim) {
      x = x == nullptr ? v[a]
                       : b.CreateAdd(b.CreateMul(x, b.getInt64(plan.sizes[a]), "", true, true), v[a], "", true, true);
      parts.emplace_back(v[a], plan.sizes[a]);
    }
    if (x == nullptr) x = b.getInt64(0);
    emitter.SetIndexFactors(x, std::move(parts));
    index.push_back(x);
  }
  return index;
}

// Transposes kBlock rows of kBlock elements in registers: at each step s (kBlock/2 down
// to 1) the off-diagonal s x s blocks of every 2s x 2s block trade places; after the last
// step row c holds column c.
std::vector<llvm::Value*> TransposeBlock(llvm::IRBuilder<>& b, std::vector<llvm::Value*> rows) {
  for (int64_t s = kBlock / 2; s >= 1; s /= 2) {
    std::vector<int> low(kBlock), high(kBlock);
    for (int64_t j = 0; j < kBlock; ++j) {
      const bool first = (j & s) == 0;
      low[j] = static_cast<int>(first ? j : kBlock + j - s);
      high[j] = static_cast<int>(first ? j + s : kBlock + j);
    }
    for (int64_t i = 0; i < kBlock; ++i) {
      if ((i & s) != 0) continue;
      llvm::Value* x = rows[i];
      llvm::Value* y = rows[i + s];
      rows[i] = b.CreateShuffleVector(x, y, low);
      rows[i + s] = b.CreateShuffleVector(x, y, high);
    }
  }
  return rows;
}

}  // namespace

void KernelEmitter::EmitAtomLoops(ElementalEmitter& emitter, llvm::IRBuilder<>& b, const LoopAtoms& plan,
                                  int64_t partition_dim, llvm::Value* begin, llvm::Value* end,
                                  const std::function<void(const IrIndex&)>& store_all) {
  const int64_t n = static_cast<int64_t>(plan.sizes.size());
  const std::vector<int64_t>& outer_atoms = plan.output_dims[partition_dim];
  emitter.EmitLoop(begin, end, "i" + std::to_string(partition_dim), [&](llvm::Value* outer) {
    std::vector<llvm::Value*> v(n, nullptr);
    llvm::Value* rest = outer;
    for (size_t j = outer_atoms.size(); j-- > 0;) {
      const int64_t a = outer_atoms[j];
      if (j == 0) {
        v[a] = rest;
      } else {
        v[a] = b.CreateURem(rest, b.getInt64(plan.sizes[a]));
        rest = b.CreateUDiv(rest, b.getInt64(plan.sizes[a]));
      }
    }
    const int64_t first_inner = outer_atoms.back() + 1;
    std::vector<int64_t> bounds(plan.sizes.begin() + first_inner, plan.sizes.end());
    std::vector<int64_t> order;
    for (int64_t j = 0; j < static_cast<int64_t>(bounds.size()); ++j) order.push_back(j);
    emitter.EmitLoopNest(bounds, order, "a", [&](const IrIndex& inner) {
      for (size_t j = 0; j < inner.size(); ++j) v[first_inner + static_cast<int64_t>(j)] = inner[j];
      store_all(OutputIndex(emitter, b, plan, v));
    });
  });
}

void KernelEmitter::EmitTiledLoops(ElementalEmitter& emitter, llvm::IRBuilder<>& b, llvm::Function* body,
                                   const LoopAtoms& plan, llvm::Value* begin, llvm::Value* end,
                                   const std::function<void(const IrIndex&)>& store_all) {
  const int64_t n = static_cast<int64_t>(plan.sizes.size());
  const int64_t k = plan.k, o = plan.o, tk = plan.tile_k, to = plan.tile_o;
  const int64_t k_size = plan.sizes[k], o_size = plan.sizes[o];
  auto i64 = [&](int64_t x) { return b.getInt64(x); };
  // Per tiled access: its element type in memory, its stack tile [tk][to], and the
  // stride of each atom in its buffer.
  struct Tiled {
    const LoopAtoms::Access* access;
    PrimitiveType type;
    llvm::Type* storage;
    llvm::Value* tile;
    std::vector<int64_t> strides;
  };
  std::vector<Tiled> tiled;
  for (size_t j : plan.tiled) {
    const LoopAtoms::Access& a = plan.accesses[j];
    Tiled t{&a, a.leaf->shape().element_type(), nullptr, nullptr, std::vector<int64_t>(n, 0)};
    t.storage = *StorageType(context_, t.type);
    llvm::AllocaInst* tile = emitter.EntryAlloca(llvm::ArrayType::get(t.storage, static_cast<uint64_t>(tk * to)),
                                                 "tile." + a.leaf->name());
    tile->setAlignment(llvm::Align(64));
    t.tile = tile;
    int64_t stride = 1;
    for (size_t d = a.dims.size(); d-- > 0;) {
      for (size_t i = a.dims[d].size(); i-- > 0;) {
        t.strides[a.dims[d][i]] = stride;
        stride *= plan.sizes[a.dims[d][i]];
      }
    }
    tiled.push_back(std::move(t));
  }
  auto linear = [&](const Tiled& t, const std::vector<llvm::Value*>& v) {
    llvm::Value* x = i64(0);
    for (int64_t a = 0; a < n; ++a) {
      if (t.strides[a] == 0) continue;
      llvm::Value* term = t.strides[a] == 1 ? v[a] : b.CreateMul(v[a], i64(t.strides[a]), "", true, true);
      x = b.CreateAdd(x, term, "", true, true);
    }
    return x;
  };
  // The rest of a strip, element by element (edges that are not whole tiles).
  auto plain = [&](std::vector<llvm::Value*>& v, llvm::Value* k_begin, llvm::Value* k_end, llvm::Value* o_begin,
                   llvm::Value* o_end) {
    emitter.EmitLoop(
        k_begin, k_end, "edge.k",
        [&](llvm::Value* kk) {
          v[k] = kk;
          emitter.EmitLoop(o_begin, o_end, "edge.o", [&](llvm::Value* oo) {
            v[o] = oo;
            store_all(OutputIndex(emitter, b, plan, v));
          });
        },
        true);
  };
  emitter.EmitLoop(begin, end, "strip", [&](llvm::Value* it) {
    // Iteration `it`: the atoms but k and o in loop order, k counted in tiles.
    std::vector<llvm::Value*> v(n, nullptr);
    llvm::Value* rest = it;
    int64_t first = -1;
    for (int64_t a = 0; a < n && first < 0; ++a) first = a == o ? -1 : a;
    for (int64_t a = n - 1; a >= 0; --a) {
      if (a == o) continue;
      const int64_t size = a == k ? (k_size + tk - 1) / tk : plan.sizes[a];
      if (a == first) {
        v[a] = rest;
      } else {
        v[a] = b.CreateURem(rest, i64(size));
        rest = b.CreateUDiv(rest, i64(size));
      }
    }
    llvm::Value* k0 = b.CreateMul(v[k], i64(tk), "k0", true, true);
    auto whole_strip = [&] {
      emitter.EmitLoop(
          i64(0), i64(o_size / to), "tile.o",
          [&](llvm::Value* ot) {
            llvm::Value* o0 = b.CreateMul(ot, i64(to), "o0", true, true);
            // Each tiled buffer's tile: rows along k (vector loads), transposed by blocks
            // into the stack tile with o minor.
            for (const Tiled& t : tiled) {
              llvm::Type* vector = llvm::FixedVectorType::get(t.storage, kBlock);
              const llvm::Align align(module_.getDataLayout().getTypeAllocSize(t.storage).getFixedValue());
              emitter.EmitLoop(i64(0), i64(tk / kBlock), "block.k", [&](llvm::Value* kb) {
                emitter.EmitLoop(i64(0), i64(to / kBlock), "block.o", [&](llvm::Value* ob) {
                  std::vector<llvm::Value*> at = v;
                  llvm::Value* kl = b.CreateMul(kb, i64(kBlock), "", true, true);
                  llvm::Value* ol = b.CreateMul(ob, i64(kBlock), "", true, true);
                  at[k] = b.CreateAdd(k0, kl, "", true, true);
                  std::vector<llvm::Value*> rows;
                  for (int64_t r = 0; r < kBlock; ++r) {
                    at[o] = b.CreateAdd(o0, b.CreateAdd(ol, i64(r), "", true, true), "", true, true);
                    llvm::Value* address = b.CreateInBoundsGEP(t.storage, body->getArg(static_cast<unsigned>(t.access->buffer)),
                                                               {linear(t, at)});
                    rows.push_back(b.CreateAlignedLoad(vector, address, align));
                  }
                  std::vector<llvm::Value*> columns = TransposeBlock(b, rows);
                  for (int64_t c = 0; c < kBlock; ++c) {
                    llvm::Value* row = b.CreateMul(b.CreateAdd(kl, i64(c), "", true, true), i64(to), "", true, true);
                    llvm::Value* address = b.CreateInBoundsGEP(t.storage, t.tile, {b.CreateAdd(row, ol, "", true, true)});
                    b.CreateAlignedStore(columns[c], address, align);
                  }
                });
              });
            }
            // The elements, o inner: the tiled buffers read from their tiles. The loops
            // run over the atoms' own values (from k0 and o0, not from 0): an output
            // index built by adding the tile's start to a loop counter from 0 became an
            // `or` chain whose flags LLVM lost, and the stores were scattered.
            emitter.EmitLoop(
                k0, b.CreateAdd(k0, i64(tk), "", true, true), "tile.k",
                [&](llvm::Value* kk) {
                  emitter.EmitLoop(o0, b.CreateAdd(o0, i64(to), "", true, true), "tile.o", [&](llvm::Value* oo) {
                    v[k] = kk;
                    v[o] = oo;
                    llvm::Value* kl = b.CreateSub(kk, k0, "", true, true);
                    llvm::Value* ol = b.CreateSub(oo, o0, "", true, true);
                    llvm::Value* slot = b.CreateAdd(b.CreateMul(kl, i64(to), "", true, true), ol, "", true, true);
                    for (const Tiled& t : tiled) {
                      llvm::Value* stored = b.CreateLoad(t.storage, b.CreateInBoundsGEP(t.storage, t.tile, {slot}));
                      emitter.BindScalar(t.access->leaf, ToRegister(b, t.type, stored));
                    }
                    store_all(OutputIndex(emitter, b, plan, v));
                    for (const Tiled& t : tiled) emitter.Unbind(t.access->leaf);
                  });
                },
                true);
          },
          true);
      if (o_size % to != 0) plain(v, k0, b.CreateAdd(k0, i64(tk), "", true, true), i64(o_size / to * to), i64(o_size));
    };
    if (k_size % tk == 0) {
      whole_strip();
      return;
    }
    // The last strip along k is short: element by element.
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* tiles = llvm::BasicBlock::Create(context_, "strip.tiles", fn);
    llvm::BasicBlock* edge = llvm::BasicBlock::Create(context_, "strip.edge", fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "strip.done", fn);
    b.CreateCondBr(b.CreateICmpULT(v[k], i64(k_size / tk)), tiles, edge);
    b.SetInsertPoint(tiles);
    emitter.PushScope();
    whole_strip();
    emitter.PopScope();
    b.CreateBr(done);
    b.SetInsertPoint(edge);
    emitter.PushScope();
    plain(v, k0, i64(k_size), i64(0), i64(o_size));
    emitter.PopScope();
    b.CreateBr(done);
    b.SetInsertPoint(done);
  });
}

}  // namespace fusebox::codegen::cpu

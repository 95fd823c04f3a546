#!/usr/bin/env python3
"""Makes tests/data/multidevice/<program>/: small sharded jax programs run by XLA on N
host CPU devices, with the HLO before and after SPMD partitioning, the global inputs
and XLA's global outputs, and a manifest of the shardings and collectives.

Called by scripts/make_multidevice_dumps.sh, once per program and in a fresh process
each time: XLA reads XLA_FLAGS (device count, dump folder) only once, when it loads.
  make_multidevice_dumps.py list                 print the program names
  make_multidevice_dumps.py run PROGRAM OUTDIR   run PROGRAM, write OUTDIR/*
  make_multidevice_dumps.py readme ROOT          write ROOT/README.md from the manifests
Each OUTDIR holds:
  module.hlo        the module jax hands to XLA (XLA's dump before optimizations: the
                    shardings, the xla.sdy.* custom calls and attributes, num_partitions)
  partitioned.hlo   XLA's optimized per-device module (compile().as_text())
  xla_dump/         the few dump files around partitioning (see DUMP_PASSES)
  inputs.npz        global inputs arg0, arg1, ... in entry parameter order
  expected<i>.npy   XLA's global outputs, in the order of the entry root tuple
  manifest.json     mesh, shardings per parameter and output, XLA's collectives
"""
import glob
import json
import os
import re
import shutil
import sys
import tempfile

# name -> (device count, one line on what it is)
PROGRAMS = {
    "dp_train_step": (4, "data-parallel SGD step of a 2-layer MLP: shard_map over 'd', "
                         "batch sharded, params replicated, grads and loss averaged "
                         "with lax.pmean"),
    "tp_mlp": (4, "tensor-parallel MLP under jit: w1 column-sharded P(None,'d'), relu, "
                  "w2 row-sharded P('d',None), output replicated"),
    "fsdp_layer": (4, "dense + gelu + dense on a 2x2 mesh ('data','model'): batch on "
                      "'data', weights sharded on both axes (FSDP on 'data', tensor "
                      "parallel on 'model'), hidden constrained to P('data','model')"),
    "shard_map_collectives": (4, "shard_map with lax.ppermute (ring shift), "
                                 "lax.all_to_all, lax.psum_scatter and lax.all_gather"),
    "sharded_xent": (4, "softmax cross-entropy of logits [8,64] sharded over the vocab "
                        "P(None,'d'), int32 labels replicated; mean and per-example loss"),
    "psum_8dev": (8, "shard_map over 8 devices with lax.psum and lax.all_gather"),
    # Partitioner rules beyond dots and elementwise ops (jit only: the partitioner's
    # choices, against XLA's).
    "conv_dp_grad": (8, "weight gradient of a 3x3 convolution, batch sharded over 8 "
                        "devices, weights replicated: the gradient convolution contracts "
                        "over the sharded batch (partial sums, one all-reduce)"),
    "vocab_embedding": (8, "embedding lookup from a table sharded over the vocabulary "
                           "(2x4 mesh: table on 'model', token ids on 'data'): each "
                           "device looks up its rows, masked, then one all-reduce"),
    "vocab_xent_grad": (8, "cross-entropy and its gradient over logits sharded on the "
                           "vocabulary and the batch (2x4 mesh), labels by "
                           "take_along_axis: a gather and a scatter-add on the sharded "
                           "vocabulary dim"),
    "fsdp_adam_step": (8, "FSDP: a weight sharded over all 8 devices, batch over 'data' "
                          "(2x4 mesh): the weight is gathered for the dot, the gradient "
                          "all-reduced, an Adam update on the shards"),
    "sharded_cumsum": (8, "cumulative sum along a sharded dim (a reduce-window over it): "
                          "gathered along that dim only, the output split as the input"),
    "spatial_conv_pool": (4, "a 3x3 convolution and a 3x3/2 max pool of an image split "
                             "along its height over 4 devices: halo exchanges "
                             "(collective-permutes) instead of gathering the image"),
    "argmax_sort": (8, "argmax, max and sort along the dim split over 'model' (2x4 mesh): "
                       "the argmax's partial (value, index) pairs gathered and reduced "
                       "again, the sort's split moved to the batch dim and back by "
                       "all-to-alls"),
    "pad_slice_concat": (4, "pad, slice, concatenate and roll along the dim split over 4 "
                            "devices: each device reads the rows its output tile needs "
                            "from the devices that hold them (collective-permutes)"),
    "linalg_depthwise_remat": (8, "what jax programs carry besides dots (2x4 mesh): a batch of "
                                  "Cholesky factorizations split 8 ways (jax's LAPACK custom "
                                  "call, split by its Shardy sharding rule), a median along an "
                                  "unsplit dim (a gather of a sorted, split array), a depthwise "
                                  "convolution split on batch and channels, and the gradient "
                                  "of a rematerialized (jax.checkpoint: opt-barrier) MLP"),
    "kv_cache_decode": (4, "one decoding step of attention over a KV cache split along its "
                           "sequence dim over 4 devices: the new key and value written at a "
                           "traced position where it lies (dynamic-update-slice), the scores' "
                           "softmax over the split sequence, and the cache read in reverse "
                           "order (a reverse along the split dim: tiles mirrored)"),
    "uneven_splits": (8, "splits whose tiles do not divide the dim, which XLA pads: a sharding "
                         "constraint on 10 rows over 4 devices, a max-pool gradient and an "
                         "associative scan over a dim split 4 and 8 ways"),
    "partial_manual_step": (8, "a shard_map manual over 'data' only, 'model' left to the "
                               "partitioner (2x4 mesh, axis_names={'data'}): each data shard "
                               "runs an MLP step whose hidden layer is constrained to split "
                               "over 'model' inside the region, the loss and gradients "
                               "averaged over 'data' with lax.pmean, the batch rotated over "
                               "'data' with lax.ppermute"),
    "shard_map_grad": (8, "the value and gradient of a loss through a Megatron MLP in a "
                          "shard_map manual over 'model' (2x4 mesh): jax passes the forward "
                          "region's residuals to the backward region split over 'model' with "
                          "the dim left open ({\"model\", ?}), which Shardy extends by "
                          "'data' (the batch's split), so no collective moves them"),
    "nested_shard_map": (8, "a shard_map manual over 'model' (Megatron's MLP, one psum) "
                            "inside the body of one manual over 'data' (each group's batch "
                            "rows, the loss averaged with lax.pmean): nested manual regions, "
                            "every axis manual in the inner one (2x4 mesh)"),
}
# Seeds: the first six programs' come from their place among those six (as they were
# made); later programs' from their own place after them.
SEED_ORDER = sorted(list(PROGRAMS)[:6]) + list(PROGRAMS)[6:]

# Snapshots copied from XLA's dump folder, besides before/after optimizations.
DUMP_PASSES = ["shardy-xla", "spmd-partitioning"]

COLLECTIVES = ["all-reduce-start", "all-reduce", "all-gather-start", "all-gather",
               "reduce-scatter", "all-to-all", "collective-permute-start",
               "collective-permute", "collective-broadcast"]
_INSTR = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*?)\s+([a-z][a-z0-9\-]*)\(")


# ----------------------------------------------------------------------------------
# The programs. Each returns (function to jit, args pytree, mesh, jit kwargs).
# ----------------------------------------------------------------------------------

def build(name, jax, np):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    f32 = np.float32
    rng = np.random.default_rng(SEED_ORDER.index(name))

    def rand(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(f32)

    devices = jax.devices()
    jnp = jax.numpy
    lax = jax.lax

    if name == "dp_train_step":
        mesh = Mesh(np.array(devices[:4]), ("d",))

        def mse(params, x, y):
            w1, b1, w2, b2 = params
            h = jnp.tanh(x @ w1 + b1)
            return jnp.mean((h @ w2 + b2 - y) ** 2)

        # check_vma=False: the gradient of a replicated parameter stays per-device
        # (the classic pattern), so the explicit pmean is what averages it.
        def local_step(params, x, y):
            loss, grads = jax.value_and_grad(mse)(params, x, y)
            grads = lax.pmean(grads, "d")
            loss = lax.pmean(loss, "d")
            new = tuple(p - f32(0.1) * g for p, g in zip(params, grads))
            return new, loss

        step = jax.shard_map(local_step, mesh=mesh, check_vma=False,
                             in_specs=(P(), P("d"), P("d")), out_specs=(P(), P()))

        def dp_train_step(params, x, y):
            return step(params, x, y)

        params = (rand(16, 32, scale=0.25), rand(32, scale=0.1),
                  rand(32, 8, scale=0.2), rand(8, scale=0.1))
        return dp_train_step, (params, rand(16, 16), rand(16, 8)), mesh, {}

    if name == "tp_mlp":
        mesh = Mesh(np.array(devices[:4]), ("d",))

        def s(*spec):
            return NamedSharding(mesh, P(*spec))

        def tp_mlp(x, w1, w2):
            h = jax.nn.relu(x @ w1)
            h = lax.with_sharding_constraint(h, s(None, "d"))
            return h @ w2

        kw = dict(in_shardings=(s(), s(None, "d"), s("d", None)), out_shardings=s())
        return tp_mlp, (rand(8, 16), rand(16, 32, scale=0.25), rand(32, 16, scale=0.2)), \
            mesh, kw

    if name == "fsdp_layer":
        mesh = Mesh(np.array(devices[:4]).reshape(2, 2), ("data", "model"))

        def s(*spec):
            return NamedSharding(mesh, P(*spec))

        # FSDP on 'data' (each weight's other dim sharded over the batch axis, gathered
        # before use) and tensor parallel on 'model' (w1 columns, w2 rows).
        def fsdp_layer(x, w1, b1, w2, b2):
            h = jax.nn.gelu(x @ w1 + b1)  # approximate=True: tanh, no erf
            h = lax.with_sharding_constraint(h, s("data", "model"))
            return h @ w2 + b2

        kw = dict(in_shardings=(s("data", None), s("data", "model"), s("model"),
                                s("model", "data"), s("data")),
                  out_shardings=s("data", None))
        args = (rand(8, 16), rand(16, 32, scale=0.25), rand(32, scale=0.1),
                rand(32, 16, scale=0.2), rand(16, scale=0.1))
        return fsdp_layer, args, mesh, kw

    if name == "shard_map_collectives":
        mesh = Mesh(np.array(devices[:4]), ("d",))
        n = 4

        def local(x, y):  # x, y: [4, 8] blocks of [16, 8]
            shifted = lax.ppermute(x, "d", perm=[(i, (i + 1) % n) for i in range(n)])
            ring = shifted * f32(2.0) - x
            # [4, 8] -> 4 chunks of [4, 2] along dim 1, one to each device -> [16, 2]
            swapped = lax.all_to_all(y, "d", split_axis=1, concat_axis=0, tiled=True)
            # sum over devices of [4, 8], each device keeps one row -> [1, 8]
            scattered = lax.psum_scatter(x * y, "d", scatter_dimension=0, tiled=True)
            gathered = lax.all_gather(jnp.sum(y, axis=0, keepdims=True), "d",
                                      axis=0, tiled=True, to="invarying")  # [4, 8]
            return ring, swapped, scattered, gathered @ gathered.T

        sm = jax.shard_map(local, mesh=mesh, in_specs=(P("d"), P("d")),
                           out_specs=(P("d"), P("d"), P("d"), P()))

        def shard_map_collectives(x, y):
            return sm(x, y)

        return shard_map_collectives, (rand(16, 8), rand(16, 8)), mesh, {}

    if name == "sharded_xent":
        mesh = Mesh(np.array(devices[:4]), ("d",))

        def s(*spec):
            return NamedSharding(mesh, P(*spec))

        def sharded_xent(logits, labels):
            logp = jax.nn.log_softmax(logits, axis=-1)
            # one-hot rather than take_along_axis: an iota compare, not a gather
            onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
            per_example = -jnp.sum(logp * onehot, axis=-1)
            return jnp.mean(per_example), per_example

        kw = dict(in_shardings=(s(None, "d"), s()), out_shardings=(s(), s()))
        labels = rng.integers(0, 64, size=(8,)).astype(np.int32)
        return sharded_xent, (rand(8, 64, scale=2.0), labels), mesh, kw

    if name == "psum_8dev":
        mesh = Mesh(np.array(devices[:8]), ("d",))

        def local(x):  # x: [4, 8] block of [32, 8]
            total = lax.psum(jnp.sum(x, axis=0), "d")  # [8]
            scaled = x * total
            gathered = lax.all_gather(jnp.max(scaled, axis=0), "d", tiled=False,
                                      to="invarying")  # [8 devices, 8]
            return total, scaled, gathered

        sm = jax.shard_map(local, mesh=mesh, in_specs=P("d"),
                           out_specs=(P(), P("d"), P()))

        def psum_8dev(x):
            return sm(x)

        return psum_8dev, (rand(32, 8),), mesh, {}

    mesh24 = Mesh(np.array(devices[:8]).reshape(2, 4), ("data", "model")) if len(devices) >= 8 else None

    def s24(*spec):
        return NamedSharding(mesh24, P(*spec))

    if name == "conv_dp_grad":
        mesh = Mesh(np.array(devices[:8]), ("d",))
        dn = ("NHWC", "HWIO", "NHWC")

        def conv_dp_grad(x, w):
            loss = lambda w: jnp.tanh(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn)).mean()
            return jax.value_and_grad(loss)(w)

        kw = dict(in_shardings=(NamedSharding(mesh, P("d")), NamedSharding(mesh, P())))
        return conv_dp_grad, (rand(8, 8, 8, 3), rand(3, 3, 3, 8, scale=0.3)), mesh, kw

    if name == "vocab_embedding":
        def vocab_embedding(table, ids):
            return jnp.take(table, ids, axis=0) * f32(2.0)

        ids = rng.integers(0, 64, size=(4, 6)).astype(np.int32)
        ids[0, 0], ids[1, 1] = 0, 63  # the first and last rows of the table
        kw = dict(in_shardings=(s24("model", None), s24("data", None)))
        return vocab_embedding, (rand(64, 16), ids), mesh24, kw

    if name == "vocab_xent_grad":
        def vocab_xent_grad(logits, labels):
            def loss(l):
                logp = jax.nn.log_softmax(l)
                return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()
            return jax.value_and_grad(loss)(logits)

        labels = rng.integers(0, 64, size=(8,)).astype(np.int32)
        kw = dict(in_shardings=(s24("data", "model"), s24("data")))
        return vocab_xent_grad, (rand(8, 64, scale=2.0), labels), mesh24, kw

    if name == "fsdp_adam_step":
        def fsdp_adam_step(p, m, v, x):
            g = jax.grad(lambda p: jnp.tanh(x @ p).var())(p)
            m = f32(0.9) * m + f32(0.1) * g
            v = f32(0.99) * v + f32(0.01) * g * g
            return p - f32(1e-2) * m / (jnp.sqrt(v) + f32(1e-8)), m, v

        all8 = s24(("data", "model"))
        kw = dict(in_shardings=(all8, all8, all8, s24("data")))
        v0 = np.abs(rand(32, 32, scale=0.01))
        return fsdp_adam_step, (rand(32, 32, scale=0.2), rand(32, 32, scale=0.01), v0, rand(16, 32)), mesh24, kw

    if name == "sharded_cumsum":
        def sharded_cumsum(x):
            return jnp.cumsum(x, axis=1)

        kw = dict(in_shardings=(s24("data", "model"),))
        return sharded_cumsum, (rand(8, 64),), mesh24, kw

    if name == "spatial_conv_pool":
        mesh = Mesh(np.array(devices[:4]), ("h",))
        dn = ("NHWC", "HWIO", "NHWC")

        def spatial_conv_pool(x, w):
            y = jax.nn.relu(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn))
            return lax.reduce_window(y, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")

        img = NamedSharding(mesh, P(None, "h", None, None))
        kw = dict(in_shardings=(img, NamedSharding(mesh, P())), out_shardings=img)
        return spatial_conv_pool, (rand(2, 32, 16, 3), rand(3, 3, 3, 8, scale=0.3)), mesh, kw

    if name == "argmax_sort":
        def argmax_sort(x):
            return jnp.argmax(x, axis=1), jnp.max(x, axis=1), jnp.sort(x, axis=1)

        x = rand(8, 64)
        x[0, 5] = x[0, 40] = 9.0  # a tie across two devices' pieces: the first wins
        x[3, :] = 0.5             # every value the same: index 0
        x[5, 63] = 9.0            # the last element
        kw = dict(in_shardings=(s24("data", "model"),), out_shardings=(s24("data"), s24("data"), s24("data", "model")))
        return argmax_sort, (x,), mesh24, kw

    if name == "pad_slice_concat":
        mesh = Mesh(np.array(devices[:4]), ("d",))
        rows = NamedSharding(mesh, P("d", None))

        def pad_slice_concat(x, y):
            padded = jnp.pad(x, ((1, 3), (0, 0)), constant_values=-1.0)
            middle = x[2:6] * f32(2.0)
            stacked = jnp.concatenate([x, y], axis=0)
            rolled = jnp.roll(x, 3, axis=0)  # slices of 3 and 5 rows, concatenated
            return padded, middle, stacked, rolled

        kw = dict(in_shardings=(rows, rows), out_shardings=(rows, rows, rows, rows))
        return pad_slice_concat, (rand(8, 12), rand(4, 12)), mesh, kw

    if name == "linalg_depthwise_remat":
        dn = ("NHWC", "HWIO", "NHWC")

        def linalg_depthwise_remat(a, v, img, w, x, w1, w2):
            spd = a @ jnp.swapaxes(a, 1, 2) + f32(6.0) * jnp.eye(6, dtype=f32)
            chol = jnp.linalg.cholesky(spd)
            med = jnp.median(v, axis=2)
            depthwise = lax.conv_general_dilated(img, w, (1, 1), "SAME", dimension_numbers=dn,
                                                 feature_group_count=8)
            mlp = jax.checkpoint(lambda w1, w2: jnp.tanh(x @ w1) @ w2)
            g1, g2 = jax.grad(lambda w1, w2: (mlp(w1, w2) ** 2).mean(), argnums=(0, 1))(w1, w2)
            return chol, med, depthwise, g1, g2

        rep = s24()
        ins = (s24(("data", "model")), s24("data", "model"), s24("data", None, None, "model"),
               s24(None, None, None, "model"), s24(("data", "model")), rep, rep)
        outs = (s24(("data", "model")), s24("data", "model"), s24("data", None, None, "model"), rep, rep)
        v = rand(8, 16, 5)
        v[0, 0, :] = 2.0  # all equal
        args = (rand(8, 6, 6), v, rand(2, 8, 8, 8), rand(3, 3, 1, 8, scale=0.5), rand(16, 32),
                rand(32, 64, scale=0.2), rand(64, 32, scale=0.2))
        return linalg_depthwise_remat, args, mesh24, dict(in_shardings=ins, out_shardings=outs)

    if name == "kv_cache_decode":
        mesh = Mesh(np.array(devices[:4]), ("d",))
        seq = NamedSharding(mesh, P(None, "d", None))
        rep = NamedSharding(mesh, P())

        def kv_cache_decode(k_cache, v_cache, q, k_new, v_new, pos):
            k_cache = lax.dynamic_update_slice_in_dim(k_cache, k_new, pos, 1)
            v_cache = lax.dynamic_update_slice_in_dim(v_cache, v_new, pos, 1)
            valid = jnp.arange(k_cache.shape[1])[None, None, :] <= pos
            scores = jnp.where(valid, jnp.einsum("bqd,bsd->bqs", q, k_cache) / f32(4.0), -jnp.inf)
            out = jnp.einsum("bqs,bsd->bqd", jax.nn.softmax(scores, -1), v_cache)
            return k_cache, v_cache, out, jnp.flip(k_cache, 1)

        kw = dict(in_shardings=(seq, seq, rep, rep, rep, rep), out_shardings=(seq, seq, rep, seq))
        args = (rand(2, 32, 16), rand(2, 32, 16), rand(2, 1, 16), rand(2, 1, 16), rand(2, 1, 16), np.int32(13))
        return kv_cache_decode, args, mesh, kw

    if name == "uneven_splits":
        def uneven_splits(x, img, seq):
            rows = lax.with_sharding_constraint(x[:10] * 2, s24("model", None))
            pool = jax.grad(lambda im: lax.reduce_window(im, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                                                         "SAME").sum())(img)
            return jnp.tanh(rows) @ jnp.ones((16, 8), jnp.float32), rows.sum(0), pool, lax.associative_scan(jnp.add, seq, axis=1)

        kw = dict(in_shardings=(s24("model", None), s24(None, ("data", "model"), None, None), s24("data", "model")))
        return uneven_splits, (rand(16, 16), rand(2, 16, 16, 4), rand(8, 64)), mesh24, kw

    if name == "partial_manual_step":
        def local(x, w1, w2):  # x: [4, 16], the 'data' block of [8, 16]; w1, w2 whole
            def loss_fn(w1, w2):
                h = jnp.tanh(x @ w1)
                # 'model' is not manual here: the constraint splits the hidden units
                # over it inside the region (partially manual shardings).
                h = lax.with_sharding_constraint(h, NamedSharding(mesh24, P(None, "model")))
                return jnp.mean((h @ w2) ** 2)

            loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w1, w2)
            loss, g1, g2 = lax.pmean((loss, g1, g2), "data")
            rotated = lax.ppermute(x, "data", perm=[(0, 1), (1, 0)])
            return loss, w1 - f32(0.1) * g1, w2 - f32(0.1) * g2, rotated

        sm = jax.shard_map(local, mesh=mesh24, in_specs=(P("data"), P(), P()),
                           out_specs=(P(), P(), P(), P("data")), axis_names={"data"},
                           check_vma=False)

        def partial_manual_step(x, w1, w2):
            return sm(x, w1, w2)

        kw = dict(in_shardings=(s24("data", None), s24(None, "model"), s24("model", None)))
        return partial_manual_step, (rand(8, 16), rand(16, 32, scale=0.3), rand(32, 8, scale=0.3)), mesh24, kw

    if name == "shard_map_grad":
        def tp(x, w1, w2):  # column-split w1, row-split w2, one psum
            return lax.psum(jax.nn.gelu(x @ w1) @ w2, "model")

        sm = jax.shard_map(tp, mesh=mesh24, in_specs=(P(), P(None, "model"), P("model", None)),
                           out_specs=P(), axis_names={"model"}, check_vma=False)

        def shard_map_grad(x, w1, w2):
            return jax.value_and_grad(lambda w1, w2: jnp.mean(sm(x, w1, w2) ** 2), argnums=(0, 1))(w1, w2)

        kw = dict(in_shardings=(s24("data", None), s24(None, "model"), s24("model", None)))
        return shard_map_grad, (rand(8, 32), rand(32, 64, scale=0.3), rand(64, 32, scale=0.3)), mesh24, kw

    if name == "nested_shard_map":
        def inner(x, w1, w2):  # w1 column-split, w2 row-split over 'model'; one psum
            return lax.psum(jnp.tanh(x @ w1) @ w2, "model")

        def outer(x, w1, w2):  # each 'data' group's batch rows; the inner region takes
            # the mesh of its context, where 'data' is manual already
            y = jax.shard_map(inner, in_specs=(P(), P(None, "model"), P("model", None)),
                              out_specs=P(), axis_names={"model"}, check_vma=False)(x, w1, w2)
            return y, lax.pmean(jnp.mean(y ** 2), "data")

        sm = jax.shard_map(outer, mesh=mesh24, in_specs=(P("data"), P(), P()),
                           out_specs=(P("data"), P()), axis_names={"data"}, check_vma=False)

        def nested_shard_map(x, w1, w2):
            return sm(x, w1, w2)

        kw = dict(in_shardings=(s24("data", None), s24(None, "model"), s24("model", None)))
        return nested_shard_map, (rand(8, 32), rand(32, 64, scale=0.3), rand(64, 32, scale=0.3)), mesh24, kw

    sys.exit(f"make_multidevice_dumps: unknown program {name!r}; known: "
             f"{' '.join(PROGRAMS)}")


# ----------------------------------------------------------------------------------
# HLO text scraping (regexes; enough for the attributes below, not a parser).
# ----------------------------------------------------------------------------------

def attr(line, key):
    """The text of attribute `key=` on an instruction line, or None. Scans to the first
    comma outside brackets and quotes, so {{0,1},{2,3}}, [1,4]<=[4] and
    mesh['a'=2,'b'=2] {'a'} come back whole."""
    m = re.search(r"(?:^|[\s,])" + re.escape(key) + "=", line)
    if not m:
        return None
    i, depth, quoted, out = m.end(), 0, False, []
    while i < len(line):
        c = line[i]
        if quoted:
            if c == "\\" and i + 1 < len(line):
                out.append(line[i:i + 2])
                i += 2
                continue
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        elif c == "," and depth == 0:
            break
        out.append(c)
        i += 1
    return "".join(out).strip()


def sdy_sharding(line):
    m = re.search(r'xla\.sdy\.sharding="((?:[^"\\]|\\.)*)"', line)
    return m.group(1).replace('\\"', '"') if m else None


def entry_lines(text):
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("ENTRY "):
            inside = True
            continue
        if inside:
            if line.startswith("}"):
                break
            lines.append(line)
    return lines


def entry_params(text):
    """{index: (shape, line)} of the ENTRY computation's parameters."""
    params = {}
    for line in entry_lines(text):
        m = _INSTR.match(line)
        if m and m.group(3) == "parameter":
            idx = int(re.search(r"parameter\((\d+)\)", line).group(1))
            params[idx] = (m.group(2), line)
    return params


def entry_root(text):
    for line in entry_lines(text):
        if line.lstrip().startswith("ROOT "):
            m = _INSTR.match(line)
            return m.group(2), m.group(3), line
    raise ValueError("no ROOT in ENTRY")


def collectives(text):
    found = []
    for line in text.splitlines():
        m = _INSTR.match(line)
        if not m or m.group(3) not in COLLECTIVES:
            continue
        c = {"name": m.group(1), "opcode": m.group(3), "shape": m.group(2)}
        for key in ("replica_groups", "source_target_pairs", "dimensions",
                    "channel_id", "use_global_device_ids"):
            v = attr(line, key)
            if v is not None:
                c[key] = v
        found.append(c)
    return found


# ----------------------------------------------------------------------------------
# run
# ----------------------------------------------------------------------------------

def run(name, outdir):
    devices, about = PROGRAMS[name]
    dump = tempfile.mkdtemp(prefix=f"fusebox-md-{name}-")
    os.environ["XLA_FLAGS"] = (
        f"--xla_force_host_platform_device_count={devices} --xla_dump_to={dump} "
        f"--xla_dump_hlo_as_text --xla_dump_hlo_pass_re={'|'.join(DUMP_PASSES)}")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")

    import numpy as np
    import jax
    import jaxlib

    # Source locations inside the HLO name this script relative to the repository root.
    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    jax.config.update("jax_hlo_source_file_canonicalization_regex",
                      "^" + re.escape(repo_root + os.sep))
    assert len(jax.devices()) == devices, jax.devices()

    fn, args, mesh, kw = build(name, jax, np)
    jitted = jax.jit(fn, **kw)
    lowered = jitted.lower(*args)
    compiled = lowered.compile()
    out = jitted(*args)
    jax.block_until_ready(out)

    flat_in = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
    flat_out = [np.asarray(o) for o in jax.tree_util.tree_leaves(out)]
    for i, o in enumerate(flat_out):
        if not np.all(np.isfinite(o)):
            sys.exit(f"make_multidevice_dumps: {name}: output {i} is not finite")

    # The module XLA received: its dump before optimizations (carries num_partitions and
    # the module's frontend attributes, which compiler_ir('hlo') leaves out).
    befores = glob.glob(os.path.join(dump, f"module_*.jit_{name}.before_optimizations.txt"))
    if len(befores) != 1:
        sys.exit(f"make_multidevice_dumps: {name}: expected one jit_{name} module in "
                 f"{dump}, found {befores}")
    prefix = befores[0][:-len("before_optimizations.txt")]
    with open(befores[0]) as f:
        module_text = f.read()
    partitioned_text = compiled.as_text()

    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(os.path.join(outdir, "xla_dump"))
    with open(os.path.join(outdir, "module.hlo"), "w") as f:
        f.write(module_text)
    with open(os.path.join(outdir, "partitioned.hlo"), "w") as f:
        f.write(partitioned_text)
    kept = [befores[0]] + sorted(glob.glob(prefix + "cpu_after_optimizations.txt"))
    for pass_name in DUMP_PASSES:
        kept += sorted(glob.glob(prefix + f"*.after_{pass_name}.*txt"))
    for path in kept:
        shutil.copy(path, os.path.join(outdir, "xla_dump", os.path.basename(path)))
    shutil.rmtree(dump)

    params = entry_params(module_text)
    if sorted(params) != list(range(len(flat_in))):
        sys.exit(f"make_multidevice_dumps: {name}: {len(flat_in)} inputs but entry "
                 f"parameters {sorted(params)}")
    np.savez(os.path.join(outdir, "inputs.npz"),
             *flat_in)  # arr_0, arr_1, ...: numpy's names, which --inputs maps to parameters
    for i, o in enumerate(flat_out):
        np.save(os.path.join(outdir, f"expected{i}.npy"), o)

    def spec(s):  # PartitionSpec where jax has one, else the HLO sharding jit chose
        if hasattr(s, "spec"):
            return str(s.spec)
        return re.sub(r", memory_kind=\w+\)$", ")", str(s))

    in_shardings = jax.tree_util.tree_leaves(compiled.input_shardings)
    out_shardings = jax.tree_util.tree_leaves(compiled.output_shardings)
    part_params = entry_params(partitioned_text)
    parameters = []
    for i, a in enumerate(flat_in):
        shape, line = params[i]
        pshape, pline = part_params[i]
        parameters.append({
            "key": f"arr_{i}", "name": _INSTR.match(line).group(1), "shape": shape,
            "dtype": str(a.dtype), "jax_spec": spec(in_shardings[i]),
            "hlo_sharding": attr(line, "sharding"), "sdy_sharding": sdy_sharding(line),
            "per_device_shape": pshape, "partitioned_sharding": attr(pline, "sharding")})

    root_shape, root_op, root_line = entry_root(module_text)
    sdy_results = [sdy_sharding(l) for l in entry_lines(module_text)
                   if 'custom_call_target="xla.sdy.FuncResultSharding"' in l]
    pshape = entry_root(partitioned_text)[0]
    outputs = []
    for i, o in enumerate(flat_out):
        outputs.append({
            "file": f"expected{i}.npy", "shape": list(o.shape), "dtype": str(o.dtype),
            "jax_spec": spec(out_shardings[i]),
            "sdy_sharding": sdy_results[i] if i < len(sdy_results) else None})
    found = collectives(partitioned_text)
    counts = {}
    for c in found:
        counts[c["opcode"]] = counts.get(c["opcode"], 0) + 1
    m = re.search(r"num_partitions=(\d+)", module_text)
    manifest = {
        "program": name, "description": about, "devices": devices,
        "num_partitions": int(m.group(1)) if m else None,
        "mesh": {"axes": dict(mesh.shape), "device_ids": mesh.device_ids.tolist()},
        "jax": jax.__version__, "jaxlib": jaxlib.__version__,
        "parameters": parameters, "outputs": outputs,
        "module_root": {"shape": root_shape, "opcode": root_op,
                        "hlo_sharding": attr(root_line, "sharding")},
        "partitioned_root": {"shape": pshape},
        "collectives": found, "collective_counts": counts,
        "files": sorted(os.path.relpath(os.path.join(d, f), outdir)
                        for d, _, fs in os.walk(outdir) for f in fs) + ["manifest.json"],
    }
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"make_multidevice_dumps: ran {name} on {devices} devices with jax "
          f"{jax.__version__}, jaxlib {jaxlib.__version__}; collectives {counts}")


# ----------------------------------------------------------------------------------
# readme
# ----------------------------------------------------------------------------------

README_HEAD = """\
# Multi-device programs

Small sharded jax programs that XLA compiled and ran on N host CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=N`), for Fusebox's multi-device work
(issue 23). Made by `scripts/make_multidevice_dumps.sh` (also run at the end of
`scripts/make_dumps.sh`), which runs `scripts/make_multidevice_dumps.py run PROGRAM
tests/data/multidevice/PROGRAM` once per program, each in its own process, with
jax {jax} (jaxlib {jaxlib}) on the CPU:

    FUSEBOX_JAX_VENV=/tmp/fusebox-jax-venv scripts/make_multidevice_dumps.sh [PROGRAM...]

Each folder holds:

- `module.hlo`: the module jax handed to XLA, before partitioning: XLA's dump
  `*.before_optimizations.txt` (`--xla_dump_to`). It carries `num_partitions` and the
  mesh in the module's `frontend_attributes={{xla.sdy.meshes={{...}}}}`. Under
  `jax.jit(in_shardings=...)` each entry parameter has a `sharding={{...}}` plus an
  `xla.sdy.sharding` frontend attribute, each result goes through a
  `custom_call_target="xla.sdy.FuncResultSharding"`, and `with_sharding_constraint` is
  a `custom_call_target="Sharding"`. A `shard_map` leaves the parameters unsharded
  and is a `call` of `%xla.sdy.manual_computation_body.N` (`inlineable="false"`)
  between custom calls `xla.sdy.GlobalToLocalShape` and `xla.sdy.LocalToGlobalShape`
  (attributes `xla.sdy.in_shardings`, `xla.sdy.out_shardings`, `xla.sdy.manual_axes`);
  the body holds the explicit collectives on per-device shapes.
- `partitioned.hlo`: XLA's optimized per-device module
  (`jax.jit(f, ...).lower(...).compile().as_text()`), with the collectives XLA inserted
  and per-device parameter shapes.
- `xla_dump/`: the dump files around partitioning: before optimizations, after the
  `shardy-xla` and `spmd-partitioning` passes, and `cpu_after_optimizations.txt`.
- `inputs.npz`: the global inputs `arg0`, `arg1`, ... in entry parameter order.
- `expected0.npy`, ...: XLA's global outputs, in the order of the entry root tuple.
- `manifest.json`: mesh, each parameter's and output's sharding (jax's spec, the HLO
  `sharding=`, the `xla.sdy.sharding` attribute, the per-device shape), and every
  collective in `partitioned.hlo` (opcode, shape, replica groups or source-target
  pairs) with a count per kind.

## Programs

| program | devices | mesh | what |
|---|---|---|---|
"""


def readme(root):
    manifests = []
    for name in PROGRAMS:
        path = os.path.join(root, name, "manifest.json")
        if os.path.exists(path):
            with open(path) as f:
                manifests.append(json.load(f))
    if not manifests:
        sys.exit(f"make_multidevice_dumps: no manifests under {root}")
    text = README_HEAD.format(jax=manifests[0]["jax"], jaxlib=manifests[0]["jaxlib"])
    for m in manifests:
        mesh = ", ".join(f"'{k}'={v}" for k, v in m["mesh"]["axes"].items())
        text += f"| `{m['program']}` | {m['devices']} | {mesh} | {m['description']} |\n"

    def shape(s):
        return re.sub(r"\{[\d,]*\}", "", s)

    text += ("\n## Shardings\n\nParameters: global shape, jax's spec (or the HLO sharding "
             "jit chose for a shard_map's inputs), per-device shape in "
             "`partitioned.hlo`. Outputs: global shape and jax's spec.\n\n"
             "| program | parameters | outputs |\n|---|---|---|\n")
    for m in manifests:
        ins = "<br>".join(f"`{shape(p['shape'])}` {p['jax_spec']} → "
                          f"`{shape(p['per_device_shape'])}`" for p in m["parameters"])
        outs = "<br>".join(f"`{o['dtype']}[{','.join(map(str, o['shape']))}]` "
                           f"{o['jax_spec']}" for o in m["outputs"])
        text += f"| `{m['program']}` | {ins} | {outs} |\n"

    kinds = [k for k in COLLECTIVES if any(k in m["collective_counts"] for m in manifests)]
    text += ("\n## XLA's collectives in partitioned.hlo\n\n| program | "
             + " | ".join(kinds) + " |\n|---|" + "---|" * len(kinds) + "\n")
    for m in manifests:
        counts = [str(m["collective_counts"].get(k, 0)) for k in kinds]
        text += f"| `{m['program']}` | " + " | ".join(counts) + " |\n"
    text += "\nReplica groups and source-target pairs per instruction: `manifest.json`.\n"

    shardings, groups = {}, {}
    for m in manifests:
        for p in m["parameters"]:
            for key in ("hlo_sharding", "partitioned_sharding"):
                if p[key]:
                    shardings.setdefault(p[key], m["program"])
        if m["module_root"]["hlo_sharding"]:
            shardings.setdefault(m["module_root"]["hlo_sharding"], m["program"])
        for c in m["collectives"]:
            for key in ("replica_groups", "source_target_pairs"):
                if key in c:
                    groups.setdefault(f"{key}={c[key]}", m["program"])
    text += ("\n## Syntax seen\n\nEntry `sharding=` values (module.hlo and "
             "partitioned.hlo), first program that has each:\n\n")
    text += "".join(f"- `sharding={k}` ({v})\n" for k, v in sorted(shardings.items()))
    text += "\nDevice groups of XLA's collectives in partitioned.hlo:\n\n"
    text += "".join(f"- `{k}` ({v})\n" for k, v in sorted(groups.items()))
    with open(os.path.join(root, "README.md"), "w") as f:
        f.write(text)


def main(argv):
    if len(argv) == 2 and argv[1] == "list":
        print("\n".join(PROGRAMS))
    elif len(argv) == 4 and argv[1] == "run":
        run(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "readme":
        readme(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
